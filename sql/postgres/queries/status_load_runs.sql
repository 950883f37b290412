-- The file and start of the loads `status` shows (a load's id is the run_id of the run that
-- started it): those of $1 (load ids), and with $2 (not NULL) every run started since then.
SELECT run_id, file_name, started_at
  FROM load_run
 WHERE run_id = ANY ($1::bigint[])
    OR started_at >= $2::timestamptz
 ORDER BY run_id;
