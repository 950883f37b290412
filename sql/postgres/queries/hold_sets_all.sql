-- Every file of every recorded set (migration 017; a small table: only the sets of runs killed
-- or still staging, and of runs that staged part of such a set). A run reads them before it
-- stages: a set it stages whole is completed by it; a set it stages only part of holds every
-- row it stages into that set's loads (src/pipeline/load-holds.ts, foreignHolds).
SELECT s.set_id, s.file_no, s.file_name, s.load_id, s.restage
  FROM load_hold_set s
 ORDER BY s.set_id, s.file_no;
