-- Audited manual changes that correct a row's attributes (sql/postgres/queries/apply_manual_attributes.sql):
-- after apply_manual_changes.sql in the same transaction, array-bound (executeMany, one
-- iteration per change). :attributes is the row's whole attributes after the change, canonical
-- JSON text or NULL, bound as VARCHAR2 while it fits, as a CLOB past it (Binds.longText).
UPDATE order_stage
   SET attributes = :attributes
 WHERE stage_id = :stage_id
