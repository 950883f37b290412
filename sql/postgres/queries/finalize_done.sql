-- The chunk's successes, one array bind: DONE, attempt counted, error fields cleared.
-- $1: stage_ids, $2: batch id. The UPDATE is order_loader_finalize_done (migration 003), a
-- function so that its plan stays on the primary key: as a plain statement without statistics
-- it seq-scanned the whole stage table for every chunk up to a few hundred thousand rows
-- (measured 19 ms per 2000-row chunk at 200k rows vs ~12 ms pinned, and growing with the table).
SELECT order_loader_finalize_done($1::bigint[], $2::text);
