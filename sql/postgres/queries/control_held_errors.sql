-- `retry`: the ERROR rows a selector chooses (lock_error_rows.sql's $1..$4, no window) that belong
-- to loads held for their control totals or held by an unfinished hold set (load_hold_set),
-- counted by load: the rows lock_error_rows.sql leaves out, which `retry` names with what lets
-- them through (`accept`; the set's rerun or `recover --older-than`). Counted by load first,
-- then the loads' holds read once each, not per row. control, by_set: which holds apply.
SELECT g.load_id, g.n, h.control, h.by_set
  FROM (SELECT load_id, count(*)::int AS n
          FROM order_stage
         WHERE process_status = 'ERROR'
           AND load_id IS NOT NULL
           AND ($1::bigint[] IS NULL OR stage_id = ANY ($1::bigint[]))
           AND ($2::text[]   IS NULL OR source_key = ANY ($2::text[]))
           AND ($3::text[]   IS NULL OR error_code = ANY ($3::text[]))
           AND ($4::bigint[] IS NULL OR load_id = ANY ($4::bigint[]))
         GROUP BY load_id) g
  CROSS JOIN LATERAL (
        SELECT (EXISTS (SELECT 1
                          FROM load_run_event c
                         WHERE c.event = 'control_held'
                           AND c.run_id >= g.load_id
                           AND c.detail::jsonb ->> 'loadId' = g.load_id::text)
                AND NOT EXISTS (SELECT 1
                                  FROM load_run_event a
                                 WHERE a.event = 'control_accepted'
                                   AND a.run_id >= g.load_id
                                   AND a.detail::jsonb ->> 'loadId' = g.load_id::text)) AS control,
               EXISTS (SELECT 1 FROM load_hold_set s WHERE s.load_id = g.load_id) AS by_set) h
 WHERE h.control OR h.by_set
 ORDER BY g.load_id;
