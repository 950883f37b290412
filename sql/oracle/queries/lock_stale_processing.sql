-- PROCESSING rows last updated before :older_than that no live transaction holds
-- (sql/postgres/queries/lock_stale_processing.sql): SKIP LOCKED passes over any row a running
-- worker has locked, so only abandoned rows come back, locked by this transaction.
-- :older_than is UTC text 'YYYY-MM-DDTHH24:MI:SS.FF3', converted explicitly.
--
-- No ROWNUM and no FETCH FIRST: ROWNUM is applied before locked rows are skipped (it would
-- count rows this query cannot have), FETCH FIRST with FOR UPDATE is ORA-02014. With SKIP
-- LOCKED Oracle locks a row when it is fetched; the engine fetches every row of the cursor
-- (one execute, no result set, no maxRows), so every row returned is locked.
SELECT stage_id,
       source_key,
       TO_CHAR(customer_id) AS customer_id,
       TO_CHAR(order_date, 'YYYY-MM-DD') AS order_date,
       TO_CHAR(amount, 'FM99999999999999990D00', 'NLS_NUMERIC_CHARACTERS=''.,''') AS amount,
       currency,
       process_status,
       attempt_count,
       load_id,
       line_no,
       error_code,
       error_message,
       TO_CHAR(SYS_EXTRACT_UTC(updated_at), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS updated_at
  FROM order_stage
 WHERE process_status = 'PROCESSING'
   AND updated_at < FROM_TZ(TO_TIMESTAMP(:older_than, 'YYYY-MM-DD"T"HH24:MI:SS.FF3'), '+00:00')
 ORDER BY stage_id
   FOR UPDATE SKIP LOCKED
