-- Append error-log rows (parse rejections), column arrays. A row staged as ERROR for this
-- line has no stage_id in the client yet: it is looked up by source_key. The rows get their
-- error_id in the order given (ORDER BY the array position: a join may reorder them), so that
-- the `errors` export lists a file's rejected lines in line order. $11 says whether to look the
-- stage row up: false for a line rejected by the reader, whose key is logged for the export only
-- (src/input/rejected-key.ts) and whose key's stage row, if any, is another line's.
INSERT INTO order_bulk_error
       (stage_id, source_key, load_id, line_no, batch_id, attempt_no, phase, error_code,
        error_message, raw_record)
SELECT coalesce(t.stage_id, s.stage_id), t.source_key, t.load_id, t.line_no, t.batch_id,
       t.attempt_no, t.phase, t.error_code, left(t.error_message, 1000), t.raw_record
  FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::text[], $6::integer[],
              $7::text[], $8::text[], $9::text[], $10::text[], $11::boolean[]) WITH ORDINALITY
    AS t(stage_id, source_key, load_id, line_no, batch_id, attempt_no, phase, error_code,
         error_message, raw_record, lookup, ord)
  LEFT JOIN order_stage s ON t.stage_id IS NULL AND t.lookup AND s.source_key = t.source_key
 ORDER BY t.ord;
