-- Upsert one staging batch into order_stage by source_key (DESIGN.md rule 1).
-- $1..$8: the batch as column arrays (one bind per column, not per row); $9: load_id.
--   new key                      → inserted, READY (ERROR when the line failed parsing)
--   values changed, or re-parsed → updated, READY again; attempt_count kept
--   values identical             → untouched; when the row is not DONE, load_id/line_no move to
--                                  this load so that the load's outcome counts it
-- The result row counts the batch by what it found *before* the statement (prior snapshot);
-- a key that an earlier batch of the same load staged counts as repeated_in_load only.
WITH input AS (
  SELECT *
    FROM unnest($1::text[], $2::bigint[], $3::date[], $4::numeric[], $5::text[],
                $6::bigint[], $7::text[], $8::text[])
      AS t(source_key, customer_id, order_date, amount, currency, line_no, parse_code, parse_message)
),
prior AS (
  SELECT s.stage_id IS NULL AS is_new,
         s.stage_id IS NOT NULL
           AND i.parse_code IS NULL
           AND (s.customer_id, s.order_date, s.amount, s.currency)
               IS NOT DISTINCT FROM (i.customer_id, i.order_date, i.amount, i.currency)
           AND NOT (s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%') AS identical,
         s.process_status,
         s.load_id IS NOT DISTINCT FROM $9::bigint AS repeated
    FROM input i
    LEFT JOIN order_stage s ON s.source_key = i.source_key
),
upsert AS (
  INSERT INTO order_stage AS s
         (source_key, customer_id, order_date, amount, currency,
          process_status, error_code, error_message, load_id, line_no)
  SELECT i.source_key, i.customer_id, i.order_date, i.amount, i.currency,
         CASE WHEN i.parse_code IS NULL THEN 'READY' ELSE 'ERROR' END,
         i.parse_code, i.parse_message, $9::bigint, i.line_no
    FROM input i
  ON CONFLICT (source_key) DO UPDATE SET
         customer_id     = EXCLUDED.customer_id,
         order_date      = EXCLUDED.order_date,
         amount          = EXCLUDED.amount,
         currency        = EXCLUDED.currency,
         process_status  = CASE WHEN s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
                                  OR EXCLUDED.error_code IS NOT NULL
                                  OR (s.customer_id, s.order_date, s.amount, s.currency)
                                     IS DISTINCT FROM (EXCLUDED.customer_id, EXCLUDED.order_date,
                                                       EXCLUDED.amount, EXCLUDED.currency)
                                THEN EXCLUDED.process_status ELSE s.process_status END,
         error_code      = CASE WHEN s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
                                  OR EXCLUDED.error_code IS NOT NULL
                                  OR (s.customer_id, s.order_date, s.amount, s.currency)
                                     IS DISTINCT FROM (EXCLUDED.customer_id, EXCLUDED.order_date,
                                                       EXCLUDED.amount, EXCLUDED.currency)
                                THEN EXCLUDED.error_code ELSE s.error_code END,
         error_message   = CASE WHEN s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
                                  OR EXCLUDED.error_code IS NOT NULL
                                  OR (s.customer_id, s.order_date, s.amount, s.currency)
                                     IS DISTINCT FROM (EXCLUDED.customer_id, EXCLUDED.order_date,
                                                       EXCLUDED.amount, EXCLUDED.currency)
                                THEN EXCLUDED.error_message ELSE s.error_message END,
         next_attempt_at = CASE WHEN s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
                                  OR EXCLUDED.error_code IS NOT NULL
                                  OR (s.customer_id, s.order_date, s.amount, s.currency)
                                     IS DISTINCT FROM (EXCLUDED.customer_id, EXCLUDED.order_date,
                                                       EXCLUDED.amount, EXCLUDED.currency)
                                THEN NULL ELSE s.next_attempt_at END,
         load_id         = EXCLUDED.load_id,
         line_no         = EXCLUDED.line_no,
         updated_at      = now()
   WHERE s.process_status = 'ERROR' AND s.error_code LIKE 'PARSE%'
      OR EXCLUDED.error_code IS NOT NULL
      OR (s.customer_id, s.order_date, s.amount, s.currency)
         IS DISTINCT FROM (EXCLUDED.customer_id, EXCLUDED.order_date, EXCLUDED.amount, EXCLUDED.currency)
      OR (s.process_status <> 'DONE' AND s.load_id IS DISTINCT FROM EXCLUDED.load_id)
  RETURNING 1
)
SELECT count(*) FILTER (WHERE is_new)::int                                          AS inserted,
       count(*) FILTER (WHERE NOT is_new AND NOT repeated AND NOT identical)::int   AS updated,
       count(*) FILTER (WHERE NOT is_new AND NOT repeated AND identical)::int       AS unchanged,
       count(*) FILTER (WHERE NOT is_new AND NOT repeated AND identical
                          AND process_status = 'ERROR')::int                        AS unchanged_error,
       count(*) FILTER (WHERE NOT is_new AND repeated)::int                         AS repeated_in_load,
       (SELECT count(*) FROM upsert)::int                                      AS written
  FROM prior;
