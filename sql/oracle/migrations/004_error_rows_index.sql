-- The index of the ERROR rows: Oracle's counterpart of PostgreSQL's partial index
-- ix_order_stage_error (sql/postgres/migrations/005_attempts_and_retry.sql), for `retry`
-- (queries/find_error_rows.sql, lock_error_rows.sql) and the `errors` export
-- (queries/error_rows.sql). Without it each of their pages read order_stage from the start of
-- the keyset (stage_id > :after_stage_id), DONE rows and all, and a page filtered by load
-- sorted every remaining ERROR row of the load to keep the first ones.
--
-- Oracle has no partial index; a B-tree index holds no entry whose key is entirely NULL, so
-- this function-based index holds the ERROR rows only, keyed by stage_id (as
-- ix_order_stage_claimable holds the claimable ones, 001_schema.sql). The queries filter and
-- order by the very same expression, so that the optimizer can use it, and hint it.
-- Staging and processing rows that end DONE never touch it.
--
-- Format and re-run as in 001_schema.sql (a re-run tolerates ORA-00955, name already used).
CREATE INDEX ix_order_stage_error ON order_stage (
  CASE WHEN process_status = 'ERROR' THEN stage_id END
)
