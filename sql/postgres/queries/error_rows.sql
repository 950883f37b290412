-- ERROR rows with their latest error-log entry (the `errors` export), one page of a keyset walk:
-- $1 load_ids or NULL, $2 error codes or NULL, $3 page size, $4 the last stage_id of the previous
-- page (0 at first). A page starts where the last one ended (an index range on the primary key),
-- so exporting any number of rows costs one page of memory and no OFFSET rescans. attributes
-- (migration 011) as JSON text: the same on node-postgres and PGlite, parsed by the export.
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
   AND s.stage_id > $4
   AND ($1::bigint[] IS NULL OR s.load_id = ANY ($1::bigint[]))
   AND ($2::text[]   IS NULL OR s.error_code = ANY ($2::text[]))
 ORDER BY s.stage_id
 LIMIT $3;
