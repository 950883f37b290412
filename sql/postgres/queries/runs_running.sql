SELECT run_id, command, file_name, file_size, file_sha256, host, pid, status, started_at,
       finished_at, counts, message
  FROM load_run
 WHERE status = 'RUNNING'
 ORDER BY run_id;
