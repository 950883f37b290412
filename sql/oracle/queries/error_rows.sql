-- ERROR rows with their latest error-log entry, in stage_id order, at most :row_limit rows
-- past :after_stage_id (one page of the keyset walk of the `errors` export, which starts at 0
-- and goes on from the last stage_id of each page; sql/postgres/queries/error_rows.sql). The
-- load and error-code lists
-- are slot binds as in lock_error_rows.sql: :by_<name> = 0 when not given, else up to 20
-- values in :<name>1..:<name>20 (unused slots NULL); the engine runs longer lists in slices
-- and keeps the first :row_limit rows of their union.
--
-- `picked` chooses the rows first (FETCH FIRST is legal here: this query locks nothing);
-- the latest error is then looked up for those rows only, through ix_order_bulk_error_stage
-- (stage_id, error_id), in `last_error` (not `latest`: some SQL grammars reserve that word).
-- "Latest" is the highest error_id of the stage row: ROW_NUMBER() over
-- (PARTITION BY stage_id ORDER BY error_id DESC) = 1, computed on the index columns only and
-- joined back by error_id, so no CLOB (raw_record) goes through the window sort.
-- Walks ix_order_stage_error (migrations/004_error_rows_index.sql), which holds the ERROR rows
-- only: the CASE expression is that index's key, written identically so that the optimizer
-- can use it, and the hint pins the ordered range scan (without statistics after a big load,
-- or with a FETCH FIRST the optimizer underrates, it may prefer a full scan and a sort).
WITH picked AS (
  SELECT /*+ INDEX_ASC(s ix_order_stage_error) */
         s.stage_id, s.source_key, s.customer_id, s.order_date, s.amount, s.currency,
         s.process_status, s.attempt_count, s.load_id, s.line_no, s.error_code,
         s.error_message, s.updated_at, s.attributes
    FROM order_stage s
   WHERE CASE WHEN s.process_status = 'ERROR' THEN s.stage_id END > :after_stage_id
     AND (:by_load_id = 0
          OR s.load_id IN (:load_id1, :load_id2, :load_id3, :load_id4, :load_id5,
                           :load_id6, :load_id7, :load_id8, :load_id9, :load_id10,
                           :load_id11, :load_id12, :load_id13, :load_id14, :load_id15,
                           :load_id16, :load_id17, :load_id18, :load_id19, :load_id20))
     AND (:by_error_code = 0
          OR s.error_code IN (:error_code1, :error_code2, :error_code3, :error_code4, :error_code5,
                              :error_code6, :error_code7, :error_code8, :error_code9, :error_code10,
                              :error_code11, :error_code12, :error_code13, :error_code14, :error_code15,
                              :error_code16, :error_code17, :error_code18, :error_code19, :error_code20))
   ORDER BY CASE WHEN s.process_status = 'ERROR' THEN s.stage_id END
   FETCH FIRST :row_limit ROWS ONLY
),
last_error AS (
  SELECT b.stage_id, b.error_id,
         ROW_NUMBER() OVER (PARTITION BY b.stage_id ORDER BY b.error_id DESC) AS rn
    FROM order_bulk_error b
   WHERE b.stage_id IN (SELECT p.stage_id FROM picked p)
)
SELECT p.stage_id,
       p.source_key,
       TO_CHAR(p.customer_id) AS customer_id,
       TO_CHAR(p.order_date, 'YYYY-MM-DD') AS order_date,
       TO_CHAR(p.amount, 'FM99999999999999990D00', 'NLS_NUMERIC_CHARACTERS=''.,''') AS amount,
       p.currency,
       p.process_status,
       p.attempt_count,
       p.load_id,
       p.line_no,
       p.error_code,
       p.error_message,
       TO_CHAR(SYS_EXTRACT_UTC(p.updated_at), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS updated_at,
       p.attributes,
       e.phase,
       e.raw_record,
       TO_CHAR(SYS_EXTRACT_UTC(e.logged_at), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS logged_at,
       e.load_id AS error_load_id
  FROM picked p
  LEFT JOIN last_error l ON l.stage_id = p.stage_id AND l.rn = 1
  LEFT JOIN order_bulk_error e ON e.error_id = l.error_id
 ORDER BY p.stage_id
