-- Audited manual change, step 2 of 2: one order_stage_audit row per change, array-bound
-- (executeMany) after apply_manual_changes.sql in the same transaction. INSERT ... SELECT
-- from the stage row: a change whose stage_id matches no row (so step 1 updated nothing)
-- writes no audit row, as on PostgreSQL (the audit INSERT joins the UPDATE's RETURNING).
-- :old_values / :new_values are JSON text, bound as VARCHAR2 (every value of the call up to
-- 4000 bytes) or as CLOB.
INSERT INTO order_stage_audit
       (stage_id, source_key, action, old_status, new_status, old_values, new_values,
        operator, reason)
SELECT s.stage_id, :source_key, :action, :old_status, :new_status, :old_values, :new_values,
       :operator, :reason
  FROM order_stage s
 WHERE s.stage_id = :stage_id
