-- order_loader_process_chunk (as in 012), with the rows the MERGE refused for good written
-- ERROR here instead of in the client (target: an all-failing file at most 2 × a
-- clean one).
--
-- New argument p_transient: the SQLSTATEs the client classifies as transient
-- (TRANSIENT_SQLSTATES in src/engine/postgres/classify.ts; the function has no copy of its own,
-- as p_row_level). A row the MERGE refused with any other row-level SQLSTATE is one the client
-- would have written ERROR with nothing of its own to decide (mergeFailureOutcome in
-- src/pipeline/process.ts: attempt_count + 1, transient_failures unchanged, no next attempt,
-- the error log's phase MERGE with the database's SQLSTATE and message): the same
-- order_loader_finalize_failed call writes it here, in the same transaction, and only its count
-- comes back (kind 'rejected'). A row refused with a transient SQLSTATE still goes back as
-- 'failed' (RETRY_WAIT with a backoff, or ERROR after --max-attempts: the client's rules).
--
-- Why: each refused row travelled to the client as ten text columns, became an outcome there,
-- and went back as ten arrays: about 3 s of the client's CPU for a 300,000-row file whose every
-- amount overflows, and as long in the server's parsing of those arrays; the all-failing file was
-- 2.0-2.3 × a clean one (bench/RESULTS.md, run 20). Measured after: run 21.
--
-- A new argument is a new signature: the function of 012 is dropped, so a caller with the old
-- arguments fails instead of leaving refused rows unwritten.
DROP FUNCTION IF EXISTS order_loader_process_chunk(bigint, integer, bigint[], integer, text[], text);

CREATE OR REPLACE FUNCTION order_loader_process_chunk(
  p_after bigint, p_limit integer, p_load_ids bigint[], p_block integer, p_row_level text[],
  p_batch_id text, p_transient text[])
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
  v_rejected integer := 0;
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
    -- refused for good: ERROR and an error-log row, as the client's mergeFailureOutcome would
    -- write them (see above); the transient ones stay in v_failed for the client
    SELECT count(*)::integer INTO v_rejected
      FROM unnest(v_states) AS f(sqlstate)
     WHERE f.sqlstate <> ALL (coalesce(p_transient, '{}'));
    IF v_rejected > 0 THEN
      PERFORM order_loader_finalize_failed(
        array_agg(s.stage_id ORDER BY s.stage_id), array_agg('ERROR'::text ORDER BY s.stage_id),
        array_agg(s.attempt_count + 1 ORDER BY s.stage_id),
        array_agg(s.transient_failures ORDER BY s.stage_id), array_agg('MERGE'::text ORDER BY s.stage_id),
        array_agg(f.sqlstate ORDER BY s.stage_id), array_agg(f.message ORDER BY s.stage_id),
        array_agg(NULL::timestamptz ORDER BY s.stage_id), array_agg(s.load_id ORDER BY s.stage_id),
        array_agg(s.line_no ORDER BY s.stage_id), p_batch_id)
        FROM unnest(v_failed, v_states, v_messages) AS f(id, sqlstate, message)
        JOIN order_stage s ON s.stage_id = f.id
       WHERE f.sqlstate <> ALL (coalesce(p_transient, '{}'));
    END IF;
  END IF;

  RETURN QUERY SELECT 'claimed'::text, v_last, NULL::text, NULL::text, NULL::text, NULL::text,
                      NULL::text, NULL::integer, NULL::integer, NULL::bigint, NULL::bigint,
                      v_claimed, NULL::text, NULL::text;
  RETURN QUERY SELECT 'merged'::text, NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::text,
                      NULL::text, NULL::integer, NULL::integer, NULL::bigint, NULL::bigint,
                      cardinality(v_plain), NULL::text, NULL::text;
  RETURN QUERY SELECT 'rejected'::text, NULL::bigint, NULL::text, NULL::text, NULL::text, NULL::text,
                      NULL::text, NULL::integer, NULL::integer, NULL::bigint, NULL::bigint,
                      v_rejected, NULL::text, NULL::text;
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
                WHERE f.sqlstate = ANY (coalesce(p_transient, '{}'))
                ORDER BY s.stage_id;
END;
$$;
