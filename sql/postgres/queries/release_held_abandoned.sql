-- `recover`: release the HELD rows of every load that no running run is staging (its run was
-- killed and the file will not be loaded again, or not soon): READY again, or RETRY_WAIT when
-- the row was waiting. A run stages load L when its 'invoked' event names L (the load's first
-- run, or a run that resumes it). Runs whose process is gone are marked FAILED before this.
WITH held AS (
  SELECT DISTINCT load_id
    FROM order_stage
   WHERE process_status = 'HELD'
     AND load_id IS NOT NULL
),
abandoned AS (
  SELECT h.load_id
    FROM held h
   WHERE NOT EXISTS (SELECT 1
                       FROM load_run r
                       JOIN load_run_event e ON e.run_id = r.run_id AND e.event = 'invoked'
                      WHERE r.status = 'RUNNING'
                        AND r.run_id >= h.load_id
                        AND e.detail IS NOT NULL
                        AND e.detail::jsonb ->> 'loadId' = h.load_id::text)
)
UPDATE order_stage s
   SET process_status = CASE WHEN s.next_attempt_at IS NULL THEN 'READY' ELSE 'RETRY_WAIT' END
  FROM abandoned
 WHERE s.process_status = 'HELD'
   AND s.load_id = abandoned.load_id;
