SELECT count(*) AS n
  FROM order_stage
 WHERE process_status IN ('READY', 'RETRY_WAIT')
   AND (process_status = 'READY' OR next_attempt_at <= now());
