-- The first statement of a staging batch's transaction: every later statement of it (the
-- counts of stage_batch_counts.sql, the update of stage_batch_update.sql, the inserts of
-- stage_batch_new.sql) reads the same snapshot, taken when the transaction began, so the
-- counts describe exactly what the writes did. A row another session changed and committed
-- since then raises ORA-08177 (transient: the batch rolls back and is staged again); a key it
-- inserted meanwhile raises ORA-00001 (transient, likewise). The session's global temporary
-- table order_stage_batch is empty here: ON COMMIT DELETE ROWS emptied it at the last commit
-- or rollback.
SET TRANSACTION ISOLATION LEVEL SERIALIZABLE
