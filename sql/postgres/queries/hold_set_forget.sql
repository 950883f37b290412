-- The sets nothing waits on any more (migration 017): a set a run's staging covered (its own, or
-- a killed run's set it staged whole again: $1, NULL: none), and every set that holds no load and
-- whose run is not RUNNING (a set of a run still staging keeps its names for the loads it may
-- hold yet). A set marked restage (migration 018) stays until a run stages it whole, even once
-- `recover` gave its loads up: that run must still stage its files again, in order; holding no
-- load, it holds nothing meanwhile.
DELETE FROM load_hold_set s
 WHERE s.set_id = $1::bigint
    OR (s.set_id IN (SELECT h.set_id FROM load_hold_set h GROUP BY h.set_id HAVING count(h.load_id) = 0 AND NOT bool_or(h.restage))
        AND NOT EXISTS (SELECT 1 FROM load_run r WHERE r.run_id = s.set_id AND r.status = 'RUNNING'));
