-- Lock the next batch of the ERROR rows a `retry` chose. Each selector is an array or NULL (not
-- given); they combine with AND. FOR UPDATE (not SKIP LOCKED): an operator's retry waits for a
-- chunk that holds one of these rows rather than silently skipping it.
-- $5, $6: keyset window (stage_id > $5, at most $6 rows): `retry` changes its rows in batches,
-- each its own transaction, so that neither the locks nor the memory grow with the selection.
-- LIMIT is applied above the row locks: a row that stopped matching while this waited for its
-- lock is left out and the next matching row is taken instead. The partial index
-- ix_order_stage_error (migration 005) serves the walk in stage_id order.
-- A row of a load held for its control totals (a 'control_held' event names it, no
-- 'control_accepted' does: release_held.sql) is neither chosen nor locked: nothing of such a file
-- is merged until `accept`, its ERROR rows included; control_held_errors.sql counts what it left.
-- A row of a load an unfinished hold set holds (load_hold_set names the load: migration 017; a
-- killed run's set, until a run stages its files whole or `recover --older-than` gives it up:
-- hold_set_release.sql) is neither chosen nor locked either: a file of the set not staged yet may
-- repeat its key, and an earlier line never wins over a later one.
-- The control-hold question is asked per row, an index probe on ix_load_run_event_control
-- (migration 019: the expression and the event written here as its key and predicate). Measured on the
-- server (bench/RESULTS.md, run 35: 200,000 ERROR rows, a journal of 200,000 events): without it
-- the planner read the journal per row or merge-anti-joined every ERROR row before the LIMIT,
-- 4.9 s for the first batch of 2,000 and 8 min 40 s for `retry --all-errors`; with it the index
-- walk stops at the LIMIT again, 4 ms a batch and 16 s in all.
SELECT stage_id, source_key, customer_id::text AS customer_id,
       to_char(order_date, 'YYYY-MM-DD') AS order_date, amount::text AS amount, currency,
       process_status, attempt_count, load_id, line_no, error_code, error_message, updated_at
  FROM order_stage
 WHERE process_status = 'ERROR'
   AND ($1::bigint[] IS NULL OR stage_id = ANY ($1::bigint[]))
   AND ($2::text[]   IS NULL OR source_key = ANY ($2::text[]))
   AND ($3::text[]   IS NULL OR error_code = ANY ($3::text[]))
   AND ($4::bigint[] IS NULL OR load_id = ANY ($4::bigint[]))
   AND stage_id > $5::bigint
   AND NOT EXISTS (SELECT 1
                     FROM load_run_event c
                    WHERE c.event = 'control_held'
                      AND c.run_id >= order_stage.load_id
                      AND c.detail::jsonb ->> 'loadId' = order_stage.load_id::text
                      AND NOT EXISTS (SELECT 1
                                        FROM load_run_event a
                                       WHERE a.event = 'control_accepted'
                                         AND a.run_id >= order_stage.load_id
                                         AND a.detail::jsonb ->> 'loadId' = order_stage.load_id::text))
   AND NOT EXISTS (SELECT 1 FROM load_hold_set h WHERE h.load_id = order_stage.load_id)
 ORDER BY stage_id
 LIMIT $6::integer
   FOR UPDATE;
