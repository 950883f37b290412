-- The journal's control holds, found by load: Oracle's counterpart of PostgreSQL's
-- ix_load_run_event_control (sql/postgres/migrations/019_control_hold_index.sql, which says what
-- it cost without it). The queries that ask whether a load is held for its control totals
-- (lock_error_rows.sql, find_error_rows.sql per ERROR row; control_held_errors.sql,
-- release_held.sql, held_loads.sql, lock_abandoned_holds.sql, control_hold.sql per load) all
-- filter c.event = '<event>' AND JSON_VALUE(c.detail, '$.loadId') = TO_CHAR(<load>) AND
-- c.run_id >= <load>: this function-based index has those three keys, the JSON_VALUE written
-- exactly as the queries write it so that the optimizer can match it, and answers each of them
-- by one range scan instead of reading the events of every run since the load.
-- Oracle has no partial index: every event is in it (event is NOT NULL), a JSON_VALUE per
-- event written; the queries stay as they are.
--
-- Format and re-run as in 001_schema.sql (a re-run tolerates ORA-00955, name already used).
CREATE INDEX ix_load_run_event_control ON load_run_event (
  event, JSON_VALUE(detail, '$.loadId'), run_id
)
