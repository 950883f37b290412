-- The oldest row still waiting to be loaded (READY, RETRY_WAIT after a transient failure, or
-- HELD until the staging of its run's files ends): waiting since the run that last staged it
-- started (its load_id), else since it was first staged. As
-- sql/postgres/queries/status_oldest_waiting.sql.
SELECT TO_CHAR(SYS_EXTRACT_UTC(MIN(COALESCE(r.started_at, s.staged_at))), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS waiting_since
  FROM order_stage s
  LEFT JOIN load_run r ON r.run_id = s.load_id
 WHERE s.process_status IN ('READY', 'RETRY_WAIT', 'HELD')
