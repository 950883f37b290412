-- attributes: the other columns of a file read through a load profile with `extra: keep` (or a
-- list of column names), kept with the row ("nothing in the file dropped"): one JSON
-- object of column name -> text, written by the loader in canonical form
-- (src/input/profile/attributes.ts). NULL when a row has none: the built-in format's rows.
--
-- jsonb, not text: the value is checked to be JSON when it is written; it compares by value
-- (key order and spacing do not matter), so the staging rule and the MERGE below see a reload of
-- the same attributes as unchanged whichever way they were written (an `errors` export loaded
-- back writes its columns in another order); and it can be queried and indexed
-- (attributes->>'Region', a GIN index) by whoever reads orders. PGlite is PostgreSQL: the same
-- type and operators. Its cost is where there are attributes: a row without them stores and
-- compares a NULL. Adding a nullable column without a default rewrites nothing (catalog only),
-- whatever the tables' sizes.
ALTER TABLE order_stage ADD COLUMN IF NOT EXISTS attributes jsonb;
ALTER TABLE orders ADD COLUMN IF NOT EXISTS attributes jsonb;

-- order_loader_stage_batch: as in 007 (the rules and the pinned plan are described in 003), with
-- the rows' attributes (p_attributes, JSON text, cast here: the drivers bind a text array alike)
-- inserted, updated, and part of the comparison that decides updated / unchanged: a reload whose
-- only change is an attribute is a change (READY again, merged again); identical attributes
-- (IS NOT DISTINCT FROM: NULL equals NULL) leave the row unchanged. A new argument is a new
-- signature: the function of 007 is dropped, so that a call without attributes fails instead
-- of clearing them.
DROP FUNCTION IF EXISTS order_loader_stage_batch(
  text[], bigint[], date[], numeric[], text[], bigint[], text[], text[], bigint);

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

-- order_loader_merge_ids: as in 002, with attributes: written by the MERGE, and part of the
-- comparison that decides whether a matched order is updated (IS DISTINCT FROM: a changed
-- attribute updates the order, identical ones leave it, and its updated_at, as they were).
CREATE OR REPLACE FUNCTION order_loader_merge_ids(p_ids bigint[])
RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
  MERGE INTO orders o
  USING (
    SELECT s.source_key, s.customer_id, s.order_date, s.amount, s.currency, s.attributes
      FROM order_stage s
     WHERE s.stage_id = ANY (p_ids)
  ) src
  ON o.source_key = src.source_key
  WHEN MATCHED AND (o.customer_id, o.order_date, o.amount, o.currency, o.attributes)
                   IS DISTINCT FROM (src.customer_id, src.order_date, src.amount, src.currency, src.attributes) THEN
    UPDATE SET customer_id = src.customer_id,
               order_date  = src.order_date,
               amount      = src.amount,
               currency    = src.currency,
               attributes  = src.attributes,
               updated_at  = now()
  WHEN NOT MATCHED THEN
    INSERT (source_key, customer_id, order_date, amount, currency, attributes)
    VALUES (src.source_key, src.customer_id, src.order_date, src.amount, src.currency, src.attributes);
END;
$$;
