-- ERROR rows with their latest error-log entry (the `errors` export). $1 load_ids or NULL,
-- $2 error codes or NULL, $3 limit.
SELECT s.stage_id, s.source_key, s.customer_id::text AS customer_id,
       to_char(s.order_date, 'YYYY-MM-DD') AS order_date, s.amount::text AS amount, s.currency,
       s.process_status, s.attempt_count, s.load_id, s.line_no, s.error_code, s.error_message,
       s.updated_at, e.phase, e.raw_record, e.logged_at
  FROM order_stage s
  LEFT JOIN LATERAL (
        SELECT b.phase, b.raw_record, b.logged_at
          FROM order_bulk_error b
         WHERE b.stage_id = s.stage_id
         ORDER BY b.error_id DESC
         LIMIT 1) e ON true
 WHERE s.process_status = 'ERROR'
   AND ($1::bigint[] IS NULL OR s.load_id = ANY ($1::bigint[]))
   AND ($2::text[]   IS NULL OR s.error_code = ANY ($2::text[]))
 ORDER BY s.stage_id
 LIMIT $3;
