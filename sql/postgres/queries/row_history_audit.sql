-- Every audit row of one stage row, oldest first (ix_order_stage_audit_stage). $1 stage_id.
SELECT audit_id, action, old_status, new_status, old_values, new_values, operator, reason, at
  FROM order_stage_audit
 WHERE stage_id = $1
 ORDER BY audit_id;
