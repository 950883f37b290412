-- A file of a recorded set starts its run: the set holds that file's load from now on
-- (migration 017), before the run holds any of its rows. $1: set_id; $2: file_no; $3: load_id.
UPDATE load_hold_set
   SET load_id = $3::bigint
 WHERE set_id = $1::bigint
   AND file_no = $2::int;
