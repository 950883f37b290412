-- One error-log row per failed row of a chunk, array-bound. Append-only.
INSERT INTO order_bulk_error
       (stage_id, source_key, load_id, line_no, batch_id, attempt_no, phase, error_code,
        error_message)
VALUES (:stage_id, :source_key, :load_id, :line_no, :batch_id, :attempt_no, :phase, :error_code,
        SUBSTR(:error_message, 1, 1000))
