-- order_loader_merge_chunk, third version: a row lock held by another session is that row's
-- problem, not the chunk's.
--
-- What changed against 002/003:
--  * The SQLSTATEs that are a row's own failure come from the caller (p_row_level: two-character
--    classes and five-character codes), from the one list the client also classifies with
--    (ROW_LEVEL_SQLSTATES in src/engine/postgres/classify.ts). Before, the function carried its
--    own copy of that list.
--  * A lock timeout (55P03) inside a block of several rows is split down to the row like a
--    deadlock or a constraint violation. Before, only a single-row block was isolated, so with
--    the default chunk size one row held by another session (SELECT … FOR UPDATE in an open
--    transaction) failed the whole chunk on every retry and stopped the run.
--  * To tell a held row from a lock on the whole table, the function first takes the table lock
--    the MERGE needs anyway (ROW EXCLUSIVE on orders), outside any block. If another session
--    holds a conflicting table lock (DDL, LOCK TABLE), that statement waits at most the lock
--    timeout and then fails the chunk as a whole (rolled back, retried with backoff): splitting
--    would only make every row of the chunk wait once more. Once the table lock is held, the
--    only locks left to wait for inside a block are row locks (a row another transaction has
--    updated or locked, or a key another transaction is inserting).
--  * After the first lock timeout of a call, the rest of that call waits at most 100 ms per
--    lock (or the caller's lock timeout, if that is shorter): the held row has already been
--    waited for as long as the caller allows, and the split that finds it would otherwise wait
--    that long again at every level (2000 → 250 → 32 → 4 → 1 rows: five full waits per held
--    row). A row that times out after the short wait is reported like any other (the caller
--    retries it later with backoff). The caller's setting is restored before returning.
--
-- The 2-argument version of 002 is dropped: it carried the old list, and nothing calls it.
DROP FUNCTION IF EXISTS order_loader_merge_chunk(bigint[], integer);

CREATE OR REPLACE FUNCTION order_loader_merge_chunk(p_ids bigint[], p_block integer, p_row_level text[])
RETURNS TABLE (failed_stage_id bigint, failed_sqlstate text, failed_message text)
LANGUAGE plpgsql
SET enable_hashjoin = off
SET enable_mergejoin = off
SET enable_seqscan = off
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
BEGIN
  IF n = 0 THEN
    RETURN;
  END IF;
  -- A lock on the whole table is not a row's fault: waited for here, outside the blocks, so a
  -- timeout on it fails the chunk instead of being split (see above).
  LOCK TABLE orders IN ROW EXCLUSIVE MODE;

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
  IF shortened THEN
    PERFORM set_config('lock_timeout', caller_lock_timeout, true);
  END IF;
END;
$$;
