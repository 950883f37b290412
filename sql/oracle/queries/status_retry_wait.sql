SELECT COUNT(*) AS n,
       TO_CHAR(SYS_EXTRACT_UTC(MIN(next_attempt_at)), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS next_due_at
  FROM order_stage
 WHERE process_status = 'RETRY_WAIT'
