-- Every error-log row of the stage row :stage_id, oldest first (ix_order_bulk_error_stage;
-- sql/postgres/queries/row_history_errors.sql).
SELECT b.error_id, b.load_id, b.line_no, b.batch_id, b.attempt_no, b.phase, b.error_code,
       b.error_message, b.raw_record,
       TO_CHAR(SYS_EXTRACT_UTC(b.logged_at), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS logged_at
  FROM order_bulk_error b
 WHERE b.stage_id = :stage_id
 ORDER BY b.error_id
