-- Release the HELD rows of the loads of a `load`/`stage` once its staging ended (migration 010):
-- READY again, or RETRY_WAIT when the row was waiting (next_attempt_at kept, so the wait holds).
-- Walks the partial index ix_order_stage_held. $1: load_ids. A load held for its control totals
-- (a 'control_held' event names it, no 'control_accepted' does) is not released: only `accept`
-- lets it through; the loads are filtered first, once each, not per row.
UPDATE order_stage
   SET process_status = CASE WHEN next_attempt_at IS NULL THEN 'READY' ELSE 'RETRY_WAIT' END
 WHERE process_status = 'HELD'
   AND load_id = ANY (ARRAY(SELECT l.id
                              FROM unnest($1::bigint[]) AS l(id)
                             WHERE NOT (EXISTS (SELECT 1
                             FROM load_run_event c
                            WHERE c.event = 'control_held'
                              AND c.run_id >= l.id
                              AND c.detail::jsonb ->> 'loadId' = l.id::text)
                  AND NOT EXISTS (SELECT 1
                                    FROM load_run_event a
                                   WHERE a.event = 'control_accepted'
                                     AND a.run_id >= l.id
                                     AND a.detail::jsonb ->> 'loadId' = l.id::text))));
