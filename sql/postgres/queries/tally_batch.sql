-- The rows a chunk committed, by its batch_id (read only when a chunk is retried after a lost
-- connection: did its COMMIT go through?). No index on batch_id: a scan, on that rare path only.
SELECT process_status, count(*) AS n, max(stage_id) AS last_stage_id
  FROM order_stage
 WHERE batch_id = $1
 GROUP BY process_status;
