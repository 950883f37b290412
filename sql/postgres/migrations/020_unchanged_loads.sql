-- order_stage_unchanged: per key, the latest load that staged a line of it identical to its
-- stage row of another load (the lines order_loader_stage_batch counts unchanged).
--
-- Load order is the order in which loads begin, and a resumed load leaves out its lines of the
-- keys a load begun after it staged (src/pipeline/stage-batch.ts, yieldToLaterLoads;
-- queries/later_load_keys.sql). Staging leaves a DONE row whose values a line repeats untouched,
-- load_id included (it keeps the load whose line made it DONE, whose tally and reports count it):
-- before this table nothing said that a later load had the key, and a load killed before its line
-- of the key, resumed after that later load, staged its earlier line over it
-- (test/survival/resumed-load-identical-done.test.ts). later_load_keys.sql reads this table too.
--
-- A table beside order_stage rather than a column of it: recording writes no order_stage row, so
-- the row stays as it was in every respect (no new row version, no row lock, and a site's CHECK
-- or trigger on order_stage is not run for a row whose values did not change); the rule of 013
-- for the row itself is unchanged: status, values, attempt_count, load_id, line_no, updated_at,
-- not processed again, counted unchanged. Every unchanged line is recorded, not only those of
-- DONE rows: which rows are DONE is read in the statement's snapshot, and processing beside
-- staging may make a row DONE after it (the row then keeps its load, upd's recheck skipping it);
-- for a row that is not DONE the record repeats what load_id says. A record only moves to a later
-- load (a repeat by the same or an earlier load writes nothing); rows are never deleted: one per
-- key ever staged unchanged, a fact that stays true. No row for existing keys: a load that staged
-- an identical line before this migration left no record, and a load begun before it, killed and
-- resumed after the migration, still stages over that line. fillfactor 80: a record moving to a
-- later load can stay on its page.
--
-- Cost: one index probe and, unless the record already names this load or a later one, one row
-- written per unchanged line; new and changed lines write nothing more. Measured (PostgreSQL 15,
-- 2 cores shared with other work, so only roughly: the function called 40 times with 5,000 lines
-- identical to DONE rows of another load, 200,000 in all, in a transaction rolled back):
-- 4.5-7.1 s with 013's function, 8.3-12.3 s recording each key for the first time, 9.7-11.5 s
-- moving the records to a later load, 7.5 s when they already name the load. End to end (the
-- CLI staging such a file of 200,000 lines) both were within the machine's noise: 8.2-12.3 s.
CREATE TABLE IF NOT EXISTS order_stage_unchanged (
  source_key varchar(100) NOT NULL,
  load_id    bigint       NOT NULL,
  CONSTRAINT pk_order_stage_unchanged PRIMARY KEY (source_key)
) WITH (fillfactor = 80);

-- order_loader_stage_batch as in 013, with the `seen` insert.
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
  ),
  -- the lines counted unchanged below: this load staged the key without writing its row (a DONE
  -- row keeps its load; any other row moves to this load in upd as well). Key order: concurrent
  -- batches lock the rows of this table in one order.
  seen AS (
    INSERT INTO order_stage_unchanged AS u (source_key, load_id)
    SELECT p.source_key, p_load_id
      FROM prior p
     WHERE p.identical AND NOT p.repeated
     ORDER BY p.source_key
    ON CONFLICT (source_key) DO UPDATE SET load_id = excluded.load_id
     WHERE u.load_id < excluded.load_id
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
