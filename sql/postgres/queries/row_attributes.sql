-- The stored attributes of the rows a `retry` corrects some of (retry --set attributes.NAME=value),
-- read in its batch's transaction after the rows were locked: $1 stage_ids.
SELECT stage_id, attributes::text AS attributes
  FROM order_stage
 WHERE stage_id = ANY ($1::bigint[]);
