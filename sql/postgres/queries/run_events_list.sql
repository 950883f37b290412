SELECT run_id, seq, event, detail, at
  FROM load_run_event
 WHERE run_id = ANY ($1::bigint[])
 ORDER BY run_id, seq;
