-- `recover`: the HELD rows of the loads that no RUNNING run stages (a run stages load L when its
-- 'invoked' event names L) and whose latest hold is older than $1 (updated_at: a rerun that
-- skips or resumes the load dates its holds again), locked for the audited release. Runs whose
-- process is gone are marked FAILED before this. SKIP LOCKED: a row a live transaction holds is
-- left alone. A load held for its control totals is never given up here: only `accept` releases it.
WITH abandoned AS (
  SELECT h.load_id
    FROM order_stage h
   WHERE h.process_status = 'HELD'
     AND h.load_id IS NOT NULL
   GROUP BY h.load_id
  HAVING max(h.updated_at) < $1::timestamptz
     AND NOT EXISTS (SELECT 1
                       FROM load_run r
                       JOIN load_run_event e ON e.run_id = r.run_id AND e.event = 'invoked'
                      WHERE r.status = 'RUNNING'
                        AND r.run_id >= h.load_id
                        AND e.detail IS NOT NULL
                        AND e.detail::jsonb ->> 'loadId' = h.load_id::text)
     AND NOT (EXISTS (SELECT 1
                   FROM load_run_event c
                  WHERE c.event = 'control_held'
                    AND c.run_id >= h.load_id
                    AND c.detail::jsonb ->> 'loadId' = h.load_id::text)
        AND NOT EXISTS (SELECT 1
                          FROM load_run_event a
                         WHERE a.event = 'control_accepted'
                           AND a.run_id >= h.load_id
                           AND a.detail::jsonb ->> 'loadId' = h.load_id::text))
)
SELECT s.stage_id, s.source_key, s.customer_id::text AS customer_id,
       to_char(s.order_date, 'YYYY-MM-DD') AS order_date, s.amount::text AS amount, s.currency,
       s.process_status, s.attempt_count, s.load_id, s.line_no, s.error_code, s.error_message, s.updated_at
  FROM order_stage s
  JOIN abandoned a ON a.load_id = s.load_id
 WHERE s.process_status = 'HELD'
 ORDER BY s.stage_id
   FOR UPDATE OF s SKIP LOCKED;
