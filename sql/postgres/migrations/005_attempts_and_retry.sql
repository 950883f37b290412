-- Attempt counts that mean "attempts at these values", and an index for the operator's retry.
--
-- order_loader_stage_batch: as in 003 (the rules and the pinned plan are described there), and a
-- row whose values change (a correction of an ERROR row, an amendment of a DONE row, a line that
-- parses now) starts again at attempt_count 0. --max-attempts bounds the transient failures of
-- one version of a row: with the count kept across versions, an order amended four times went
-- to ERROR on its first transient failure ("gave up after 5 attempts"). The error log keeps every
-- earlier attempt (its attempt_no counts within the version, its load_id tells the versions
-- apart). An operator's `retry` resets the count too (queries/apply_manual_changes.sql).

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
           attempt_count   = CASE WHEN s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
                                    OR p.parse_code IS NOT NULL
                                    OR (s.customer_id, s.order_date, s.amount, s.currency)
                                       IS DISTINCT FROM (p.customer_id, p.order_date, p.amount, p.currency)
                                  THEN 0 ELSE s.attempt_count END,
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

-- `retry` and the `errors` export walk the ERROR rows in stage_id order, one bounded batch or
-- page at a time (keyset: stage_id > the end of the one before). Without this index each batch
-- scanned the primary key from the cursor past the DONE rows until it had found enough ERROR
-- rows, and a page filtered by load sorted all of the load's remaining ERROR rows to keep the
-- first ones. Partial: only ERROR rows are in it, so staging and the processing of rows that
-- end DONE never touch it.
CREATE INDEX IF NOT EXISTS ix_order_stage_error ON order_stage (stage_id)
  WHERE process_status = 'ERROR';
