-- The loads that have HELD rows (partial index ix_order_stage_held): how many, since when the
-- latest was held (updated_at), the load's file, and whether a RUNNING run stages the load now
-- (its 'invoked' event names it: the load's first run, or a run that resumes or skips it), and
-- whether it is held for its control totals (until `accept`).
SELECT s.load_id,
       count(*)::int AS n,
       max(s.updated_at) AS held_since,
       max(r.file_name) AS file_name,
       EXISTS (SELECT 1
                 FROM load_run lr
                 JOIN load_run_event e ON e.run_id = lr.run_id AND e.event = 'invoked'
                WHERE lr.status = 'RUNNING'
                  AND lr.run_id >= s.load_id
                  AND e.detail IS NOT NULL
                  AND e.detail::jsonb ->> 'loadId' = s.load_id::text) AS staging,
       (EXISTS (SELECT 1
                   FROM load_run_event c
                  WHERE c.event = 'control_held'
                    AND c.run_id >= s.load_id
                    AND c.detail::jsonb ->> 'loadId' = s.load_id::text)
        AND NOT EXISTS (SELECT 1
                          FROM load_run_event a
                         WHERE a.event = 'control_accepted'
                           AND a.run_id >= s.load_id
                           AND a.detail::jsonb ->> 'loadId' = s.load_id::text)) AS control
  FROM order_stage s
  LEFT JOIN load_run r ON r.run_id = s.load_id
 WHERE s.process_status = 'HELD'
   AND s.load_id IS NOT NULL
 GROUP BY s.load_id
 ORDER BY s.load_id;
