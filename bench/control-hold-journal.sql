-- Run 35 (bench/RESULTS.md): the journal and ERROR rows of the control-hold measurement, in a
-- scratch database migrated by `order-loader init`. psql -f this file; then clone it (CREATE
-- DATABASE x TEMPLATE y) for each `retry`, which changes the rows.
-- 5,000 load runs with 40 journal events each (200,000 events), 10 loads held for their
-- control totals (5 of them accepted later), 200,000 ERROR rows (40 per load) and 2,000 HELD rows.
BEGIN;
TRUNCATE load_run_event, load_run, order_stage, order_stage_audit, order_bulk_error CASCADE;
INSERT INTO load_run (run_id, command, file_name, file_size, file_sha256, host, pid, status, started_at, finished_at, counts)
SELECT r, 'load', 'inbox/orders_' || r || '.csv', 1000000, lpad(to_hex(r), 64, '0'), 'bench', 1, 'COMPLETED',
       now() - interval '1 minute' * (5100 - r), now() - interval '1 minute' * (5100 - r) + interval '10 seconds', '{}'
  FROM generate_series(1, 5000) r;
INSERT INTO load_run (run_id, command, host, pid, status, finished_at, counts)
SELECT r, 'accept', 'bench', 1, 'COMPLETED', now(), '{}' FROM generate_series(5001, 5005) r;
INSERT INTO load_run_event (run_id, seq, event, detail)
SELECT r, s,
       CASE s WHEN 1 THEN 'invoked' WHEN 40 THEN 'finished' ELSE 'staged_checkpoint' END,
       CASE s WHEN 1 THEN '{"loadId":' || r || ',"encoding":"utf-8","delimiter":",","header":["source_key","customer_id","order_date","amount","currency"]}'
              WHEN 40 THEN '{"counts":{"staged":40,"done":0,"error":40}}'
              ELSE '{"offset":' || (s * 25000) || ',"line":' || (s * 500) || ',"batch":' || s || '}' END
  FROM generate_series(1, 5000) r, generate_series(1, 40) s;
-- the held loads: 500, 1000, ..., 5000 (their own run's event); 500..2500 accepted by runs 5001..5005
INSERT INTO load_run_event (run_id, seq, event, detail)
SELECT l, 41, 'control_held', '{"loadId":' || l || ',"stated":{"rows":41},"read":{"rows":40}}'
  FROM generate_series(500, 5000, 500) l;
INSERT INTO load_run_event (run_id, seq, event, detail)
SELECT 5000 + k, 1, 'control_accepted', '{"loadId":' || (500 * k) || ',"rows":40,"operator":"ops","reason":"bench"}'
  FROM generate_series(1, 5) k;
SELECT setval(pg_get_serial_sequence('load_run', 'run_id'), 5005);
INSERT INTO order_stage (stage_id, source_key, customer_id, order_date, amount, currency, process_status,
                         error_code, error_message, attempt_count, load_id, line_no)
SELECT i, 'K' || i, 1000 + i % 977, date '2026-01-01' + i % 300, (i % 10000) / 100.0 + 1, 'EUR', 'ERROR',
       'DB_CHECK', 'check constraint failed', 1, 1 + (i - 1) / 40, 1 + (i - 1) % 40
  FROM generate_series(1, 200000) i;
INSERT INTO order_stage (stage_id, source_key, customer_id, order_date, amount, currency, process_status,
                         load_id, line_no)
SELECT 200000 + i, 'H' || i, 1000 + i % 977, date '2026-01-01' + i % 300, 10, 'EUR', 'HELD',
       CASE WHEN i <= 1000 THEN 5000 ELSE 4999 END, i
  FROM generate_series(1, 2000) i;
SELECT setval(pg_get_serial_sequence('order_stage', 'stage_id'), 202000);
COMMIT;
VACUUM ANALYZE load_run, load_run_event, order_stage;
