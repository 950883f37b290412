-- order_stage_unchanged: per key, the latest load that staged a line of it identical to its
-- stage row of another load (the lines stage_batch_counts.sql counts unchanged). Oracle's
-- counterpart of PostgreSQL's table of the same name (sql/postgres/migrations/020_unchanged_loads.sql,
-- which says why it exists and why it is a table beside order_stage rather than a column of it).
--
-- Load order is the order in which loads begin: a resumed load (or a file of a set staged again)
-- leaves out its lines of the keys a load begun after it staged (src/pipeline/stage-batch.ts,
-- yieldToLaterLoads; queries/later_load_keys.sql reads order_stage.load_id and this table).
-- Staging leaves a DONE row whose values a line repeats untouched, load_id included, so without
-- this record nothing said that a later load had the key. Written by the staging batch
-- (queries/stage_batch_unchanged.sql), in its transaction, for the lines it counts unchanged; a
-- record only moves to a later load, and rows are never deleted (a fact that stays true). No row
-- for keys staged unchanged before this migration (as on PostgreSQL).
--
-- The primary key is the only index: the guard reads one key at a time (one probe), and the
-- record is merged by it. PCTFREE 20 as order_stage: a record moving to a later load stays in
-- its block.
--
-- Format and re-run as in 001_schema.sql (a re-run tolerates ORA-00955, name already used).
CREATE TABLE order_stage_unchanged (
  source_key VARCHAR2(100 CHAR) NOT NULL,
  load_id    NUMBER(19)         NOT NULL,
  CONSTRAINT pk_order_stage_unchanged PRIMARY KEY (source_key)
) PCTFREE 20
