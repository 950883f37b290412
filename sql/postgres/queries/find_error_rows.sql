-- The rows lock_error_rows.sql would lock (same selector $1..$4 and keyset window $5, $6),
-- read without locking: `retry --dry-run` plans the same changes and makes a live chunk or
-- another operator wait for nothing.
-- A row of a load held for its control totals (a 'control_held' event names it, no
-- 'control_accepted' does: release_held.sql) is neither chosen nor locked: nothing of such a file
-- is merged until `accept`, its ERROR rows included; control_held_errors.sql counts what it left.
-- A row of a load an unfinished hold set holds (load_hold_set names the load: migration 017; a
-- killed run's set, until a run stages its files whole or `recover --older-than` gives it up:
-- hold_set_release.sql) is neither chosen nor locked either: a file of the set not staged yet may
-- repeat its key, and an earlier line never wins over a later one.
-- The control-hold question: per row, an index probe on ix_load_run_event_control (migration
-- 019; lock_error_rows.sql says what it cost without it).
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
 LIMIT $6::integer;
