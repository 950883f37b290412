-- Empty the session's staging-batch table (a global temporary table, ON COMMIT DELETE ROWS)
-- in case an earlier batch of the same transaction left rows in it.
DELETE FROM order_stage_batch
