-- order_loader_settle_staged: rows written once, already DONE, by the staging batch that stages
-- them (PGlite only; src/engine/postgres/staging.ts, stageSettled).
--
-- On the embedded engine staging and processing run one after the other in the loader's one
-- thread, and a row was written twice: READY by staging's COPY (a heap tuple and three btree
-- entries), then DONE by processing (the claim's row lock, a new heap tuple and two more btree
-- entries: never a HOT update while ix_order_stage_claimable names process_status; after each
-- checkpoint a full page image of every page touched again). The DONE update was half of
-- processing (run 23: 36 of about 75 ms per chunk of 2,000 rows).
--
-- Now the client writes, in the batch's COPY, the rows it expects processing to merge as DONE
-- (attempt_count 1, the batch's batch_id, processed_at the transaction's now()), and this function,
-- in the same transaction, under the batch's savepoint:
--  1. checks every DONE row of the batch (stage_id > p_after, load p_load_id) against the rules
--     order_loader_process_chunk takes a row to the MERGE by (the plain rules, migration 012) and
--     against orders.amount's precision (the refusal precheck of order_loader_merge_chunk,
--     migration 013): a row either refuses is one processing would not have merged; and that
--     there are exactly p_expected of them;
--  2. merges them into orders (order_loader_merge_ids, the chunk's MERGE), in stage_id order.
-- It returns how many it merged, or -1 when the check failed. On -1, or when the MERGE raises,
-- the client rolls the batch back to its savepoint and stages it as before (every row READY):
-- a batch the client guessed wrong costs a second COPY, never a different outcome. The client
-- marks DONE only rows whose key is new (the COPY fails on a staged key: 23505, the batch goes to
-- order_loader_stage_batch), on one line of the run's files (src/input/repeated-keys.ts), without
-- a parse error, with values that plainly meet the rules (settleGuess in staging.ts).
--
-- What a settled row holds is what processing would have written: DONE, attempt_count 1,
-- transient_failures 0, no error, batch_id and processed_at set, orders merged with its values
-- (test/integration/settle-while-staging.test.ts compares both ways on a hostile file).
--
-- Measured (bench/RESULTS.md, run 25; 1,000,000 rows into a new PGlite folder, 1 % missing amounts,
-- 0.1 % overflowing, alternating with the build before): 62.1 and 65.1 s before, 42.2 and 42.8 s
-- with this (0.66-0.68 x), WAL about half, the folder 466 MB instead of 651. PGlite against the
-- server on the same file: 0.64-0.79 (0.39-0.53 before, run 24). Plan: the DONE rows of the batch
-- are read by the primary key from p_after (enable_bitmapscan off): through the BRIN on load_id the
-- planner read every block range of the load, 39 us a row and growing; by the key, 15 us.
CREATE OR REPLACE FUNCTION order_loader_settle_staged(p_after bigint, p_load_id bigint, p_expected integer)
RETURNS integer
LANGUAGE plpgsql
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_hashjoin = off
SET enable_mergejoin = off
AS $$
DECLARE
  v_ids         bigint[];
  v_bad         integer;
  amount_typmod integer;    -- orders.amount's numeric(p, s), as PostgreSQL stores it (NULL: unconstrained)
  amount_scale  integer;
  amount_digits integer;    -- p - s: digits before the point that fit
BEGIN
  SELECT a.atttypmod,
         information_schema._pg_numeric_scale(a.atttypid, a.atttypmod),
         information_schema._pg_numeric_precision(a.atttypid, a.atttypmod)
           - information_schema._pg_numeric_scale(a.atttypid, a.atttypmod)
    INTO amount_typmod, amount_scale, amount_digits
    FROM pg_attribute a
   WHERE a.attrelid = 'orders'::regclass AND a.attname = 'amount' AND NOT a.attisdropped
     AND a.atttypid = 'numeric'::regtype AND a.atttypmod >= 0;

  SELECT coalesce(array_agg(s.stage_id ORDER BY s.stage_id), '{}'),
         count(*) FILTER (
           WHERE NOT coalesce(s.customer_id > 0
                              AND s.order_date >= DATE '1900-01-01' AND s.order_date <= DATE '9999-12-31'
                              AND s.amount >= 0 AND s.amount < 1e16
                              AND s.currency::text COLLATE "C" ~ '^[A-Z]{3}$', false)
              OR (amount_typmod IS NOT NULL
                  AND abs(round(s.amount, amount_scale)) >= 10::numeric ^ amount_digits))::integer
    INTO v_ids, v_bad
    FROM order_stage s
   WHERE s.stage_id > p_after AND s.load_id = p_load_id AND s.process_status = 'DONE';
  IF v_bad > 0 OR cardinality(v_ids) <> p_expected THEN
    RETURN -1;
  END IF;
  IF cardinality(v_ids) > 0 THEN
    PERFORM order_loader_merge_ids(v_ids);
  END IF;
  RETURN cardinality(v_ids);
END;
$$;
