-- Claim up to $2 claimable rows after keyset position $1, locking them for this chunk's
-- transaction. SKIP LOCKED: rows another worker holds are passed over, never waited for.
-- $3: optional array of load_ids to restrict to (NULL = any load).
--
-- Keyset cursor (stage_id > last) over the partial index ix_order_stage_claimable: each chunk
-- starts where the previous one ended, so rows already DONE/ERROR are never rescanned. A plain
-- `ORDER BY stage_id LIMIT n` without a cursor rescans the dead index entries of every finished
-- chunk and goes quadratic.
-- The SELECT … FOR UPDATE SKIP LOCKED itself lives in order_loader_claim (migration 003) so that
-- its plan can be pinned: measured 520-550 ms per claim at 1M rows as a plain statement without
-- statistics (bitmap scan + sort of all claimable rows), 2-5 ms pinned to the ordered index scan.
SELECT stage_id,
       source_key,
       customer_id::text AS customer_id,
       -- a date BC (only an operator's SQL can store one) keeps its era: validateOrder refuses it
       to_char(order_date, 'YYYY-MM-DD') || CASE WHEN order_date < DATE '0001-01-01' THEN ' BC' ELSE '' END AS order_date,
       amount::text AS amount,
       currency,
       attempt_count,
       transient_failures,
       load_id,
       line_no
  FROM order_loader_claim($1::bigint, $2::integer, $3::bigint[]);
