-- The `errors` export walks the ERROR rows a page at a time in stage_id order, each page
-- starting after the last stage_id of the page before (queries/error_rows.sql). Through the
-- primary key every page would read past the DONE rows between two ERROR rows, and through
-- ix_order_stage_load a page filtered by load would sort all of the load's remaining ERROR rows
-- to keep the first ones: with millions of ERROR rows, work growing with the square of their
-- number. This index holds the ERROR rows only, in stage_id order: each page is one short range.
-- It changes only when a row enters or leaves ERROR, which the status index already costs.
CREATE INDEX IF NOT EXISTS ix_order_stage_error ON order_stage (stage_id) WHERE process_status = 'ERROR';
