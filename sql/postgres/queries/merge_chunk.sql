-- MERGE the chunk's valid rows into orders, isolating rows the database refuses.
-- $1: stage_ids (locked by this transaction's claim), $2: isolation block size.
-- See migrations/002_merge_functions.sql for the function and why it is shaped this way.
SELECT failed_stage_id, failed_sqlstate, failed_message
  FROM order_loader_merge_chunk($1::bigint[], $2::integer);
