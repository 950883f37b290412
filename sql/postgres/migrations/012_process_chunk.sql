-- order_loader_process_chunk: one chunk of processing in one call.
--
-- What it does, in the caller's transaction (one chunk, one transaction, as before):
--  1. claims up to p_limit rows after the keyset position p_after (order_loader_claim: READY or
--     due RETRY_WAIT, FOR UPDATE SKIP LOCKED, stage_id order);
--  2. takes the rows whose typed values plainly meet the business rules (below) to the MERGE
--     (order_loader_merge_chunk: blocks of p_block rows, a refused row isolated and returned);
--  3. marks the merged ones DONE (order_loader_finalize_done, stamped p_batch_id);
--  4. returns what only the client decides: every other claimed row, with its values as
--     queries/claim.sql returns them ('check': src/input/order-record.ts, validateOrder, is the
--     one judge of the business rules and of the error's code and message), each row the MERGE
--     refused with its values and the database's SQLSTATE and message ('failed': the client
--     classifies it, ERROR or RETRY_WAIT, and writes its status and error-log row in the same
--     transaction), and counts ('claimed': rows claimed, with the last stage_id; 'merged': rows
--     the MERGE took; 'load': rows claimed per load).
--
-- The plain rules are a subset of validateOrder's, on the values as order_stage stores them:
-- customer_id a positive integer; order_date from 1900-01-01 (validateOrder reads the date as
-- YYYY-MM-DD text: a year of five digits, a date BC or 'infinity' is not such a date); amount zero
-- or more and not NaN (numeric(18,2) holds at most 16 digits before the point, the limit
-- validateOrder checks); currency three letters A-Z. A row that meets them is one validateOrder
-- passes (test/integration/process-in-database.test.ts compares both on edge values); a row that
-- does not is sent back for validateOrder to judge, and one it passes after all is merged by the
-- client (`ProcessChunk` in src/pipeline/process.ts), so the subset may be narrower than the
-- rules, never wider.
--
-- Why: before, every claimed row travelled to the client (ten columns as text), was judged
-- there, and its stage_id travelled back twice (the MERGE's and the DONE update's arrays). That
-- was most of the client's CPU while processing (rows parsed by node-postgres, objects made,
-- validateOrder, arrays formatted: about 8 of 10 s of Node CPU for 1M rows) and a third of the
-- round trips of a chunk. Measured in bench/RESULTS.md, run 18.
--
-- The plan settings of the functions it calls are theirs (SET clauses on each); this one's own
-- statements read order_stage by primary key only.
CREATE OR REPLACE FUNCTION order_loader_process_chunk(
  p_after bigint, p_limit integer, p_load_ids bigint[], p_block integer, p_row_level text[],
  p_batch_id text)
RETURNS TABLE (kind text, stage_id bigint, source_key text, customer_id text, order_date text,
               amount text, currency text, attempt_count integer, transient_failures integer,
               load_id bigint, line_no bigint, n integer, failed_sqlstate text,
               failed_message text)
LANGUAGE plpgsql
SET enable_seqscan = off
SET enable_hashjoin = off
SET enable_mergejoin = off
AS $$
#variable_conflict use_column
DECLARE
  v_claimed  integer;
  v_last     bigint;
  v_plain    bigint[];
  v_check    bigint[];
  v_loads    bigint[];
  v_counts   integer[];
  v_failed   bigint[] := '{}';
  v_states   text[] := '{}';
  v_messages text[] := '{}';
BEGIN
  WITH c AS MATERIALIZED (
    SELECT s.stage_id, s.load_id,
           coalesce(s.customer_id > 0
                    AND s.order_date >= DATE '1900-01-01' AND s.order_date <= DATE '9999-12-31'
                    AND s.amount >= 0 AND s.amount < 1e16
                    AND s.currency::text COLLATE "C" ~ '^[A-Z]{3}$', false) AS plain
      FROM order_loader_claim(p_after, p_limit, p_load_ids) s
  ),
  g AS (
    SELECT c.load_id, count(*)::integer AS cnt FROM c GROUP BY c.load_id
  )
  SELECT (SELECT count(*)::integer FROM c),
         (SELECT max(c.stage_id) FROM c),
         (SELECT coalesce(array_agg(c.stage_id ORDER BY c.stage_id), '{}') FROM c WHERE c.plain),
         (SELECT coalesce(array_agg(c.stage_id ORDER BY c.stage_id), '{}') FROM c WHERE NOT c.plain),
         (SELECT array_agg(g.load_id) FROM g),
         (SELECT array_agg(g.cnt) FROM g)
    INTO v_claimed, v_last, v_plain, v_check, v_loads, v_counts;
  IF v_claimed = 0 THEN
    RETURN;
  END IF;

  IF cardinality(v_plain) > 0 THEN
    SELECT coalesce(array_agg(f.failed_stage_id), '{}'),
           coalesce(array_agg(f.failed_sqlstate), '{}'),
           coalesce(array_agg(f.failed_message), '{}')
      INTO v_failed, v_states, v_messages
      FROM order_loader_merge_chunk(v_plain, p_block, p_row_level) f;
    PERFORM order_loader_finalize_done(
      CASE WHEN cardinality(v_failed) = 0 THEN v_plain
           ELSE ARRAY(SELECT x FROM unnest(v_plain) AS x WHERE x <> ALL (v_failed)) END,
      p_batch_id);
  END IF;

  RETURN QUERY SELECT 'claimed'::text, v_last, NULL::text, NULL::text, NULL::text, NULL::text,
                      NULL::text, NULL::integer, NULL::integer, NULL::bigint, NULL::bigint,
                      v_claimed, NULL::text, NULL::text;
  RETURN QUERY SELECT 'merged'::text, NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::text,
                      NULL::text, NULL::integer, NULL::integer, NULL::bigint, NULL::bigint,
                      cardinality(v_plain), NULL::text, NULL::text;
  RETURN QUERY SELECT 'load'::text, NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::text,
                      NULL::text, NULL::integer, NULL::integer, l.load_id, NULL::bigint, l.cnt,
                      NULL::text, NULL::text
                 FROM unnest(v_loads, v_counts) AS l(load_id, cnt);
  RETURN QUERY SELECT 'check'::text, s.stage_id, s.source_key::text, s.customer_id::text,
                      to_char(s.order_date, 'YYYY-MM-DD')
                        || CASE WHEN s.order_date < DATE '0001-01-01' THEN ' BC' ELSE '' END,
                      s.amount::text, s.currency::text,
                      s.attempt_count, s.transient_failures, s.load_id, s.line_no,
                      NULL::integer, NULL::text, NULL::text
                 FROM order_stage s
                WHERE s.stage_id = ANY (v_check)
                ORDER BY s.stage_id;
  RETURN QUERY SELECT 'failed'::text, s.stage_id, s.source_key::text, s.customer_id::text,
                      to_char(s.order_date, 'YYYY-MM-DD')
                        || CASE WHEN s.order_date < DATE '0001-01-01' THEN ' BC' ELSE '' END,
                      s.amount::text, s.currency::text,
                      s.attempt_count, s.transient_failures, s.load_id, s.line_no,
                      NULL::integer, f.sqlstate, f.message
                 FROM unnest(v_failed, v_states, v_messages) AS f(id, sqlstate, message)
                 JOIN order_stage s ON s.stage_id = f.id
                ORDER BY s.stage_id;
END;
$$;
