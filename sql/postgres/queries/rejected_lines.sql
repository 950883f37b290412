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
-- A line read again by a later load of the same file bytes (load_run.file_sha256; a file without
-- byte offsets, or a --restage, is staged again from line 1 as a new load) is shown as that load
-- read it: the earlier rejection is left out once a run of a later load (the loadId of its
-- event's detail, else its run_id, above b.load_id: a run resuming this line's own load, or
-- skipping the file, did not read it again) committed 'staged' (complete) or a
-- 'staged_checkpoint' whose detail's line is >= b.line_no. A later load killed before it reached
-- the line does not hide it. Plan: one probe of pk_load_run for the line's load, a range of
-- ix_load_run_sha (file_sha256, run_id > b.load_id) for the later runs of the same bytes, and per
-- such run its last 'staged'/'staged_checkpoint' event through pk_load_run_event (run_id, seq):
-- at most the run's events, one per batch (a backward walk stops at the first; staging_history.sql
-- reads a run's last checkpoint the same way); only that event's detail is parsed.
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
   AND NOT EXISTS (SELECT 1
                     FROM load_run l
                     JOIN load_run r ON r.file_sha256 = l.file_sha256 AND r.run_id > l.run_id
                     CROSS JOIN LATERAL (SELECT e.event, e.detail::jsonb AS detail
                                           FROM load_run_event e
                                          WHERE e.run_id = r.run_id
                                            AND e.event IN ('staged', 'staged_checkpoint')
                                          ORDER BY e.seq DESC
                                          LIMIT 1) se
                    WHERE l.run_id = b.load_id
                      AND r.command IN ('load', 'stage')
                      AND coalesce((se.detail ->> 'loadId')::bigint, r.run_id) > b.load_id
                      AND (se.event = 'staged' OR (se.detail ->> 'line')::bigint >= b.line_no))
 ORDER BY b.error_id
 LIMIT $3;
