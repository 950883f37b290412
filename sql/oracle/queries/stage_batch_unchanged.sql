-- Record this load for the batch's lines that stage_batch_counts.sql counts unchanged: a key
-- order_stage holds, last staged by another load, whose line is identical to its row
-- (order_stage_unchanged, migrations/015_unchanged_loads.sql; PostgreSQL records the same lines
-- in order_loader_stage_batch's `seen`, sql/postgres/migrations/020_unchanged_loads.sql). Such a
-- line leaves a DONE row as it is, load_id included; the record is what tells a resumed load
-- begun before this one that a later load staged the key (later_load_keys.sql). Every unchanged
-- line is recorded, not only those of DONE rows (processing may make a row DONE after this
-- statement read it; for a row that is not DONE the record repeats what stage_batch_update.sql
-- then writes into load_id).
--
-- In the batch's transaction after stage_batch_savepoint.sql and before stage_batch_update.sql:
-- the rows it reads are locked (stage_batch_lock.sql) and not yet updated, so it reads what the
-- counts read; when the database refuses some keys' updates, the rollback to the savepoint undoes
-- this too and it runs again with the counts, without those keys. Sent only when the counts found
-- an unchanged line (a first load, or a file of new values, sends nothing). A record only moves
-- to a later load (a repeat by the same or an earlier load writes nothing). Only staging writes
-- this table, and only for keys whose order_stage row it holds locked: two sessions never merge
-- the same key at once.
--
-- The identical test is stage_batch_counts.sql's, written the same way (DECODE: NULL equal to
-- NULL; the attributes CLOB by NULL tests, then DBMS_LOB.COMPARE). :load_id, bound once, is read
-- four times (thin mode binds a repeated name in SQL to every occurrence). The hints: the batch
-- row, then order_stage by its unique index on source_key (as the counts).
MERGE INTO order_stage_unchanged u
USING (SELECT /*+ LEADING(i s) USE_NL(s) INDEX(s uq_order_stage_source) */ i.source_key
         FROM order_stage_batch i
         JOIN order_stage s ON s.source_key = i.source_key
        WHERE i.parse_code IS NULL
          AND DECODE(s.customer_id, i.customer_id, 0, 1) = 0
          AND DECODE(s.order_date, i.order_date, 0, 1) = 0
          AND DECODE(s.amount, i.amount, 0, 1) = 0
          AND DECODE(s.currency, i.currency, 0, 1) = 0
          AND CASE WHEN s.attributes IS NULL AND i.attributes IS NULL THEN 0
                   WHEN s.attributes IS NULL OR i.attributes IS NULL THEN 1
                   WHEN DBMS_LOB.COMPARE(s.attributes, i.attributes) = 0 THEN 0
                   ELSE 1 END = 0
          AND NOT (s.process_status = 'ERROR' AND NVL(s.error_code, '-') LIKE 'PARSE%')
          AND DECODE(s.load_id, :load_id, 0, 1) = 1) src
ON (u.source_key = src.source_key)
WHEN MATCHED THEN UPDATE SET u.load_id = :load_id
 WHERE u.load_id < :load_id
WHEN NOT MATCHED THEN INSERT (source_key, load_id) VALUES (src.source_key, :load_id)
