-- `recover`: the HELD rows of the loads that no RUNNING run stages and whose latest hold is older
-- than :older_than (sql/postgres/queries/lock_abandoned_holds.sql), locked for the audited
-- release. :older_than is UTC text 'YYYY-MM-DDTHH24:MI:SS.FF3'. No row limit: as
-- lock_stale_processing.sql, every row of the cursor is fetched, so every row returned is locked.
-- A load held for its control totals is never given up here: only `accept` releases it.
SELECT s.stage_id,
       s.source_key,
       TO_CHAR(s.customer_id) AS customer_id,
       TO_CHAR(s.order_date, 'YYYY-MM-DD') AS order_date,
       TO_CHAR(s.amount, 'FM99999999999999990D00', 'NLS_NUMERIC_CHARACTERS=''.,''') AS amount,
       s.currency,
       s.process_status,
       s.attempt_count,
       s.load_id,
       s.line_no,
       s.error_code,
       s.error_message,
       TO_CHAR(SYS_EXTRACT_UTC(s.updated_at), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS updated_at
  FROM order_stage s
 WHERE CASE WHEN s.process_status = 'HELD' THEN s.load_id END IN (
         SELECT CASE WHEN h.process_status = 'HELD' THEN h.load_id END
           FROM order_stage h
          WHERE CASE WHEN h.process_status = 'HELD' THEN h.load_id END IS NOT NULL
          GROUP BY CASE WHEN h.process_status = 'HELD' THEN h.load_id END
         HAVING MAX(h.updated_at) < FROM_TZ(TO_TIMESTAMP(:older_than, 'YYYY-MM-DD"T"HH24:MI:SS.FF3'), '+00:00'))
   AND NOT EXISTS (SELECT 1
                     FROM load_run r
                     JOIN load_run_event e ON e.run_id = r.run_id AND e.event = 'invoked'
                    WHERE r.status = 'RUNNING'
                      AND r.run_id >= s.load_id
                      AND JSON_VALUE(e.detail, '$.loadId') = TO_CHAR(s.load_id))
   AND NOT (EXISTS (SELECT 1
                   FROM load_run_event c
                  WHERE c.event = 'control_held'
                    AND c.run_id >= s.load_id
                    AND JSON_VALUE(c.detail, '$.loadId') = TO_CHAR(s.load_id))
        AND NOT EXISTS (SELECT 1
                          FROM load_run_event a
                         WHERE a.event = 'control_accepted'
                           AND a.run_id >= s.load_id
                           AND JSON_VALUE(a.detail, '$.loadId') = TO_CHAR(s.load_id)))
 ORDER BY s.stage_id
   FOR UPDATE SKIP LOCKED
