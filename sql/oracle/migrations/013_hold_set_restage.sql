-- restage: 1 once a run of only part of the set staged a file its own run had not begun; the run
-- that completes the set then stages each of its files again, in order (PostgreSQL migration
-- 018_hold_set_restage.sql says why). ADD of a column that exists (ORA-01430) is accepted as
-- applied by a re-run (src/engine/oracle/migrations.ts).
ALTER TABLE load_hold_set ADD (restage NUMBER(1) DEFAULT 0 NOT NULL)
