-- HELD: a staged row that processing must not take yet (PostgreSQL migration 010_held_status.sql
-- says why and when it is released). The claim takes READY and due RETRY_WAIT rows only.
-- The CHECK is dropped and made again with HELD in its list. Oracle DDL commits at once: a run
-- interrupted between the two statements is run again from the first, so the runner takes the
-- DROP's ORA-02443 (constraint already gone) and the ADD's ORA-02264 (checked by name) as
-- applied (ALREADY_APPLIED in src/engine/oracle/migrations.ts). Plain statements, not an EXECUTE
-- IMMEDIATE of a string: a bench workspace renames the loader's tables in a statement's text but
-- never inside a literal, so the string would have dropped the loader's own constraint.
ALTER TABLE order_stage DROP CONSTRAINT ck_order_stage_status
/
ALTER TABLE order_stage ADD CONSTRAINT ck_order_stage_status
  CHECK (process_status IN ('READY', 'PROCESSING', 'DONE', 'ERROR', 'RETRY_WAIT', 'HELD'))
/
-- Only HELD rows, by load (an index does not hold entries whose key is entirely NULL; the
-- statements filter by the very same expression).
CREATE INDEX ix_order_stage_held ON order_stage (
  CASE WHEN process_status = 'HELD' THEN load_id END
)
