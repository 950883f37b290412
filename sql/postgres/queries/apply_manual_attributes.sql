-- Audited manual changes that correct a row's attributes (retry --set attributes.NAME=value, the
-- review page), after apply_manual_changes.sql in the same transaction, which holds the rows
-- locked and writes their audit rows (old and new attributes among the values): $1 stage_ids,
-- $2 the rows' whole attributes after the change, canonical JSON text (NULL: none left).
UPDATE order_stage s
   SET attributes = c.attributes::jsonb
  FROM unnest($1::bigint[], $2::text[]) AS c(stage_id, attributes)
 WHERE s.stage_id = c.stage_id;
