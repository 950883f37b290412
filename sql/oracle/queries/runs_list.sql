-- Timestamps as UTC ISO-8601 text: no session time zone or NLS setting is involved.
SELECT run_id, command, file_name, TO_CHAR(file_size) AS file_size, file_sha256, host, pid, status,
       TO_CHAR(SYS_EXTRACT_UTC(started_at), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS started_at,
       TO_CHAR(SYS_EXTRACT_UTC(finished_at), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS finished_at,
       counts, message
  FROM load_run
 ORDER BY run_id DESC
 FETCH FIRST :row_limit ROWS ONLY
