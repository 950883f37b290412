-- Undo the per-key updates of stage_batch_update.sql back to stage_batch_savepoint.sql (the
-- batch's rows in order_stage_batch and the transaction's snapshot are kept), after the
-- database refused some of them (src/engine/oracle/staging.ts).
ROLLBACK TO SAVEPOINT stage_batch_update
