-- Audited manual changes (retry, recover): new values and status, error fields cleared, and
-- one order_stage_audit row per changed row, in one statement. Column arrays $1..$13.
-- A RETRY starts the row's transient_failures again (migration 007): the operator has dealt with
-- the cause, and the row gets --max-attempts attempts with backoff. attempt_count, every
-- processing attempt, is kept by both (the audit row and the error log keep the history). A
-- RECOVER keeps transient_failures too: the attempt of the process that died never finished.
WITH c AS (
  SELECT *
    FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[],
                $7::date[], $8::numeric[], $9::text[], $10::text[], $11::text[], $12::text[],
                $13::text[])
      AS t(stage_id, action, old_status, new_status, source_key, customer_id, order_date,
           amount, currency, old_values, new_values, operator, reason)
),
upd AS (
  UPDATE order_stage s
     SET process_status     = c.new_status,
         customer_id        = c.customer_id,
         order_date         = c.order_date,
         amount             = c.amount,
         currency           = c.currency,
         error_code         = NULL,
         error_message      = NULL,
         next_attempt_at    = NULL,
         transient_failures = CASE WHEN c.action = 'RETRY' THEN 0 ELSE s.transient_failures END,
         updated_at         = now()
    FROM c
   WHERE s.stage_id = c.stage_id
  RETURNING s.stage_id
)
INSERT INTO order_stage_audit
       (stage_id, source_key, action, old_status, new_status, old_values, new_values, operator, reason)
SELECT c.stage_id, c.source_key, c.action, c.old_status, c.new_status, c.old_values, c.new_values,
       c.operator, c.reason
  FROM c JOIN upd ON upd.stage_id = c.stage_id;
