-- Every file of every set that holds one of these loads (migration 017, ix_load_hold_set_load):
-- a run's staging ended, and it releases a load's HELD rows only if it staged each of those
-- sets whole. $1: load_ids.
SELECT s.set_id, s.file_no, s.file_name, s.load_id, s.restage
  FROM load_hold_set s
 WHERE s.set_id IN (SELECT h.set_id FROM load_hold_set h WHERE h.load_id = ANY ($1::bigint[]))
 ORDER BY s.set_id, s.file_no;
