-- ix_order_stage_load on load_id alone: a status change no longer writes this index
-- (PostgreSQL's counterpart is sql/postgres/migrations/009_status_free_load_index.sql).
--
-- Why: (load_id, process_status) of 001_schema.sql had the status in its key, so the DONE update
-- of every processed row (queries/finalize_done.sql, the top statement of a load) deleted and
-- inserted one entry of it, beside the claim index's delete (ix_order_stage_claimable, which the
-- claim needs). Oracle updates a row in place and maintains only the indexes whose key columns
-- change: with load_id alone, READY -> DONE writes ix_order_stage_claimable and nothing else
-- (ix_order_stage_error and ix_order_stage_held hold no READY nor DONE row). Not measured here
-- (no Oracle server): one index maintenance less per row, as PostgreSQL's BRIN saves one.
-- What the index still serves: tally_loads.sql (the statuses of a load: a range scan on load_id
-- and the row's status from the table). status_counts.sql reads the whole table either way.
--
-- Re-run after an interruption: the DROP of an index already dropped (ORA-01418) is accepted
-- as applied (migrations.ts), and the CREATE of one already there (ORA-00955) when it is this
-- index (on load_id alone). Plain statements, no EXECUTE IMMEDIATE: a bench workspace replays
-- them with its own object names (workspace-sql.ts), which it cannot do inside a literal.
DROP INDEX ix_order_stage_load
/
CREATE INDEX ix_order_stage_load ON order_stage (load_id)
