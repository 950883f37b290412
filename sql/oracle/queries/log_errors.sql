-- Append error-log rows (parse rejections), array-bound. A row staged as ERROR for this line
-- has no stage_id in the client yet: it is looked up by source_key (scalar subquery).
-- :lookup_key is the full source_key, or NULL when it is longer than the column (no stage row
-- can have it): :source_key may be cut to 100 characters for the log, and a cut key must
-- never be looked up, or the error would be attached to another row that has that prefix.
-- Nor is a line rejected by the reader looked up: its key is logged for the `errors` export
-- only (src/input/rejected-key.ts), and a stage row of that key is another line's.
-- :raw_record is bound as a VARCHAR2 (all values of the call up to 4000 bytes, the common
-- case) or as a CLOB (a longer line anywhere in the call).
INSERT INTO order_bulk_error
       (stage_id, source_key, load_id, line_no, batch_id, attempt_no, phase, error_code,
        error_message, raw_record)
VALUES (COALESCE(:stage_id, (SELECT s.stage_id FROM order_stage s WHERE s.source_key = :lookup_key)),
        :source_key, :load_id, :line_no, :batch_id, :attempt_no, :phase, :error_code,
        SUBSTR(:error_message, 1, 1000), :raw_record)
