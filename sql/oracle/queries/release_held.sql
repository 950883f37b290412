-- Release the HELD rows of one load of a `load`/`stage` once its staging ended: READY, or RETRY_WAIT when the row
-- was waiting (next_attempt_at kept). The CASE expression is the key of ix_order_stage_held
-- (migration 007), written identically so that the optimizer uses it. A load held for its
-- control totals is not released (sql/postgres/queries/release_held.sql): only `accept`.
UPDATE order_stage
   SET process_status = CASE WHEN next_attempt_at IS NULL THEN 'READY' ELSE 'RETRY_WAIT' END
 WHERE CASE WHEN process_status = 'HELD' THEN load_id END = :load_id
   AND NOT (EXISTS (SELECT 1
                   FROM load_run_event c
                  WHERE c.event = 'control_held'
                    AND c.run_id >= :load_id
                    AND JSON_VALUE(c.detail, '$.loadId') = TO_CHAR(:load_id))
        AND NOT EXISTS (SELECT 1
                          FROM load_run_event a
                         WHERE a.event = 'control_accepted'
                           AND a.run_id >= :load_id
                           AND JSON_VALUE(a.detail, '$.loadId') = TO_CHAR(:load_id)))
