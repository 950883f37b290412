-- The rows lock_error_rows.sql would lock (same selector $1..$4 and keyset window $5, $6),
-- read without locking: `retry --dry-run` plans the same changes and makes a live chunk or
-- another operator wait for nothing.
SELECT stage_id, source_key, customer_id::text AS customer_id,
       to_char(order_date, 'YYYY-MM-DD') AS order_date, amount::text AS amount, currency,
       process_status, attempt_count, load_id, line_no, error_code, error_message, updated_at
  FROM order_stage
 WHERE process_status = 'ERROR'
   AND ($1::bigint[] IS NULL OR stage_id = ANY ($1::bigint[]))
   AND ($2::text[]   IS NULL OR source_key = ANY ($2::text[]))
   AND ($3::text[]   IS NULL OR error_code = ANY ($3::text[]))
   AND ($4::bigint[] IS NULL OR load_id = ANY ($4::bigint[]))
   AND stage_id > $5::bigint
 ORDER BY stage_id
 LIMIT $6::integer;
