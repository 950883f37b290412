-- Lines rejected before they had a stage row (no usable source_key, wrong field count, bytes
-- that are not text): their error-log rows, stage_id NULL. One page of a keyset walk as in
-- error_rows.sql: $1 load_ids or NULL, $2 error codes or NULL, $3 page size, $4 the last
-- error_id of the previous page (0 at first). ix_order_bulk_error_stage (stage_id, error_id)
-- serves `stage_id IS NULL AND error_id > $4` in error_id order.
SELECT b.error_id, b.load_id, b.line_no, b.phase, b.error_code, b.error_message, b.raw_record,
       b.logged_at
  FROM order_bulk_error b
 WHERE b.stage_id IS NULL
   AND b.error_id > $4
   AND ($1::bigint[] IS NULL OR b.load_id = ANY ($1::bigint[]))
   AND ($2::text[]   IS NULL OR b.error_code = ANY ($2::text[]))
 ORDER BY b.error_id
 LIMIT $3;
