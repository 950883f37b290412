-- Release the HELD rows of one load of a `load`/`stage` once its staging ended: READY, or RETRY_WAIT when the row
-- was waiting (next_attempt_at kept). The CASE expression is the key of ix_order_stage_held
-- (migration 007), written identically so that the optimizer uses it.
UPDATE order_stage
   SET process_status = CASE WHEN next_attempt_at IS NULL THEN 'READY' ELSE 'RETRY_WAIT' END
 WHERE CASE WHEN process_status = 'HELD' THEN load_id END = :load_id
