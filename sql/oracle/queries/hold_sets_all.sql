-- Every file of every recorded set, read before a run stages (sql/postgres/queries/hold_sets_all.sql).
SELECT s.set_id, s.file_no, s.file_name, s.load_id, s.restage
  FROM load_hold_set s
 ORDER BY s.set_id, s.file_no
