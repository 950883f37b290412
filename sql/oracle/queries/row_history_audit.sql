-- Every audit row of the stage row :stage_id, oldest first (ix_order_stage_audit_stage;
-- sql/postgres/queries/row_history_audit.sql).
SELECT a.audit_id, a.action, a.old_status, a.new_status, a.old_values, a.new_values, a.operator,
       a.reason, TO_CHAR(SYS_EXTRACT_UTC(a.at), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS audited_at
  FROM order_stage_audit a
 WHERE a.stage_id = :stage_id
 ORDER BY a.audit_id
