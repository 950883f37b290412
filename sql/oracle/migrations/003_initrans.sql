-- INITRANS 3 on the tables a SERIALIZABLE transaction writes: the staging batch
-- (queries/stage_batch_serializable.sql) inserts and updates order_stage, logs its rejected
-- lines in order_bulk_error and its checkpoint in load_run_event, all in that transaction.
-- Oracle documents INITRANS >= 3 for tables that serializable transactions write (Database
-- Concepts, "Serializable Isolation Level"; Database Development Guide): with fewer
-- transaction slots in a block, a serializable transaction can fail with ORA-08177 although
-- no row it read was changed. The default INITRANS of a table is 1.
--
-- ALTER TABLE ... INITRANS applies to blocks formatted from now on; blocks already holding
-- rows keep the value they were formatted with until the table is moved (ALTER TABLE ... MOVE,
-- a DBA's choice: it rebuilds the indexes). A new database gets 3 everywhere. The global
-- temporary table order_stage_batch is private to its session and is left as it is.
-- A new migration, not an edit of 001: databases that applied 001 keep its text.
ALTER TABLE order_stage INITRANS 3
/
ALTER TABLE order_bulk_error INITRANS 3
/
ALTER TABLE load_run_event INITRANS 3
