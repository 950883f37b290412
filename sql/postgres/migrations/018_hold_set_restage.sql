-- A set a run of only part of it staged into (src/pipeline/load-holds.ts): restage is true once
-- such a run staged a file of the set that the set's own run had not begun. Its lines then sit
-- in order_stage before the lines of the set's earlier files that are staged later, so the run
-- that completes the set stages each of its files again, in the set's order, instead of
-- skipping or resuming them. Existing sets: false (the default writes no row on PostgreSQL 11+).
ALTER TABLE load_hold_set ADD COLUMN IF NOT EXISTS restage boolean NOT NULL DEFAULT false;
