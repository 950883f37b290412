-- Before a later staging call in the same transaction (the earlier lines of keys whose later line
-- the database refused, src/pipeline/stage-batch.ts): the session's order_stage_batch still holds
-- the earlier call's lines until the commit, which the new call's counts and keys must not see.
DELETE FROM order_stage_batch
