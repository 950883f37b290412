-- Claim claimable rows after keyset position :after_stage_id, locking them for this chunk's
-- transaction. SKIP LOCKED: rows another worker holds are passed over, never waited for.
-- :load_ids: NULL for any load, or the load ids as ',1,2,' (a list of any length in one
-- bind; it only filters rows that the index walk reaches).
--
-- How many rows: NOT here. The engine executes this cursor with resultSet: true and fetches
-- exactly N rows with getRows(N) (prefetchRows and fetchArraySize = N), then closes it.
-- With SKIP LOCKED Oracle locks a row when it is fetched, so the transaction locks exactly
-- the rows it returns. The alternatives are wrong: FETCH FIRST n ROWS ONLY with FOR UPDATE
-- raises ORA-02014, and ROWNUM <= n is applied before the locked rows are skipped, so it
-- returns fewer than n whenever another worker holds some of the first n.
--
-- order_date: 'YYYY' prints a year BC without its sign (Oracle's format models: only 'SYYYY'
-- signs it), so a date BC that an operator set by SQL would read as the same day AD and be
-- merged as one; ' BC' is appended (as PostgreSQL's claim.sql does), which validateOrder refuses.
--
-- plain: 1 when the row's values plainly pass the business rules (validateOrder accepts every
-- such row; the rule of PostgreSQL's order_loader_process_chunk, migration 012): the chunk
-- processed in the database (process_rows.sql) merges those without the client judging them; the
-- others go to validateOrder. NULLs make it 0. REGEXP_LIKE with 'c': case-sensitive, whatever
-- NLS_SORT says (the session sets BINARY anyway).
--
-- The CASE expression is the key of the function-based index ix_order_stage_claimable
-- (migrations/001_schema.sql), written identically so that the optimizer uses it: an index
-- range scan from :after_stage_id, in stage_id order, over claimable rows only.
-- The hint pins that plan: the statement has no row limit (it cannot, see above), so the
-- optimizer (ALL_ROWS) costs it as if every claimable row were fetched and, right after a big
-- staging, prefers a full scan plus SORT ORDER BY of all claimable rows, on every claim: the
-- quadratic claim (the PostgreSQL engine pins its plan for the same reason, migration 003). The
-- ordered index range scan needs no sort, so the cursor stops after the N rows fetched.
SELECT /*+ INDEX_ASC(order_stage ix_order_stage_claimable) */
       stage_id,
       source_key,
       TO_CHAR(customer_id) AS customer_id,
       TO_CHAR(order_date, 'YYYY-MM-DD') || CASE WHEN order_date < DATE '0001-01-01' THEN ' BC' END AS order_date,
       TO_CHAR(amount, 'FM99999999999999990D00', 'NLS_NUMERIC_CHARACTERS=''.,''') AS amount,
       currency,
       attempt_count,
       transient_failures,
       load_id,
       line_no,
       CASE WHEN customer_id > 0
             AND order_date >= DATE '1900-01-01' AND order_date <= DATE '9999-12-31'
             AND amount >= 0 AND amount < 1E16
             AND REGEXP_LIKE(currency, '^[A-Z]{3}$', 'c')
            THEN 1 ELSE 0 END AS plain
  FROM order_stage
 WHERE CASE WHEN process_status IN ('READY', 'RETRY_WAIT') THEN stage_id END > :after_stage_id
   AND (process_status = 'READY' OR next_attempt_at <= SYSTIMESTAMP)
   AND (:load_ids IS NULL OR INSTR(:load_ids, ',' || TO_CHAR(load_id) || ',') > 0)
 ORDER BY CASE WHEN process_status IN ('READY', 'RETRY_WAIT') THEN stage_id END
   FOR UPDATE SKIP LOCKED
