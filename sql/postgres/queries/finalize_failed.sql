-- The chunk's failures (few): ERROR or RETRY_WAIT with their error, plus one error-log row
-- each, in one statement. $1..$9 are column arrays; $10 the batch id.
WITH f AS (
  SELECT *
    FROM unnest($1::bigint[], $2::text[], $3::integer[], $4::text[], $5::text[], $6::text[],
                $7::timestamptz[], $8::bigint[], $9::bigint[])
      AS t(stage_id, status, attempt_no, phase, code, message, next_attempt_at, load_id, line_no)
),
upd AS (
  UPDATE order_stage s
     SET process_status  = f.status,
         attempt_count   = f.attempt_no,
         batch_id        = $10,
         processed_at    = now(),
         updated_at      = now(),
         error_code      = f.code,
         error_message   = left(f.message, 1000),
         next_attempt_at = f.next_attempt_at
    FROM f
   WHERE s.stage_id = f.stage_id
  RETURNING s.stage_id, s.source_key
)
INSERT INTO order_bulk_error
       (stage_id, source_key, load_id, line_no, batch_id, attempt_no, phase, error_code, error_message)
SELECT f.stage_id, upd.source_key, f.load_id, f.line_no, $10, f.attempt_no, f.phase, f.code,
       left(f.message, 1000)
  FROM f JOIN upd ON upd.stage_id = f.stage_id;
