-- attempt_count counts every processing attempt again; --max-attempts bounds a new count.
--
-- Why: since migration 005 a row whose values changed (or that an operator retried) started
-- again at attempt_count 0, so the seed's corrected rows SRC-102 and SRC-103 ended at 1 where
-- the seed says 2: attempt_count is the number of times a row was processed, never reset. What
-- 005 wanted (an order amended four times must not go to ERROR on its first transient failure)
-- is kept with a separate column: transient_failures, the transient failures since the row's
-- values last changed or an operator last retried it. --max-attempts compares against it; it is
-- reset where 005 reset attempt_count, and attempt_count is reset nowhere. The error log's
-- attempt_no is attempt_count at that attempt.
--
-- Existing rows:
-- * transient_failures starts at 0, except for rows waiting in RETRY_WAIT: under 005 every
--   attempt counted in their attempt_count since its last reset was a transient failure (any
--   other outcome leaves RETRY_WAIT), so that count is their transient_failures.
-- * attempt_count of a row that 005 reset lost the attempts before the reset. Every failed
--   processing attempt left one error-log row (phase VALIDATE or MERGE) and a DONE row had at
--   least one more, so attempt_count is raised to that many where it is lower (a lower bound:
--   the successes before an amendment left no trace). Only rows with such error-log rows are
--   read. The error log's own attempt_no values are history and stay as written.

ALTER TABLE order_stage ADD COLUMN IF NOT EXISTS transient_failures integer NOT NULL DEFAULT 0;

UPDATE order_stage
   SET transient_failures = attempt_count
 WHERE process_status = 'RETRY_WAIT';

UPDATE order_stage s
   SET attempt_count = f.failures + CASE WHEN s.process_status = 'DONE' THEN 1 ELSE 0 END
  FROM (SELECT b.stage_id, count(*)::integer AS failures
          FROM order_bulk_error b
         WHERE b.phase IN ('VALIDATE', 'MERGE')
           AND b.stage_id IS NOT NULL
         GROUP BY b.stage_id) f
 WHERE s.stage_id = f.stage_id
   AND s.attempt_count < f.failures + CASE WHEN s.process_status = 'DONE' THEN 1 ELSE 0 END;

-- order_loader_stage_batch: as in 005 (the rules and the pinned plan are described in 003), but
-- a row whose values change keeps its attempt_count and starts again at transient_failures 0.
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
       SET customer_id        = p.customer_id,
           order_date         = p.order_date,
           amount             = p.amount,
           currency           = p.currency,
           process_status     = CASE WHEN s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
                                       OR p.parse_code IS NOT NULL
                                       OR (s.customer_id, s.order_date, s.amount, s.currency)
                                          IS DISTINCT FROM (p.customer_id, p.order_date, p.amount, p.currency)
                                     THEN CASE WHEN p.parse_code IS NULL THEN 'READY' ELSE 'ERROR' END
                                     ELSE s.process_status END,
           error_code         = CASE WHEN s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
                                       OR p.parse_code IS NOT NULL
                                       OR (s.customer_id, s.order_date, s.amount, s.currency)
                                          IS DISTINCT FROM (p.customer_id, p.order_date, p.amount, p.currency)
                                     THEN p.parse_code ELSE s.error_code END,
           error_message      = CASE WHEN s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
                                       OR p.parse_code IS NOT NULL
                                       OR (s.customer_id, s.order_date, s.amount, s.currency)
                                          IS DISTINCT FROM (p.customer_id, p.order_date, p.amount, p.currency)
                                     THEN p.parse_message ELSE s.error_message END,
           next_attempt_at    = CASE WHEN s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
                                       OR p.parse_code IS NOT NULL
                                       OR (s.customer_id, s.order_date, s.amount, s.currency)
                                          IS DISTINCT FROM (p.customer_id, p.order_date, p.amount, p.currency)
                                     THEN NULL ELSE s.next_attempt_at END,
           transient_failures = CASE WHEN s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
                                       OR p.parse_code IS NOT NULL
                                       OR (s.customer_id, s.order_date, s.amount, s.currency)
                                          IS DISTINCT FROM (p.customer_id, p.order_date, p.amount, p.currency)
                                     THEN 0 ELSE s.transient_failures END,
           load_id            = p_load_id,
           line_no            = p.line_no,
           updated_at         = now()
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

-- order_loader_finalize_failed: as in 006 (linear in the failed rows), with the row's
-- transient_failures after this attempt (p_transient_failures) beside its attempt_count
-- (p_attempt_no, also the error log's attempt_no). A new argument is a new signature, so the
-- function of 006 is dropped: a call with the old arguments fails instead of leaving
-- transient_failures behind. (A bench workspace's search_path holds only its own schema, so
-- the DROP finds the workspace's function there, never the loader's.)
DROP FUNCTION IF EXISTS order_loader_finalize_failed(
  bigint[], text[], integer[], text[], text[], text[], timestamptz[], bigint[], bigint[], text);

CREATE OR REPLACE FUNCTION order_loader_finalize_failed(
  p_stage_id bigint[], p_status text[], p_attempt_no integer[], p_transient_failures integer[],
  p_phase text[], p_code text[], p_message text[], p_next_attempt_at timestamptz[],
  p_load_id bigint[], p_line_no bigint[], p_batch_id text)
RETURNS void
LANGUAGE sql
SET enable_seqscan = off
SET enable_hashjoin = off
SET enable_mergejoin = off
AS $$
  WITH f AS (
    SELECT *
      FROM unnest(p_stage_id, p_status, p_attempt_no, p_transient_failures, p_phase, p_code,
                  p_message, p_next_attempt_at, p_load_id, p_line_no)
        AS t(stage_id, status, attempt_no, transient_failures, phase, code, message,
             next_attempt_at, load_id, line_no)
  ),
  upd AS (
    UPDATE order_stage s
       SET process_status     = f.status,
           attempt_count      = f.attempt_no,
           transient_failures = f.transient_failures,
           batch_id           = p_batch_id,
           processed_at       = now(),
           updated_at         = now(),
           error_code         = f.code,
           error_message      = left(f.message, 1000),
           next_attempt_at    = f.next_attempt_at
      FROM f
     WHERE s.stage_id = f.stage_id
    RETURNING s.stage_id, s.source_key, f.load_id, f.line_no, f.attempt_no, f.phase, f.code, f.message
  )
  INSERT INTO order_bulk_error
         (stage_id, source_key, load_id, line_no, batch_id, attempt_no, phase, error_code, error_message)
  SELECT upd.stage_id, upd.source_key, upd.load_id, upd.line_no, p_batch_id, upd.attempt_no, upd.phase,
         upd.code, left(upd.message, 1000)
    FROM upd;
$$;
