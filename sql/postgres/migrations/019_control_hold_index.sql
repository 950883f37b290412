-- The journal's control holds, found by load. Whether a load is held for its control totals
-- (a 'control_held' event names it in its detail, no 'control_accepted' does) is asked per ERROR
-- row by lock_error_rows.sql / find_error_rows.sql, and per load by control_held_errors.sql,
-- release_held.sql, held_loads.sql, lock_abandoned_holds.sql and control_hold.sql, always as
-- event = '<one of them>' AND run_id >= <load> AND detail::jsonb ->> 'loadId' = <load>::text.
-- Without an index each question read the events of every run since the load (the primary key's
-- run_id range) or the whole journal: with 200,000 events, `retry --all-errors` of 200,000
-- ERROR rows took 8 min 40 s, its first batch's lock_error_rows 4.9 s (bench/RESULTS.md, run 35).
-- Partial: only these two events, a few per held load, are in it; the key is the expression the
-- queries compare, written identically so that the planner matches it, then run_id for the range.
CREATE INDEX IF NOT EXISTS ix_load_run_event_control
    ON load_run_event ((detail::jsonb ->> 'loadId'), run_id)
 WHERE event IN ('control_held', 'control_accepted');
