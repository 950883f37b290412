-- The rows a chunk committed, by its batch_id (read only when a chunk is retried after a lost
-- connection: did its COMMIT go through?). No index on batch_id: a scan, on that rare path only.
SELECT process_status, COUNT(*) AS n, MAX(stage_id) AS last_stage_id
  FROM order_stage
 WHERE batch_id = :batch_id
 GROUP BY process_status
