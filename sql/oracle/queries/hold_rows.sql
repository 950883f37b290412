-- HELD for the claimable row of one key that this load staged (migration 007; the PostgreSQL
-- twin is sql/postgres/queries/hold_rows.sql): its key is on more than one line of the run's
-- files. updated_at is the time of the hold (`recover --older-than` reads it).
-- executeMany, one iteration per key, in the staging batch's transaction after it.
UPDATE order_stage
   SET process_status = 'HELD',
       updated_at = SYSTIMESTAMP
 WHERE source_key = :source_key
   AND load_id = :load_id
   AND process_status IN ('READY', 'RETRY_WAIT')
