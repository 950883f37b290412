-- One chunk of processing in the database (migrations 012 and 014, order_loader_process_chunk):
-- claim, MERGE of the rows that plainly meet the business rules, DONE for those merged, ERROR for
-- those the MERGE refused for good; back come the counts ('rejected': the rows written ERROR
-- there), the rows validateOrder must judge ('check') and the rows the MERGE refused with a
-- transient SQLSTATE ('failed').
-- $1 keyset position, $2 chunk size, $3 load_ids (NULL: any), $4 isolation block size,
-- $5 ROW_LEVEL_SQLSTATES, $6 the chunk's batch id, $7 TRANSIENT_SQLSTATES (both in
-- src/engine/postgres/classify.ts).
-- Measured (bench/RESULTS.md, runs 18 and 21): see the migrations.
SELECT kind, stage_id, source_key, customer_id, order_date, amount, currency, attempt_count,
       transient_failures, load_id, line_no, n, failed_sqlstate, failed_message
  FROM order_loader_process_chunk($1::bigint, $2::integer, $3::bigint[], $4::integer, $5::text[], $6::text, $7::text[]);
