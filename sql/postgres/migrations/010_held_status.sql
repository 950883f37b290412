-- HELD: a staged row that processing must not take yet. `load` processes while it stages on a
-- server database (docs/ARCHITECTURE.md, section 2); a key written on more than one line of the
-- run's files is staged HELD until the run's staging ends (src/pipeline/load.ts), so that the
-- MERGE never sees an earlier line of the key before its last line is staged. The claim takes
-- READY and due RETRY_WAIT rows only (queries/claim.sql), so a HELD row is skipped as it is.
-- Released (queries/release_held.sql) to READY, or to RETRY_WAIT when the row was waiting
-- (next_attempt_at set), when the staging of the run that held it ends (or of the run that
-- resumes it after a kill), or by `recover` (queries/release_held_abandoned.sql).
-- IF EXISTS / IF NOT EXISTS: a database whose ledger lost this migration can apply it again.
ALTER TABLE order_stage DROP CONSTRAINT IF EXISTS ck_order_stage_status;
ALTER TABLE order_stage ADD CONSTRAINT ck_order_stage_status
  CHECK (process_status IN ('READY', 'PROCESSING', 'DONE', 'ERROR', 'RETRY_WAIT', 'HELD'));

-- The release finds HELD rows by load without reading the table: this index holds
-- only HELD rows (none, outside a load's staging).
CREATE INDEX IF NOT EXISTS ix_order_stage_held ON order_stage (load_id) WHERE process_status = 'HELD';
