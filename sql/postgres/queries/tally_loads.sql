-- The statuses of the rows of some loads (the end tally of each file of a `load`/`stage`). Plan:
-- a bitmap scan of ix_order_stage_load, a BRIN on load_id since migration 009 (the btree
-- (load_id, process_status) made every DONE update one index insertion more), reading every block
-- range whose summary may hold the load. Measured (EXPLAIN (ANALYZE, BUFFERS), PostgreSQL 15,
-- 308k rows, after ANALYZE; bench/RESULTS.md, "The DONE update and the indexes of order_stage"):
-- a load of 5,000 new keys 127 buffers (the btree: 109); a load that restaged 3,000 keys
-- scattered over the whole table reads every range, 6,137 buffers (the btree: 3,222, one or two
-- rows per page); a load holding most of the table is a sequential scan with either index.
-- Ranges staging appended are summarized after it (summarize_stage.sql); a range without a
-- summary is read, never skipped.
SELECT process_status, count(*)::int AS n
  FROM order_stage
 WHERE load_id = ANY ($1::bigint[])
 GROUP BY process_status;
