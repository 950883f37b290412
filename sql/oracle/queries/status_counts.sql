SELECT load_id, process_status, COUNT(*) AS n
  FROM order_stage
 GROUP BY load_id, process_status
 ORDER BY load_id NULLS FIRST, process_status
