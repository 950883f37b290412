-- Audited manual change (retry with corrections, recover), step 1 of 2: the row's new values
-- and status, error fields and next_attempt_at cleared. Array-bound (executeMany, explicit
-- bindDefs, one iteration per change) in the caller's transaction, which holds the row locked
-- (lock_error_rows.sql / lock_stale_processing.sql). Step 2 is apply_manual_changes_audit.sql.
-- Values arrive as canonical text and are converted with explicit formats, as in
-- stage_batch_insert.sql: no session NLS setting changes their meaning.
-- A RETRY (:action) starts the row's transient_failures again, a RECOVER keeps it; both keep
-- attempt_count, every processing attempt (sql/postgres/queries/apply_manual_changes.sql says
-- why).
UPDATE order_stage
   SET process_status     = :new_status,
       customer_id        = TO_NUMBER(:customer_id, '99999999999999999999999999999999999999',
                                      'NLS_NUMERIC_CHARACTERS=''.,'''),
       order_date         = TO_DATE(:order_date, 'YYYY-MM-DD'),
       amount             = TO_NUMBER(:amount, '99999999999999999999999999D999999999999',
                                      'NLS_NUMERIC_CHARACTERS=''.,'''),
       currency           = :currency,
       error_code         = NULL,
       error_message      = NULL,
       next_attempt_at    = NULL,
       transient_failures = CASE WHEN :action = 'RETRY' THEN 0 ELSE transient_failures END,
       updated_at         = SYSTIMESTAMP
 WHERE stage_id = :stage_id
