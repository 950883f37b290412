-- `status`'s state of the stage in one pass over order_stage (the review page's overview, the
-- metrics file's gauges): rows by load and status, and per group what status_retry_wait.sql and
-- status_oldest_waiting.sql read apart (the first RETRY_WAIT row's due time; since when the
-- group's rows wait: READY, RETRY_WAIT and HELD rows wait since the run that last staged them
-- started, their load_id, else since they were first staged). Counting needs every row: the
-- other two ride on that pass instead of a pass each (a 1,000,000-row PGlite folder: 1–2 s a
-- pass; bench/RESULTS.md, the review page's overview). The oldest READY row is not here: its
-- partial index (status_oldest_ready.sql) finds it without a pass.
WITH g AS (
  SELECT load_id, process_status, count(*)::int AS n,
         min(next_attempt_at) AS next_due_at,
         min(staged_at) AS staged_since
    FROM order_stage
   GROUP BY load_id, process_status
)
SELECT g.load_id, g.process_status, g.n,
       CASE WHEN g.process_status = 'RETRY_WAIT' THEN g.next_due_at END AS next_due_at,
       CASE WHEN g.process_status IN ('READY', 'RETRY_WAIT', 'HELD')
            THEN coalesce(r.started_at, g.staged_since) END AS waiting_since
  FROM g
  LEFT JOIN load_run r ON r.run_id = g.load_id
 ORDER BY g.load_id NULLS FIRST, g.process_status;
