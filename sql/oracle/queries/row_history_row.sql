-- The review page's one row (`order-loader serve`): the stage row with :stage_id, any status,
-- with its latest error-log entry (the highest error_id, on ix_order_bulk_error_stage), in the
-- columns of error_rows.sql (sql/postgres/queries/row_history_row.sql).
WITH picked AS (
  SELECT s.stage_id, s.source_key, s.customer_id, s.order_date, s.amount, s.currency,
         s.process_status, s.attempt_count, s.load_id, s.line_no, s.error_code,
         s.error_message, s.updated_at, s.attributes
    FROM order_stage s
   WHERE s.stage_id = :stage_id
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
  LEFT JOIN order_bulk_error e
         ON e.error_id = (SELECT MAX(x.error_id) FROM order_bulk_error x WHERE x.stage_id = p.stage_id)
