-- Every error-log row of one stage row, oldest first (ix_order_bulk_error_stage). $1 stage_id.
SELECT error_id, load_id, line_no, batch_id, attempt_no, phase, error_code, error_message,
       raw_record, logged_at
  FROM order_bulk_error
 WHERE stage_id = $1
 ORDER BY error_id;
