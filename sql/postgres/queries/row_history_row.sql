-- The review page's one row: the stage row (any status) with its latest error-log entry, the
-- columns of error_rows.sql. $1 stage_id.
SELECT s.stage_id, s.source_key, s.customer_id::text AS customer_id,
       to_char(s.order_date, 'YYYY-MM-DD') AS order_date, s.amount::text AS amount, s.currency,
       s.process_status, s.attempt_count, s.load_id, s.line_no, s.error_code, s.error_message,
       s.updated_at, s.attributes::text AS attributes, e.phase, e.raw_record, e.logged_at,
       e.load_id AS error_load_id
  FROM order_stage s
  LEFT JOIN LATERAL (
        SELECT b.phase, b.raw_record, b.logged_at, b.load_id
          FROM order_bulk_error b
         WHERE b.stage_id = s.stage_id
         ORDER BY b.error_id DESC
         LIMIT 1) e ON true
 WHERE s.stage_id = $1;
