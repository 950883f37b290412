-- The file sets of the runs that may hold rows (src/pipeline/load-holds.ts). A `load`/`stage` of
-- several files whose keys repeat across them stages those keys' rows HELD, and a rerun releases
-- them when its staging ends; but only a run that staged the whole set of the run that held them
-- may: `load a.csv` after a killed `load inbox/` of a.csv, b.csv and c.csv must not release a.csv's
-- row of a key whose last line is in c.csv. One row per file of such a run: set_id is the run_id
-- of the run's first file run (a load_run row), file_no its place in the set, file_name its base
-- name (the name a rerun must stage again), and load_id the load the file's run holds rows of
-- (the set holds that load), NULL before the file's run started or once that load was released
-- or given up (`recover`). A set is deleted once the run that made it covered it, or once it
-- holds no load and its run is no longer RUNNING.
CREATE TABLE IF NOT EXISTS load_hold_set (
  set_id    bigint        NOT NULL,
  file_no   integer       NOT NULL,
  file_name varchar(1000) NOT NULL,
  load_id   bigint,
  CONSTRAINT pk_load_hold_set PRIMARY KEY (set_id, file_no)
);

-- The sets that hold one load, without reading the table.
CREATE INDEX IF NOT EXISTS ix_load_hold_set_load ON load_hold_set (load_id) WHERE load_id IS NOT NULL;
