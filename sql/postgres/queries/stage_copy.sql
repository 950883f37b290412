-- A staging batch whose keys are all new, sent as COPY … FROM STDIN (text format) straight into
-- order_stage (src/engine/postgres/staging.ts, `copyText` writes the input). The columns and
-- values are those order_loader_stage_batch inserts for a new key (the staging rule, see
-- stage_batch.sql): process_status READY, or ERROR with the parse error's code and message when
-- the line failed parsing; attributes (jsonb, migration 011) as the JSON text the loader wrote, or
-- \N for none (the built-in format); every other column takes its default (attempt_count 0,
-- transient_failures 0, staged_at/updated_at now()); stage_ids follow the batch's order.
-- A key already staged fails the COPY with 23505 (uq_order_stage_source), a refused value with its
-- own SQLSTATE: the batch is then rolled back to its savepoint and staged by the function.
--
-- Measured (bench/stage-cpu.ts, PostgreSQL 15, 300,000 new keys, batches of 5000, run 13 of
-- bench/RESULTS.md): the server backend's CPU per staged row 8.9 µs by the function (its INSERT
-- plus the per-key lookup, unnest and sort), 5.5 µs by this COPY (the INSERT's heap and index
-- work only): 0.62×. Node's side (~9 µs/row, parsing) is the same either way and now the bound.
COPY order_stage (source_key, customer_id, order_date, amount, currency,
                  process_status, error_code, error_message, load_id, line_no, attributes)
  FROM STDIN
