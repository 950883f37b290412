-- One chunk of processing in the database (migration 012, order_loader_process_chunk): claim,
-- MERGE of the rows that plainly meet the business rules, DONE for those merged; back come the
-- counts, the rows validateOrder must judge ('check') and the rows the MERGE refused ('failed').
-- $1 keyset position, $2 chunk size, $3 load_ids (NULL: any), $4 isolation block size,
-- $5 ROW_LEVEL_SQLSTATES (src/engine/postgres/classify.ts), $6 the chunk's batch id.
-- Measured (bench/RESULTS.md, run 18): see the migration.
SELECT kind, stage_id, source_key, customer_id, order_date, amount, currency, attempt_count,
       transient_failures, load_id, line_no, n, failed_sqlstate, failed_message
  FROM order_loader_process_chunk($1::bigint, $2::integer, $3::bigint[], $4::integer, $5::text[], $6::text);
