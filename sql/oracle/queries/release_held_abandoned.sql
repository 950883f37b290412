-- `recover`: release the HELD rows of every load that no RUNNING run stages (a run stages load
-- L when its 'invoked' event names L): sql/postgres/queries/release_held_abandoned.sql.
UPDATE order_stage s
   SET s.process_status = CASE WHEN s.next_attempt_at IS NULL THEN 'READY' ELSE 'RETRY_WAIT' END
 WHERE CASE WHEN s.process_status = 'HELD' THEN s.load_id END IN (
         SELECT h.load_id
           FROM (SELECT DISTINCT CASE WHEN process_status = 'HELD' THEN load_id END AS load_id
                   FROM order_stage
                  WHERE CASE WHEN process_status = 'HELD' THEN load_id END IS NOT NULL) h
          WHERE NOT EXISTS (SELECT 1
                              FROM load_run r
                              JOIN load_run_event e ON e.run_id = r.run_id AND e.event = 'invoked'
                             WHERE r.status = 'RUNNING'
                               AND r.run_id >= h.load_id
                               AND JSON_VALUE(e.detail, '$.loadId') = TO_CHAR(h.load_id)))
