-- `accept`: the latest control hold of a load (its 'control_held' event: what the file stated and
-- what was read) and whether an `accept` let it through already. $1: load_id. No row: the load
-- was never held for its control totals.
SELECT c.detail,
       EXISTS (SELECT 1
                 FROM load_run_event a
                WHERE a.event = 'control_accepted'
                  AND a.run_id >= $1::bigint
                  AND a.detail::jsonb ->> 'loadId' = $1::bigint::text) AS accepted
  FROM load_run_event c
 WHERE c.event = 'control_held'
   AND c.run_id >= $1::bigint
   AND c.detail::jsonb ->> 'loadId' = $1::bigint::text
 ORDER BY c.run_id DESC, c.seq DESC
 LIMIT 1;
