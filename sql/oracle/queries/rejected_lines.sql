-- Lines rejected before they had a stage row (stage_id NULL), in error_id order, at most
-- :row_limit rows past :after_error_id (one page of a keyset walk, as error_rows.sql;
-- sql/postgres/queries/rejected_lines.sql). The load and error-code lists are slot binds as in
-- error_rows.sql. ix_order_bulk_error_stage (stage_id, error_id) holds the rows with a NULL
-- stage_id too (error_id is never NULL), in error_id order.
-- A line whose own key was made DONE by a later load is fixed and left out (the error log keeps
-- it); a key DONE from an earlier or the same load does not fix it (as in
-- sql/postgres/queries/rejected_lines.sql). Plan: the NOT EXISTS is one probe of
-- uq_order_stage_source per row the keyset range yields, none for a row without a key.
-- A line read again by a later load of the same file bytes (load_run.file_sha256; a file without
-- byte offsets, or a --restage, is staged again from line 1 as a new load) is shown as that load
-- read it: the earlier rejection is left out once a run of a later load (the loadId of its
-- event's detail, else its run_id, above b.load_id: a run resuming this line's own load, or
-- skipping the file, did not read it again) committed 'staged' (complete) or a
-- 'staged_checkpoint' whose detail's line is >= b.line_no, as in
-- sql/postgres/queries/rejected_lines.sql. A later load killed before it reached the line does
-- not hide it. Plan: one probe of pk_load_run for the line's load, a range of ix_load_run_sha
-- (file_sha256, run_id > b.load_id) for the later runs of the same bytes, and per such run the
-- range of pk_load_run_event (run_id, seq) for its last staging event (MAX(seq) reads the run's
-- events, one per batch, as staging_history.sql does) and one probe for that event's detail.
SELECT b.error_id,
       b.load_id,
       b.line_no,
       b.phase,
       b.error_code,
       b.error_message,
       b.raw_record,
       TO_CHAR(SYS_EXTRACT_UTC(b.logged_at), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS logged_at
  FROM order_bulk_error b
 WHERE b.stage_id IS NULL
   AND b.error_id > :after_error_id
   AND (:by_load_id = 0
        OR b.load_id IN (:load_id1, :load_id2, :load_id3, :load_id4, :load_id5,
                         :load_id6, :load_id7, :load_id8, :load_id9, :load_id10,
                         :load_id11, :load_id12, :load_id13, :load_id14, :load_id15,
                         :load_id16, :load_id17, :load_id18, :load_id19, :load_id20))
   AND (:by_error_code = 0
        OR b.error_code IN (:error_code1, :error_code2, :error_code3, :error_code4, :error_code5,
                            :error_code6, :error_code7, :error_code8, :error_code9, :error_code10,
                            :error_code11, :error_code12, :error_code13, :error_code14, :error_code15,
                            :error_code16, :error_code17, :error_code18, :error_code19, :error_code20))
   AND NOT EXISTS (SELECT 1
                     FROM order_stage s
                    WHERE s.source_key = b.source_key
                      AND s.process_status = 'DONE'
                      AND s.load_id > b.load_id)
   AND NOT EXISTS (SELECT 1
                     FROM load_run l
                     JOIN load_run r ON r.file_sha256 = l.file_sha256 AND r.run_id > l.run_id
                     JOIN load_run_event e ON e.run_id = r.run_id
                    WHERE l.run_id = b.load_id
                      AND r.command IN ('load', 'stage')
                      AND e.seq = (SELECT MAX(se.seq)
                                     FROM load_run_event se
                                    WHERE se.run_id = r.run_id
                                      AND se.event IN ('staged', 'staged_checkpoint'))
                      AND NVL(JSON_VALUE(e.detail, '$.loadId' RETURNING NUMBER), r.run_id) > b.load_id
                      AND (e.event = 'staged'
                           OR JSON_VALUE(e.detail, '$.line' RETURNING NUMBER) >= b.line_no))
 ORDER BY b.error_id
 FETCH FIRST :row_limit ROWS ONLY
