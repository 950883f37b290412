-- Insert one new key of the staging batch into order_stage, array-bound with
-- connection.executeMany (batchErrors: true), one iteration per row of the batch in line
-- order: array DML runs its iterations in bind order, so the identity column numbers the new
-- rows in the order of their lines, as on PostgreSQL. A key order_stage already holds (updated
-- by stage_batch_update.sql) inserts nothing. The statement's rowsAffected is the batch's
-- "inserted" count (added to the direct insert's); its values come from order_stage_batch,
-- already converted. Not sent when stage_batch_counts.sql found every key staged already.
-- A new key is mostly inserted by stage_batch_direct.sql; it comes here when the direct insert
-- was skipped (DirectInsertPolicy) or refused its line for another reason than the key.
-- The hints: the batch row by its primary key and order_stage by its unique index on
-- source_key, whatever the optimizer guesses for a global temporary table without statistics
-- (stage_batch_update.sql says why).
INSERT INTO order_stage
       (source_key, customer_id, order_date, amount, currency,
        process_status, error_code, error_message, load_id, line_no, attributes)
SELECT /*+ INDEX(i pk_order_stage_batch) */
       i.source_key, i.customer_id, i.order_date, i.amount, i.currency,
       CASE WHEN i.parse_code IS NULL THEN 'READY' ELSE 'ERROR' END,
       i.parse_code, i.parse_message, :load_id, i.line_no, i.attributes
  FROM order_stage_batch i
 WHERE i.source_key = :source_key
   AND NOT EXISTS (SELECT /*+ INDEX(s uq_order_stage_source) */ 1 FROM order_stage s WHERE s.source_key = i.source_key)
