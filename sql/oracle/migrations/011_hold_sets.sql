-- The file sets of the runs that may hold rows: see PostgreSQL migration 017_hold_sets.sql for
-- what each column says. A rerun releases a load's HELD rows only once it staged every file of
-- every set that holds the load.
CREATE TABLE load_hold_set (
  set_id    NUMBER(19)          NOT NULL,
  file_no   NUMBER(10)          NOT NULL,
  file_name VARCHAR2(1000 CHAR) NOT NULL,
  load_id   NUMBER(19),
  CONSTRAINT pk_load_hold_set PRIMARY KEY (set_id, file_no)
)
/
-- The sets that hold one load (an index holds no entry whose key is entirely NULL: only the
-- rows that hold a load).
CREATE INDEX ix_load_hold_set_load ON load_hold_set (load_id)
