-- Every file of every set that holds this load (ix_load_hold_set_load; run once per load of the
-- run: sql/postgres/queries/hold_sets.sql).
SELECT s.set_id, s.file_no, s.file_name, s.load_id, s.restage
  FROM load_hold_set s
 WHERE s.set_id IN (SELECT h.set_id FROM load_hold_set h WHERE h.load_id = :load_id)
 ORDER BY s.set_id, s.file_no
