-- Take one key the database refused to update out of the staging batch (array-bound with
-- connection.executeMany, one iteration per refused key), after the rollback to
-- stage_batch_savepoint.sql: the batch is then counted and updated again without it.
DELETE FROM order_stage_batch WHERE source_key = :source_key
