-- `accept`: the HELD rows of one load held for its control totals, locked for the audited
-- release (sql/postgres/queries/lock_control_held.sql; the columns of lock_abandoned_holds.sql).
-- The CASE expression is the key of ix_order_stage_held. Every row of the cursor is fetched.
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
 WHERE CASE WHEN s.process_status = 'HELD' THEN s.load_id END = :load_id
 ORDER BY s.stage_id
   FOR UPDATE
