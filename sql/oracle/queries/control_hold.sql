-- `accept`: the latest control hold of a load and whether an `accept` let it through already
-- (sql/postgres/queries/control_hold.sql). No row: the load was never held for its control totals.
SELECT c.detail,
       CASE WHEN EXISTS (SELECT 1
                           FROM load_run_event a
                          WHERE a.event = 'control_accepted'
                            AND a.run_id >= :load_id
                            AND JSON_VALUE(a.detail, '$.loadId') = TO_CHAR(:load_id))
            THEN 1 ELSE 0 END AS accepted
  FROM load_run_event c
 WHERE c.event = 'control_held'
   AND c.run_id >= :load_id
   AND JSON_VALUE(c.detail, '$.loadId') = TO_CHAR(:load_id)
 ORDER BY c.run_id DESC, c.seq DESC
 FETCH FIRST 1 ROWS ONLY
