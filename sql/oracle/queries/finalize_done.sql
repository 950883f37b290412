-- The chunk's successes, array-bound (executeMany, one iteration per stage_id): DONE, attempt
-- counted, error fields cleared (transient_failures kept: it restarts when the values change).
UPDATE order_stage
   SET process_status  = 'DONE',
       attempt_count   = attempt_count + 1,
       batch_id        = :batch_id,
       processed_at    = SYSTIMESTAMP,
       updated_at      = SYSTIMESTAMP,
       error_code      = NULL,
       error_message   = NULL,
       next_attempt_at = NULL
 WHERE stage_id = :stage_id
