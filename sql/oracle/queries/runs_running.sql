-- Runs still marked RUNNING, oldest first. Same columns and UTC text as runs_list.sql.
SELECT run_id, command, file_name, TO_CHAR(file_size) AS file_size, file_sha256, host, pid, status,
       TO_CHAR(SYS_EXTRACT_UTC(started_at), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS started_at,
       TO_CHAR(SYS_EXTRACT_UTC(finished_at), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS finished_at,
       counts, message
  FROM load_run
 WHERE status = 'RUNNING'
 ORDER BY run_id
