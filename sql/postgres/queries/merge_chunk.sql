-- MERGE the chunk's valid rows into orders, isolating rows the database refuses.
-- $1: stage_ids (locked by this transaction's claim), $2: isolation block size, $3: the
-- SQLSTATE classes and codes that are a row's own failure (ROW_LEVEL_SQLSTATES in
-- src/engine/postgres/classify.ts). See migrations/002_merge_functions.sql for the function
-- and why it is shaped this way, and 004_row_lock_isolation.sql for how it treats lock waits.
-- Measured (bench/, 1M rows, 0.1% overflow rows): 950 ms per 2000-row chunk before the
-- function's plan was pinned to index nested loops (Hash Join over all of orders per block),
-- 12-16 ms after; the same file without overflow rows loads at the same speed (ratio 0.99).
SELECT failed_stage_id, failed_sqlstate, failed_message
  FROM order_loader_merge_chunk($1::bigint[], $2::integer, $3::text[]);
