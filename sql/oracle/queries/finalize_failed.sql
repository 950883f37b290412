-- The chunk's failures, array-bound: ERROR or RETRY_WAIT with their error. The error-log row
-- of each is written by queries/finalize_failed_log.sql in the same transaction.
-- :next_attempt_at is UTC text 'YYYY-MM-DDTHH24:MI:SS.FF3' (or NULL), converted explicitly.
-- :attempt_no is attempt_count after this attempt (also the error log's attempt_no),
-- :transient_failures the row's transient failures after it (what --max-attempts bounds).
UPDATE order_stage
   SET process_status     = :status,
       attempt_count      = :attempt_no,
       transient_failures = :transient_failures,
       batch_id           = :batch_id,
       processed_at       = SYSTIMESTAMP,
       updated_at         = SYSTIMESTAMP,
       error_code         = :error_code,
       error_message      = SUBSTR(:error_message, 1, 1000),
       next_attempt_at    = FROM_TZ(TO_TIMESTAMP(:next_attempt_at, 'YYYY-MM-DD"T"HH24:MI:SS.FF3'), '+00:00')
 WHERE stage_id = :stage_id
