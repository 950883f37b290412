SELECT stage_id, source_key, staged_at
  FROM order_stage
 WHERE process_status = 'READY'
 ORDER BY stage_id
 LIMIT 1;
