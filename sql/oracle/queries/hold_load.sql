-- A rerun that skips or resumes a file of an interrupted run: the claimable rows of that file's
-- earlier load HELD again, and its holds dated now (sql/postgres/queries/hold_load.sql). Walks
-- ix_order_stage_load (migration 006).
UPDATE order_stage
   SET process_status = 'HELD',
       updated_at = SYSTIMESTAMP
 WHERE load_id = :load_id
   AND process_status IN ('READY', 'RETRY_WAIT', 'HELD')
