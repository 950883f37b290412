-- Lines rejected before they had a stage row (no usable source_key, wrong field count, bytes
-- that are not text): their error-log rows, stage_id NULL. One page of a keyset walk as in
-- error_rows.sql: $1 load_ids or NULL, $2 error codes or NULL, $3 page size, $4 the last
-- error_id of the previous page (0 at first). ix_order_bulk_error_stage (stage_id, error_id)
-- serves `stage_id IS NULL AND error_id > $4` in error_id order.
-- A line whose own key (logged by the reader's rejection, src/input/rejected-key.ts, or by the
-- database's refusal while staging) was made DONE by a later load is fixed: it is left out (the
-- error log keeps it). A key DONE from an earlier or the same load does not fix it: that line's
-- values never reached the stage. Plan: the NOT EXISTS is one probe of uq_order_stage_source per
-- row the keyset range yields (none for a row without a key); a page that skips many fixed rows
-- reads more index entries than $3, still from where the last page ended.
SELECT b.error_id, b.load_id, b.line_no, b.phase, b.error_code, b.error_message, b.raw_record,
       b.logged_at
  FROM order_bulk_error b
 WHERE b.stage_id IS NULL
   AND b.error_id > $4
   AND ($1::bigint[] IS NULL OR b.load_id = ANY ($1::bigint[]))
   AND ($2::text[]   IS NULL OR b.error_code = ANY ($2::text[]))
   AND NOT EXISTS (SELECT 1
                     FROM order_stage s
                    WHERE s.source_key = b.source_key
                      AND s.process_status = 'DONE'
                      AND s.load_id > b.load_id)
 ORDER BY b.error_id
 LIMIT $3;
