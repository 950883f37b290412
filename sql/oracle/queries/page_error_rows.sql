-- The review page's rejected rows (`order-loader serve`): ERROR rows with their latest
-- error-log entry, newest first, at most :row_limit rows below :before_stage_id (one page of a
-- keyset walk backwards; the first page binds the largest stage_id there is plus one;
-- sql/postgres/queries/page_error_rows.sql). error_rows.sql walked the other way: the same slot
-- binds for the load and error-code lists, the same `picked` / `last_error` shape, and the
-- index ix_order_stage_error walked backwards (INDEX_DESC). :by_phase = 0 takes every phase,
-- else only rows whose latest error-log row (highest error_id, KEEP DENSE_RANK LAST on the
-- index ix_order_bulk_error_stage) has phase :phase_name.
WITH picked AS (
  SELECT /*+ INDEX_DESC(s ix_order_stage_error) */
         s.stage_id, s.source_key, s.customer_id, s.order_date, s.amount, s.currency,
         s.process_status, s.attempt_count, s.load_id, s.line_no, s.error_code,
         s.error_message, s.updated_at, s.attributes
    FROM order_stage s
   WHERE CASE WHEN s.process_status = 'ERROR' THEN s.stage_id END < :before_stage_id
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
     AND (:by_phase = 0
          OR :phase_name = (SELECT MAX(x.phase) KEEP (DENSE_RANK LAST ORDER BY x.error_id)
                              FROM order_bulk_error x
                             WHERE x.stage_id = s.stage_id))
   ORDER BY CASE WHEN s.process_status = 'ERROR' THEN s.stage_id END DESC
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
 ORDER BY p.stage_id DESC
