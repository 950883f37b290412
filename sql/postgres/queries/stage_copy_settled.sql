-- A staging batch whose keys are all new, as stage_copy.sql, in a `load`, with the rows the client
-- expects processing to merge already DONE (attempt_count 1, the batch's batch_id, processed_at
-- the transaction's now() as settle_start.sql read it; the others READY or ERROR, 0, NULL, NULL),
-- checked and merged by settle_staged.sql in the same savepoint (migration 015).
COPY order_stage (source_key, customer_id, order_date, amount, currency,
                  process_status, error_code, error_message, load_id, line_no, attributes,
                  attempt_count, batch_id, processed_at)
  FROM STDIN
