-- Functions whose statements need a pinned plan: they run right after a bulk load, when
-- the tables have no statistics, and the plans chosen then were quadratic (see each one).

-- order_loader_claim: the claim of queries/claim.sql, with its plan pinned.
--
-- Why a function: the claim must walk ix_order_stage_claimable in stage_id order from the keyset
-- position and stop after p_limit rows. With no statistics on order_stage (just staged, and
-- autovacuum off or not yet run) the planner estimated ~200 claimable rows, below the LIMIT, and
-- chose a Bitmap Heap Scan of *every* claimable row followed by a full sort (external merge on
-- disk) before LockRows: measured 520-550 ms per 2000-row claim at 1M staged rows, i.e. the
-- whole load went quadratic. The ordered index scan costs ~2-5 ms. The SET clauses (only legal on
-- a function, not in a single parameterised statement) remove the plans that are never right for
-- a keyset walk with LIMIT; the ordered scan of the partial index is what remains.
CREATE OR REPLACE FUNCTION order_loader_claim(p_after bigint, p_limit integer, p_load_ids bigint[])
RETURNS SETOF order_stage
LANGUAGE sql
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_sort = off
AS $$
  SELECT *
    FROM order_stage
   WHERE stage_id > p_after
     AND process_status IN ('READY', 'RETRY_WAIT')
     AND (process_status = 'READY' OR next_attempt_at <= now())
     AND (p_load_ids IS NULL OR load_id = ANY (p_load_ids))
   ORDER BY stage_id
   LIMIT p_limit
     FOR UPDATE SKIP LOCKED
$$;

-- order_loader_stage_batch: the upsert of one staging batch (queries/stage_batch.sql calls it;
-- the rules are described there), with its plan pinned.
--
-- Why: node-postgres sends each statement unnamed, so it is planned with the bound arrays; the
-- planner then knows the batch holds 5000 rows, but order_stage, just loaded and never analysed
-- (autovacuum off on the bench server, or not yet run), looked small, and it chose Hash Joins
-- over a Seq Scan of the *whole* stage table, for the lookup of existing keys and for the
-- update: measured 273 ms per 5000-row batch at 300k staged rows (vs 40 ms), growing with the
-- table until the estimate flipped near 800k rows: staging 1M rows took 38 s in the database
-- alone instead of ~10 s. A batch is always small next to the stage, so index nested loops are
-- right whatever the statistics say; the SET clauses leave the planner no other choice.
--
-- Why a plain INSERT of the keys the snapshot does not hold plus an UPDATE of those it holds,
-- and not INSERT … ON CONFLICT DO UPDATE for all: measured 54 ms per 5000-row batch of new keys
-- with ON CONFLICT, ~43 ms this way (a speculative insertion costs an extra index probe and WAL
-- record per row, and a nightly file is mostly new keys). Concurrency stays safe: if another
-- session inserts one of our "new" keys first, the INSERT fails with unique_violation (23505),
-- which the staging retry treats as transient: the batch rolls back and is run again, and then
-- sees the key and updates it. The UPDATE decides on the row as it is when locked (s), as
-- ON CONFLICT did. New keys are inserted in batch order (ORDER BY ord): stage_ids follow the file.
CREATE OR REPLACE FUNCTION order_loader_stage_batch(
  p_source_key text[], p_customer_id bigint[], p_order_date date[], p_amount numeric[],
  p_currency text[], p_line_no bigint[], p_parse_code text[], p_parse_message text[],
  p_load_id bigint)
RETURNS TABLE (inserted integer, updated integer, unchanged integer, unchanged_error integer,
               repeated_in_load integer, written integer)
LANGUAGE sql
SET enable_hashjoin = off
SET enable_mergejoin = off
SET enable_seqscan = off
AS $$
  WITH input AS (
    SELECT *
      FROM unnest(p_source_key, p_customer_id, p_order_date, p_amount, p_currency,
                  p_line_no, p_parse_code, p_parse_message) WITH ORDINALITY
        AS t(source_key, customer_id, order_date, amount, currency, line_no, parse_code, parse_message, ord)
  ),
  prior AS (
    SELECT i.*,
           s.stage_id,
           s.stage_id IS NULL AS is_new,
           s.stage_id IS NOT NULL
             AND i.parse_code IS NULL
             AND (s.customer_id, s.order_date, s.amount, s.currency)
                 IS NOT DISTINCT FROM (i.customer_id, i.order_date, i.amount, i.currency)
             AND NOT (s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%') AS identical,
           s.process_status,
           s.load_id IS NOT DISTINCT FROM p_load_id AS repeated
      FROM input i
      LEFT JOIN order_stage s ON s.source_key = i.source_key
  ),
  ins AS (
    INSERT INTO order_stage
           (source_key, customer_id, order_date, amount, currency,
            process_status, error_code, error_message, load_id, line_no)
    SELECT p.source_key, p.customer_id, p.order_date, p.amount, p.currency,
           CASE WHEN p.parse_code IS NULL THEN 'READY' ELSE 'ERROR' END,
           p.parse_code, p.parse_message, p_load_id, p.line_no
      FROM prior p
     WHERE p.is_new
     ORDER BY p.ord  -- stage_ids in batch order, whatever join the planner chose for prior
    RETURNING 1
  ),
  upd AS (
    UPDATE order_stage s
       SET customer_id     = p.customer_id,
           order_date      = p.order_date,
           amount          = p.amount,
           currency        = p.currency,
           process_status  = CASE WHEN s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
                                    OR p.parse_code IS NOT NULL
                                    OR (s.customer_id, s.order_date, s.amount, s.currency)
                                       IS DISTINCT FROM (p.customer_id, p.order_date, p.amount, p.currency)
                                  THEN CASE WHEN p.parse_code IS NULL THEN 'READY' ELSE 'ERROR' END
                                  ELSE s.process_status END,
           error_code      = CASE WHEN s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
                                    OR p.parse_code IS NOT NULL
                                    OR (s.customer_id, s.order_date, s.amount, s.currency)
                                       IS DISTINCT FROM (p.customer_id, p.order_date, p.amount, p.currency)
                                  THEN p.parse_code ELSE s.error_code END,
           error_message   = CASE WHEN s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
                                    OR p.parse_code IS NOT NULL
                                    OR (s.customer_id, s.order_date, s.amount, s.currency)
                                       IS DISTINCT FROM (p.customer_id, p.order_date, p.amount, p.currency)
                                  THEN p.parse_message ELSE s.error_message END,
           next_attempt_at = CASE WHEN s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
                                    OR p.parse_code IS NOT NULL
                                    OR (s.customer_id, s.order_date, s.amount, s.currency)
                                       IS DISTINCT FROM (p.customer_id, p.order_date, p.amount, p.currency)
                                  THEN NULL ELSE s.next_attempt_at END,
           load_id         = p_load_id,
           line_no         = p.line_no,
           updated_at      = now()
      FROM prior p
     WHERE s.stage_id = p.stage_id
       AND (s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
         OR p.parse_code IS NOT NULL
         OR (s.customer_id, s.order_date, s.amount, s.currency)
            IS DISTINCT FROM (p.customer_id, p.order_date, p.amount, p.currency)
         OR (s.process_status <> 'DONE' AND s.load_id IS DISTINCT FROM p_load_id))
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

-- order_loader_finalize_done / order_loader_finalize_failed: the chunk's final statuses
-- (queries/finalize_done.sql and finalize_failed.sql call them), with their plans pinned.
--
-- Why: planned with the bound arrays and no statistics, `stage_id = ANY (2000 ids)` was a Seq
-- Scan of the whole stage table up to a few hundred thousand rows (19 ms per chunk at 200k
-- rows, growing with the table) before the planner switched to the primary key. Rows are
-- always looked up by primary key here; the SET clauses keep it that way.
CREATE OR REPLACE FUNCTION order_loader_finalize_done(p_ids bigint[], p_batch_id text)
RETURNS void
LANGUAGE sql
SET enable_seqscan = off
SET enable_hashjoin = off
SET enable_mergejoin = off
AS $$
  UPDATE order_stage
     SET process_status  = 'DONE',
         attempt_count   = attempt_count + 1,
         batch_id        = p_batch_id,
         processed_at    = now(),
         updated_at      = now(),
         error_code      = NULL,
         error_message   = NULL,
         next_attempt_at = NULL
   WHERE stage_id = ANY (p_ids);
$$;

CREATE OR REPLACE FUNCTION order_loader_finalize_failed(
  p_stage_id bigint[], p_status text[], p_attempt_no integer[], p_phase text[], p_code text[],
  p_message text[], p_next_attempt_at timestamptz[], p_load_id bigint[], p_line_no bigint[],
  p_batch_id text)
RETURNS void
LANGUAGE sql
SET enable_seqscan = off
SET enable_hashjoin = off
SET enable_mergejoin = off
AS $$
  WITH f AS (
    SELECT *
      FROM unnest(p_stage_id, p_status, p_attempt_no, p_phase, p_code, p_message,
                  p_next_attempt_at, p_load_id, p_line_no)
        AS t(stage_id, status, attempt_no, phase, code, message, next_attempt_at, load_id, line_no)
  ),
  upd AS (
    UPDATE order_stage s
       SET process_status  = f.status,
           attempt_count   = f.attempt_no,
           batch_id        = p_batch_id,
           processed_at    = now(),
           updated_at      = now(),
           error_code      = f.code,
           error_message   = left(f.message, 1000),
           next_attempt_at = f.next_attempt_at
      FROM f
     WHERE s.stage_id = f.stage_id
    RETURNING s.stage_id, s.source_key
  )
  INSERT INTO order_bulk_error
         (stage_id, source_key, load_id, line_no, batch_id, attempt_no, phase, error_code, error_message)
  SELECT f.stage_id, upd.source_key, f.load_id, f.line_no, p_batch_id, f.attempt_no, f.phase, f.code,
         left(f.message, 1000)
    FROM f JOIN upd ON upd.stage_id = f.stage_id;
$$;
