-- The chunk's successes, one array bind: DONE, attempt counted, error fields cleared.
UPDATE order_stage
   SET process_status  = 'DONE',
       attempt_count   = attempt_count + 1,
       batch_id        = $2,
       processed_at    = now(),
       updated_at      = now(),
       error_code      = NULL,
       error_message   = NULL,
       next_attempt_at = NULL
 WHERE stage_id = ANY ($1::bigint[]);
