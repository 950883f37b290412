-- The loads that have HELD rows (ix_order_stage_held): how many, since when the latest was
-- held, the load's file, and whether a RUNNING run stages the load now
-- (sql/postgres/queries/held_loads.sql). Times as UTC text.
SELECT h.load_id,
       h.n,
       TO_CHAR(SYS_EXTRACT_UTC(h.held_since), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS held_since,
       r.file_name,
       CASE WHEN EXISTS (SELECT 1
                           FROM load_run lr
                           JOIN load_run_event e ON e.run_id = lr.run_id AND e.event = 'invoked'
                          WHERE lr.status = 'RUNNING'
                            AND lr.run_id >= h.load_id
                            AND JSON_VALUE(e.detail, '$.loadId') = TO_CHAR(h.load_id))
            THEN 1 ELSE 0 END AS staging,
       CASE WHEN (EXISTS (SELECT 1
                   FROM load_run_event c
                  WHERE c.event = 'control_held'
                    AND c.run_id >= h.load_id
                    AND JSON_VALUE(c.detail, '$.loadId') = TO_CHAR(h.load_id))
        AND NOT EXISTS (SELECT 1
                          FROM load_run_event a
                         WHERE a.event = 'control_accepted'
                           AND a.run_id >= h.load_id
                           AND JSON_VALUE(a.detail, '$.loadId') = TO_CHAR(h.load_id)))
            THEN 1 ELSE 0 END AS control
  FROM (SELECT CASE WHEN process_status = 'HELD' THEN load_id END AS load_id,
               COUNT(*) AS n,
               MAX(updated_at) AS held_since
          FROM order_stage
         WHERE CASE WHEN process_status = 'HELD' THEN load_id END IS NOT NULL
         GROUP BY CASE WHEN process_status = 'HELD' THEN load_id END) h
  LEFT JOIN load_run r ON r.run_id = h.load_id
 ORDER BY h.load_id
