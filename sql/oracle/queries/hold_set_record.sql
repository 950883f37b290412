-- A run whose files repeat keys records its set before its first hold (migration 011; the
-- PostgreSQL twin is sql/postgres/queries/hold_set_record.sql): executeMany, one iteration per
-- file, load_id set only for the file whose run starts now.
INSERT INTO load_hold_set (set_id, file_no, file_name, load_id)
VALUES (:set_id, :file_no, :file_name, :load_id)
