-- The sets nothing waits on any more: a set a run's staging covered (its own, or a killed run's
-- set it staged whole again: :set_id, NULL: none), and every set that holds no load, is not
-- marked restage (it waits for the run that stages it whole) and whose run is not RUNNING
-- (sql/postgres/queries/hold_set_forget.sql).
DELETE FROM load_hold_set s
 WHERE s.set_id = :set_id
    OR (s.set_id IN (SELECT h.set_id FROM load_hold_set h GROUP BY h.set_id HAVING COUNT(h.load_id) = 0 AND MAX(h.restage) = 0)
        AND NOT EXISTS (SELECT 1 FROM load_run r WHERE r.run_id = s.set_id AND r.status = 'RUNNING'))
