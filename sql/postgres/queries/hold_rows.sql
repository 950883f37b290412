-- HELD for the claimable rows of these keys that this load staged (migration 010): their key is
-- on more than one line of the run's files, so processing waits for the run's last line of each.
-- Run in the staging batch's transaction, after order_loader_stage_batch: no chunk can claim
-- the rows in between (new rows are not visible, updated ones are locked until COMMIT).
-- updated_at is the time of the hold: `recover --older-than` measures a hold's age by it.
-- $1: source keys; $2: load_id.
UPDATE order_stage
   SET process_status = 'HELD',
       updated_at     = now()
 WHERE source_key = ANY ($1::text[])
   AND load_id = $2::bigint
   AND process_status IN ('READY', 'RETRY_WAIT');
