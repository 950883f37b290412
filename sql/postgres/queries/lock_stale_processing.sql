-- PROCESSING rows older than $1 that no live transaction holds: SKIP LOCKED passes over any
-- row a running worker has locked, so only abandoned rows come back.
SELECT stage_id, source_key, customer_id::text AS customer_id,
       to_char(order_date, 'YYYY-MM-DD') AS order_date, amount::text AS amount, currency,
       process_status, attempt_count, load_id, line_no, error_code, error_message, updated_at
  FROM order_stage
 WHERE process_status = 'PROCESSING'
   AND updated_at < $1::timestamptz
 ORDER BY stage_id
   FOR UPDATE SKIP LOCKED;
