SELECT process_status, count(*)::int AS n
  FROM order_stage
 WHERE load_id = ANY ($1::bigint[])
 GROUP BY process_status;
