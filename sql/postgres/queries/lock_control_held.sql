-- `accept`: the HELD rows of one load held for its control totals, locked for the audited
-- release (the columns of lock_abandoned_holds.sql). $1: load_id.
SELECT s.stage_id, s.source_key, s.customer_id::text AS customer_id,
       to_char(s.order_date, 'YYYY-MM-DD') AS order_date, s.amount::text AS amount, s.currency,
       s.process_status, s.attempt_count, s.load_id, s.line_no, s.error_code, s.error_message, s.updated_at
  FROM order_stage s
 WHERE s.process_status = 'HELD'
   AND s.load_id = $1::bigint
 ORDER BY s.stage_id
   FOR UPDATE OF s;
