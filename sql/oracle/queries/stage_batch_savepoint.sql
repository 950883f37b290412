-- Taken after the staging batch is in order_stage_batch and counted (stage_batch_counts.sql),
-- before the per-key updates of stage_batch_update.sql: when the database refuses some keys'
-- updates, the engine rolls back to here (stage_batch_rollback.sql), takes those keys out of
-- the batch (stage_batch_drop_key.sql), counts again and updates again, so that the counts
-- describe exactly what was written. One round trip per batch.
SAVEPOINT stage_batch_update
