-- Two corrections to functions of earlier migrations; the functions are re-created whole
-- (CREATE OR REPLACE, same signatures), their other rules unchanged.
--
-- 1. order_loader_stage_batch (as in 011): a key repeated later in the same load with values
--    identical to what an earlier batch of that load staged now moves line_no to the later line
--    (the last disjunct of the UPDATE's WHERE). Before, the row kept the earlier line's number
--    when the two lines fell in different batches (in one batch the later line already won), so
--    the error log and `errors` named a line that a later one overrides, and the line depended
--    on --batch-size. Only within one load (one file's staging; a resumed load keeps its load_id
--    and reads on after its last committed line, so line numbers only grow): a row staged by an
--    earlier load keeps the staging rule of 011 (not DONE: moves to this load; DONE: left as it
--    is). Status, values, counts and error fields are untouched, as for any identical line.
--    test/integration/repeated-identical-line.test.ts.
--
-- 2. order_loader_merge_chunk (as in 004), cheaper when many rows are refused:
--    * SET plan_cache_mode = force_generic_plan (held for the order_loader_merge_ids calls it
--      makes). order_loader_merge_ids runs its MERGE with a different p_ids length for every
--      block; PL/pgSQL's plan cache kept choosing a custom plan, so every block, and every
--      single row of a refused block, planned the MERGE again. The generic plan is the pinned
--      index nested loop (the enable_* settings below). Measured (2 cores, PG 15, one 2,000-row
--      chunk of rows whose amount overflows orders.amount, order_loader_process_chunk in a
--      rolled-back transaction): 188-378 ms before, 116-125 ms after; a clean chunk 44-55 ms
--      both ways. bench/RESULTS.md, run 19.
--    * When nearly every row settled so far was refused, a failing block is split straight into
--      single rows instead of 8 parts that would fail again (an all-failing chunk: 51 attempts
--      per 42 rows before, 43 after). A chunk with a few bad rows splits as before, so the
--      subtransactions of its merged blocks stay few (the subxid cache note of 002).
--    * When the caller expects failures (p_block below the chunk), the amounts that cannot fit
--      orders.amount are refused before the MERGE, with the SQLSTATE and message the column's
--      coercion raises for the first of them (comment below): an all-failing file no longer
--      runs a MERGE, nor an error, per row.

CREATE OR REPLACE FUNCTION order_loader_stage_batch(
  p_source_key text[], p_customer_id bigint[], p_order_date date[], p_amount numeric[],
  p_currency text[], p_line_no bigint[], p_parse_code text[], p_parse_message text[],
  p_attributes text[], p_load_id bigint)
RETURNS TABLE (inserted integer, updated integer, unchanged integer, unchanged_error integer,
               repeated_in_load integer, written integer)
LANGUAGE sql
SET enable_hashjoin = off
SET enable_mergejoin = off
SET enable_seqscan = off
AS $$
  WITH input AS (
    SELECT t.source_key, t.customer_id, t.order_date, t.amount, t.currency, t.line_no,
           t.parse_code, t.parse_message, t.attributes::jsonb AS attributes, t.ord
      FROM unnest(p_source_key, p_customer_id, p_order_date, p_amount, p_currency,
                  p_line_no, p_parse_code, p_parse_message, p_attributes) WITH ORDINALITY
        AS t(source_key, customer_id, order_date, amount, currency, line_no, parse_code, parse_message,
             attributes, ord)
  ),
  prior AS (
    SELECT i.*,
           s.stage_id,
           s.stage_id IS NULL AS is_new,
           s.stage_id IS NOT NULL
             AND i.parse_code IS NULL
             AND (s.customer_id, s.order_date, s.amount, s.currency, s.attributes)
                 IS NOT DISTINCT FROM (i.customer_id, i.order_date, i.amount, i.currency, i.attributes)
             AND NOT (s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%') AS identical,
           s.process_status,
           s.load_id IS NOT DISTINCT FROM p_load_id AS repeated
      FROM input i
      LEFT JOIN order_stage s ON s.source_key = i.source_key
  ),
  ins AS (
    INSERT INTO order_stage
           (source_key, customer_id, order_date, amount, currency,
            process_status, error_code, error_message, load_id, line_no, attributes)
    SELECT p.source_key, p.customer_id, p.order_date, p.amount, p.currency,
           CASE WHEN p.parse_code IS NULL THEN 'READY' ELSE 'ERROR' END,
           p.parse_code, p.parse_message, p_load_id, p.line_no, p.attributes
      FROM prior p
     WHERE p.is_new
     ORDER BY p.ord  -- stage_ids in batch order, whatever join the planner chose for prior
    RETURNING 1
  ),
  upd AS (
    UPDATE order_stage s
       SET customer_id        = p.customer_id,
           order_date         = p.order_date,
           amount             = p.amount,
           currency           = p.currency,
           attributes         = p.attributes,
           process_status     = CASE WHEN s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
                                       OR p.parse_code IS NOT NULL
                                       OR (s.customer_id, s.order_date, s.amount, s.currency, s.attributes)
                                          IS DISTINCT FROM (p.customer_id, p.order_date, p.amount, p.currency, p.attributes)
                                     THEN CASE WHEN p.parse_code IS NULL THEN 'READY' ELSE 'ERROR' END
                                     ELSE s.process_status END,
           error_code         = CASE WHEN s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
                                       OR p.parse_code IS NOT NULL
                                       OR (s.customer_id, s.order_date, s.amount, s.currency, s.attributes)
                                          IS DISTINCT FROM (p.customer_id, p.order_date, p.amount, p.currency, p.attributes)
                                     THEN p.parse_code ELSE s.error_code END,
           error_message      = CASE WHEN s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
                                       OR p.parse_code IS NOT NULL
                                       OR (s.customer_id, s.order_date, s.amount, s.currency, s.attributes)
                                          IS DISTINCT FROM (p.customer_id, p.order_date, p.amount, p.currency, p.attributes)
                                     THEN p.parse_message ELSE s.error_message END,
           next_attempt_at    = CASE WHEN s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
                                       OR p.parse_code IS NOT NULL
                                       OR (s.customer_id, s.order_date, s.amount, s.currency, s.attributes)
                                          IS DISTINCT FROM (p.customer_id, p.order_date, p.amount, p.currency, p.attributes)
                                     THEN NULL ELSE s.next_attempt_at END,
           transient_failures = CASE WHEN s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
                                       OR p.parse_code IS NOT NULL
                                       OR (s.customer_id, s.order_date, s.amount, s.currency, s.attributes)
                                          IS DISTINCT FROM (p.customer_id, p.order_date, p.amount, p.currency, p.attributes)
                                     THEN 0 ELSE s.transient_failures END,
           load_id            = p_load_id,
           line_no            = p.line_no,
           updated_at         = now()
      FROM prior p
     WHERE s.stage_id = p.stage_id
       AND (s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
         OR p.parse_code IS NOT NULL
         OR (s.customer_id, s.order_date, s.amount, s.currency, s.attributes)
            IS DISTINCT FROM (p.customer_id, p.order_date, p.amount, p.currency, p.attributes)
         OR (s.process_status <> 'DONE' AND s.load_id IS DISTINCT FROM p_load_id)
         OR (s.load_id = p_load_id AND s.line_no < p.line_no))
    RETURNING 1
  )
  SELECT count(*) FILTER (WHERE is_new)::int                                          AS inserted,
         count(*) FILTER (WHERE NOT is_new AND NOT repeated AND NOT identical)::int   AS updated,
         count(*) FILTER (WHERE NOT is_new AND NOT repeated AND identical)::int       AS unchanged,
         count(*) FILTER (WHERE NOT is_new AND NOT repeated AND identical
                            AND process_status = 'ERROR')::int                        AS unchanged_error,
         count(*) FILTER (WHERE NOT is_new AND repeated)::int                         AS repeated_in_load,
         ((SELECT count(*) FROM ins) + (SELECT count(*) FROM upd))::int               AS written
    FROM prior
$$;

CREATE OR REPLACE FUNCTION order_loader_merge_chunk(p_ids bigint[], p_block integer, p_row_level text[])
RETURNS TABLE (failed_stage_id bigint, failed_sqlstate text, failed_message text)
LANGUAGE plpgsql
SET enable_hashjoin = off
SET enable_mergejoin = off
SET enable_seqscan = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
  n          integer := coalesce(cardinality(p_ids), 0);
  blk        integer := greatest(1, least(coalesce(p_block, n), n));
  lo_stack   integer[] := '{}';
  hi_stack   integer[] := '{}';
  lo         integer;
  hi         integer;
  part       integer;
  top        integer;
  i          integer;
  caller_lock_timeout text := current_setting('lock_timeout');
  probe_ms   integer;
  shortened  boolean := false;
  settled    integer := 0;  -- rows of finished blocks: merged, or failed as single rows
  refused    integer := 0;  -- of which failed
  amount_typmod integer;    -- orders.amount's numeric(p, s), as PostgreSQL stores it
  amount_scale  integer;
  amount_digits integer;    -- p - s: digits before the point that fit
  prechecked    bigint[] := '{}';
  first_amount  numeric;
  first_state   text;
  first_message text;
BEGIN
  IF n = 0 THEN
    RETURN;
  END IF;
  -- A lock on the whole table is not a row's fault: waited for here, outside the blocks, so a
  -- timeout on it fails the chunk instead of being split (see above).
  LOCK TABLE orders IN ROW EXCLUSIVE MODE;

  -- Failures expected (the caller passes a block smaller than the chunk once it has seen some):
  -- the rows whose amount cannot fit orders.amount are refused before any MERGE, as the MERGE
  -- would refuse them. Those rows are the finite amounts that, rounded to the column's scale,
  -- have more digits before the point than p - s: PostgreSQL's own rule for a numeric(p, s)
  -- column (apply_typmod in numeric.c), whose error (22003, "numeric field overflow") names
  -- neither the value nor the row. The first such row is put through the very coercion the MERGE
  -- applies (pg_catalog.numeric(value, typmod)) in a subtransaction: the SQLSTATE and message it
  -- raises are the database's, and every such row of the chunk is refused with them, set-based.
  -- Should it pass after all, every row goes to the MERGE as before. NaN, infinities and NULL
  -- are left to the MERGE. Why: a refused row costs a subtransaction and an error, 15 to 40 µs
  -- each whatever fails in it (the MERGE or the coercion alone, measured), which made a file
  -- whose every amount overflows 2.3 to 2.7 × a clean one. A chunk that expects no failure
  -- (p_block = chunk) skips this: a clean file pays nothing. bench/RESULTS.md, run 20;
  -- test/integration/refusal-precheck.test.ts compares both ways on edge values.
  IF blk < n THEN
    SELECT a.atttypmod,
           information_schema._pg_numeric_scale(a.atttypid, a.atttypmod),
           information_schema._pg_numeric_precision(a.atttypid, a.atttypmod)
             - information_schema._pg_numeric_scale(a.atttypid, a.atttypmod)
      INTO amount_typmod, amount_scale, amount_digits
      FROM pg_attribute a
     WHERE a.attrelid = 'orders'::regclass AND a.attname = 'amount' AND NOT a.attisdropped
       AND a.atttypid = 'numeric'::regtype AND a.atttypmod >= 0;
    IF amount_typmod IS NOT NULL THEN
      SELECT coalesce(array_agg(s.stage_id ORDER BY s.stage_id), '{}'),
             (array_agg(s.amount ORDER BY s.stage_id))[1]
        INTO prechecked, first_amount
        FROM order_stage s
       WHERE s.stage_id = ANY (p_ids)
         AND s.amount > '-Infinity' AND s.amount < 'Infinity' AND s.amount <> 'NaN'
         AND abs(round(s.amount, amount_scale)) >= 10::numeric ^ amount_digits;
      IF cardinality(prechecked) > 0 THEN
        BEGIN
          PERFORM pg_catalog.numeric(first_amount, amount_typmod);
          prechecked := '{}';  -- it fits after all: every row goes to the MERGE
        EXCEPTION
          WHEN OTHERS THEN
            IF NOT (left(SQLSTATE, 2) = ANY (p_row_level) OR SQLSTATE = ANY (p_row_level)) THEN
              RAISE;
            END IF;
            first_state   := SQLSTATE;
            first_message := SQLERRM;
        END;
      END IF;
      IF cardinality(prechecked) > 0 THEN
        RETURN QUERY SELECT x, first_state, first_message FROM unnest(prechecked) AS x;
        p_ids := ARRAY(SELECT u.x FROM unnest(p_ids) WITH ORDINALITY AS u(x, o)
                        WHERE u.x <> ALL (prechecked) ORDER BY u.o);
        n := cardinality(p_ids);
        IF n = 0 THEN
          RETURN;
        END IF;
        blk := least(blk, n);
      END IF;
    END IF;
  END IF;

  blk := greatest(blk, ceil(n / 48.0)::integer);
  -- push the top-level blocks, last first, so they are applied in stage_id order
  i := ((n - 1) / blk) * blk + 1;
  WHILE i >= 1 LOOP
    lo_stack := lo_stack || i;
    hi_stack := hi_stack || least(i + blk - 1, n);
    i := i - blk;
  END LOOP;

  WHILE cardinality(lo_stack) > 0 LOOP
    top := cardinality(lo_stack);
    lo := lo_stack[top];
    hi := hi_stack[top];
    lo_stack := lo_stack[1:top - 1];
    hi_stack := hi_stack[1:top - 1];
    BEGIN
      PERFORM order_loader_merge_ids(p_ids[lo:hi]);
      settled := settled + (hi - lo + 1);
    EXCEPTION
      WHEN OTHERS THEN
        -- Only a row's own data or a row's transient conflict is isolated (p_row_level: data
        -- exceptions, integrity constraints, a trigger's RAISE, serialization failure, deadlock,
        -- lock timeout). Anything else (privileges, a missing object, out of disk or memory, the
        -- server shutting down, a cancel, …) is not a row's fault: re-raised, so the whole chunk
        -- rolls back.
        IF NOT (left(SQLSTATE, 2) = ANY (p_row_level) OR SQLSTATE = ANY (p_row_level)) THEN
          RAISE;
        END IF;
        IF SQLSTATE = '55P03' AND NOT shortened THEN
          -- set here, after the block's subtransaction has rolled back: a setting made inside
          -- it would be undone with it
          shortened := true;
          -- (lock_timeout 0, waiting for ever, is left alone: that 55P03 came from elsewhere)
          SELECT CASE WHEN setting::integer > 0 THEN least(100, setting::integer) END
            INTO probe_ms FROM pg_settings WHERE name = 'lock_timeout';
          IF probe_ms IS NOT NULL THEN
            PERFORM set_config('lock_timeout', probe_ms || 'ms', true);
          END IF;
        END IF;
        IF lo = hi THEN
          settled := settled + 1;
          refused := refused + 1;
          failed_stage_id := p_ids[lo];
          failed_sqlstate := SQLSTATE;
          failed_message  := SQLERRM;
          RETURN NEXT;
        ELSE
          -- nearly every row refused so far (9 in 10, over at least one block's rows): the
          -- block's rows one by one, without the intermediate blocks that would fail too
          part := CASE WHEN settled >= 8 AND refused * 10 >= settled * 9 THEN 1
                       ELSE greatest(1, ceil((hi - lo + 1) / 8.0)::integer) END;
          i := ((hi - lo) / part) * part + lo;
          WHILE i >= lo LOOP
            lo_stack := lo_stack || i;
            hi_stack := hi_stack || least(i + part - 1, hi);
            i := i - part;
          END LOOP;
        END IF;
    END;
  END LOOP;
  IF shortened THEN
    PERFORM set_config('lock_timeout', caller_lock_timeout, true);
  END IF;
END;
$$;
