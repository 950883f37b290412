-- Release the HELD rows of the loads of a `load`/`stage` once its staging ended (migration 010):
-- READY again, or RETRY_WAIT when the row was waiting (next_attempt_at kept, so the wait holds).
-- Walks the partial index ix_order_stage_held. $1: load_ids.
UPDATE order_stage
   SET process_status = CASE WHEN next_attempt_at IS NULL THEN 'READY' ELSE 'RETRY_WAIT' END
 WHERE process_status = 'HELD'
   AND load_id = ANY ($1::bigint[]);
