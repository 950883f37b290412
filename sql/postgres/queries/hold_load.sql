-- A rerun that skips or resumes a file of an interrupted run: the rows of that file's earlier
-- load that processing could take (a `recover` may have released them) are HELD again until the
-- rerun's staging ends, and the holds it keeps are dated now (updated_at, the age `recover
-- --older-than` reads). Walks ix_order_stage_load (migration 009). $1: load_id.
UPDATE order_stage
   SET process_status = 'HELD',
       updated_at     = now()
 WHERE load_id = $1::bigint
   AND process_status IN ('READY', 'RETRY_WAIT', 'HELD');
