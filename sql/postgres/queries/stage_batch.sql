-- Upsert one staging batch into order_stage by source_key (the staging rule: the last occurrence
-- of a source_key wins; docs/ARCHITECTURE.md, section 2).
-- $1..$8: the batch as column arrays (one bind per column, not per row); $9: the rows'
-- attributes (JSON text or NULL, migration 011); $10: load_id.
--   new key                      → inserted, READY (ERROR when the line failed parsing)
--   values changed, or re-parsed → updated, READY again; transient_failures back to 0 (the
--                                  transient failures of the earlier values do not count against
--                                  --max-attempts); attempt_count kept (every attempt, never reset)
--   values identical             → untouched; when the row is not DONE, load_id/line_no move to
--                                  this load so that the load's outcome counts it; either way
--                                  order_stage_unchanged records this load for the key
--                                  (migration 020: a resumed earlier load yields it the key)
-- The result row counts the batch by what it found *before* the statement (prior snapshot);
-- a key that an earlier batch of the same load staged counts as repeated_in_load only.
--
-- The statement is order_loader_stage_batch (migrations/003_pinned_plans.sql, redefined by
-- 007_transient_failures.sql to reset transient_failures, by 011_attributes.sql to take the
-- attributes, by 013 and by 020_unchanged_loads.sql), a function so
-- that its plan can be pinned to index nested loops. Measured (bench/, 2 cores, PG 15, 1M rows,
-- no statistics on the fresh stage table): as a plain statement the planner hashed the whole
-- stage table for every 5000-row batch (78 → 310 ms per batch as the table grew, 38 s of
-- database time to stage 1M rows); pinned, ~45 ms per batch whatever the size. Plain INSERT of
-- new keys + UPDATE of known ones instead of ON CONFLICT: 54 → 43 ms per batch (see there).
SELECT inserted, updated, unchanged, unchanged_error, repeated_in_load, written
  FROM order_loader_stage_batch($1::text[], $2::bigint[], $3::date[], $4::numeric[], $5::text[],
                                $6::bigint[], $7::text[], $8::text[], $9::text[], $10::bigint);
