-- The oldest row still waiting to be loaded (READY, RETRY_WAIT after a transient failure, or
-- HELD until the staging of its run's files ends: a hold no run ends waits for ever unless it is
-- seen): waiting since the run that last staged it started (its load_id; a row restaged with new
-- values moves to the new load), else since it was first staged. For the metrics file's age of
-- the oldest waiting row (src/cli/metrics-file.ts).
SELECT min(coalesce(r.started_at, s.staged_at)) AS waiting_since
  FROM order_stage s
  LEFT JOIN load_run r ON r.run_id = s.load_id
 WHERE s.process_status IN ('READY', 'RETRY_WAIT', 'HELD');
