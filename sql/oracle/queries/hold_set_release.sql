-- This load's HELD rows were released or given up: no set holds it any more
-- (sql/postgres/queries/hold_set_release.sql). Run once per load.
UPDATE load_hold_set
   SET load_id = NULL
 WHERE load_id = :load_id
