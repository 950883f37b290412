-- A file of a recorded set starts its run: the set holds that file's load from now on
-- (sql/postgres/queries/hold_set_join.sql).
UPDATE load_hold_set
   SET load_id = :load_id
 WHERE set_id = :set_id
   AND file_no = :file_no
