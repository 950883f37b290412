SELECT stage_id, source_key,
       TO_CHAR(SYS_EXTRACT_UTC(staged_at), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS staged_at
  FROM order_stage
 WHERE process_status = 'READY'
 ORDER BY stage_id
 FETCH FIRST 1 ROW ONLY
