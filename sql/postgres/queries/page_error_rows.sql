-- The review page's rejected rows: ERROR rows with their latest error-log entry, newest first,
-- one page of a keyset walk backwards: $1 load_ids or NULL, $2 error codes or NULL, $3 page
-- size, $4 the last stage_id of the page before (the largest bigint at first), $5 the phase of
-- the latest error or NULL. The partial index ix_order_stage_error (migration 005) is walked
-- backwards from $4: a page costs its own rows (and the rows a filter passes over), never an
-- OFFSET or a count of the million rows before it.
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
 WHERE s.process_status = 'ERROR'
   AND s.stage_id < $4
   AND ($1::bigint[] IS NULL OR s.load_id = ANY ($1::bigint[]))
   AND ($2::text[]   IS NULL OR s.error_code = ANY ($2::text[]))
   AND ($5::text     IS NULL OR e.phase = $5::text)
 ORDER BY s.stage_id DESC
 LIMIT $3;
