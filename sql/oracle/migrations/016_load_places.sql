-- load_place: where a load stands in load order when that is not at its own id. Oracle's
-- counterpart of PostgreSQL's table of the same name (sql/postgres/migrations/021_load_places.sql,
-- which says why it exists: a file set staged again counts as begun where the set began, its files
-- in the set's order, and every later run must know it, not only the run that staged the set again;
-- test/survival/resumed-after-restaged-set.test.ts shows the sequence on PostgreSQL).
--
-- One row per load that does not stand at its own id (a set's file staged again, the loads it
-- supersedes, a part's load at itself), written before the load stages a line
-- (queries/load_place_record.sql, a MERGE that inserts only an absent load); a row never changes
-- and is never deleted. Read by load id from a load on (queries/load_places.sql): the primary key
-- is the only index. Few rows: only the loads of sets staged again.
--
-- Format and re-run as in 001_schema.sql (a re-run tolerates ORA-00955, name already used).
CREATE TABLE load_place (
  load_id  NUMBER(19) NOT NULL,
  began_at NUMBER(19) NOT NULL,
  place    NUMBER(10) NOT NULL,
  CONSTRAINT pk_load_place PRIMARY KEY (load_id),
  CONSTRAINT ck_load_place_began CHECK (began_at <= load_id AND place >= 0)
)
