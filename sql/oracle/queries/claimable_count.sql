-- Rows claimable now (READY, or RETRY_WAIT that is due): the total shown by progress. The
-- first condition is the key of ix_order_stage_claimable (migrations/001_schema.sql), written
-- as in claim.sql: that index holds claimable rows only, so the count need not scan the
-- DONE and ERROR rows.
SELECT COUNT(*) AS n
  FROM order_stage
 WHERE CASE WHEN process_status IN ('READY', 'RETRY_WAIT') THEN stage_id END IS NOT NULL
   AND (process_status = 'READY' OR next_attempt_at <= SYSTIMESTAMP)
