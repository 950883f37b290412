-- MERGE of a chunk's rows from order_stage into orders, with per-row failure isolation done
-- inside the server (no round trip per attempt).
--
-- order_loader_merge_ids: one set-based MERGE of the given stage rows. The rows are locked by
-- the caller's claim (FOR UPDATE), so their values cannot change under us; the data never
-- travels to the client and back (binding a chunk's values back, as a first version did, cost
-- as much as the MERGE itself).
CREATE OR REPLACE FUNCTION order_loader_merge_ids(p_ids bigint[])
RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
  MERGE INTO orders o
  USING (
    SELECT s.source_key, s.customer_id, s.order_date, s.amount, s.currency
      FROM order_stage s
     WHERE s.stage_id = ANY (p_ids)
  ) src
  ON o.source_key = src.source_key
  WHEN MATCHED AND (o.customer_id, o.order_date, o.amount, o.currency)
                   IS DISTINCT FROM (src.customer_id, src.order_date, src.amount, src.currency) THEN
    UPDATE SET customer_id = src.customer_id,
               order_date  = src.order_date,
               amount      = src.amount,
               currency    = src.currency,
               updated_at  = now()
  WHEN NOT MATCHED THEN
    INSERT (source_key, customer_id, order_date, amount, currency)
    VALUES (src.source_key, src.customer_id, src.order_date, src.amount, src.currency);
END;
$$;

-- order_loader_merge_chunk: apply p_ids in blocks of p_block rows, each block in its own
-- subtransaction (an EXCEPTION block). A block that fails is rolled back and split into 8
-- parts, recursively, down to single rows; a single row that fails is returned with the
-- database's SQLSTATE and message. Every other row stays merged (pending the caller's commit).
--
-- Why blocks and not "whole chunk, then bisect": measured on a first version, bisection
-- doubled the time at 0.1% failing rows, because nearly every chunk then holds a bad row and the
-- whole chunk is redone log2(n) times. The caller passes p_block = chunk size while no row has
-- failed (one statement, the common case), and a block near sqrt(statement cost / (row cost x
-- failure rate)) once failures are seen, so a bad row costs about one small block.
-- At most ~48 top-level blocks per call keep the subtransaction count near PostgreSQL's 64-entry
-- per-backend subxid cache.
--
-- Errors that are not about a row (privileges, missing objects, out of disk or memory, connection
-- or server state, internal errors, cancel) are re-raised so that the whole chunk rolls back:
-- never recorded as a row error (see the list in the handler).
--
-- Plan pinned to index nested loops (SET clauses below; they hold for the nested
-- order_loader_merge_ids calls too). Measured (bench/, 2 cores, PG 15, autovacuum off as on the
-- bench server, so order_stage/orders had no statistics right after staging): the planner costed
-- a 2000-id chunk against an "empty" orders table and chose Hash Join over a Seq Scan of orders,
-- so every block of every chunk read all of orders (quadratic): 950 ms per 2000-row chunk at
-- 200k rows, vs ~12 ms with the nested loop over uq_orders_source. A chunk (<= 100k ids) is
-- always small next to orders, so the index nested loop is the right plan whatever the stats.
CREATE OR REPLACE FUNCTION order_loader_merge_chunk(p_ids bigint[], p_block integer)
RETURNS TABLE (failed_stage_id bigint, failed_sqlstate text, failed_message text)
LANGUAGE plpgsql
SET enable_hashjoin = off
SET enable_mergejoin = off
SET enable_seqscan = off
AS $$
DECLARE
  n        integer := coalesce(cardinality(p_ids), 0);
  blk      integer := greatest(1, least(coalesce(p_block, n), n));
  lo_stack integer[] := '{}';
  hi_stack integer[] := '{}';
  lo       integer;
  hi       integer;
  part     integer;
  top      integer;
  i        integer;
BEGIN
  IF n = 0 THEN
    RETURN;
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
    EXCEPTION
      WHEN OTHERS THEN
        -- Only a row's own data or a row's transient conflict is isolated: data exceptions (22),
        -- integrity constraints (23), a trigger's RAISE (P0), serialization failure and deadlock
        -- (40001, 40P01), and a lock timeout on a single row (55P03). Anything else (privileges,
        -- a missing object, out of disk or memory, the server shutting down, a lock timeout on a
        -- whole block, …) is not a row's fault: re-raised, so the whole chunk rolls back.
        IF NOT (left(SQLSTATE, 2) IN ('22', '23', 'P0')
                OR SQLSTATE IN ('40001', '40P01')
                OR (SQLSTATE = '55P03' AND lo = hi)) THEN
          RAISE;
        END IF;
        IF lo = hi THEN
          failed_stage_id := p_ids[lo];
          failed_sqlstate := SQLSTATE;
          failed_message  := SQLERRM;
          RETURN NEXT;
        ELSE
          part := greatest(1, ceil((hi - lo + 1) / 8.0)::integer);
          i := ((hi - lo) / part) * part + lo;
          WHILE i >= lo LOOP
            lo_stack := lo_stack || i;
            hi_stack := hi_stack || least(i + part - 1, hi);
            i := i - part;
          END LOOP;
        END IF;
    END;
  END LOOP;
END;
$$;
