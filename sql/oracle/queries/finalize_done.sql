-- The chunk's successes, array-bound (executeMany, one iteration per stage_id): DONE, attempt
-- counted, error fields cleared (transient_failures kept: it restarts when the values change).
-- Index maintenance per row: the claim index's entry removed (ix_order_stage_claimable), nothing
-- else since migration 006 took process_status out of ix_order_stage_load's key (PostgreSQL's
-- measurement of the same change: sql/postgres/queries/finalize_done.sql; none on Oracle here).
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
