-- MERGE one claimed stage row into orders by source_key. Executed with
-- connection.executeMany(sql, [{ stage_id }, ...], { batchErrors: true, autoCommit: false,
-- bindDefs }): one round trip per chunk, one iteration per row; a row the database refuses
-- (ORA-01438 amount overflow, ORA-01400 NULL, ORA-00001 concurrent insert, ...) comes back in
-- result.batchErrors[].offset and every other row stays merged, pending the chunk's commit.
--
-- Only the stage_id is bound; the values are read from order_stage here. The row is locked
-- by this transaction's claim (FOR UPDATE), so they are exactly the values the pipeline
-- validated. Binding a NUMBER only means no bind of this statement can raise NJS-058 (string
-- longer than maxSize) or NJS-011, and the data does not travel back over the network (it
-- cost as much as the MERGE itself when the values were bound). Same choice as the PostgreSQL
-- engine (order_loader_merge_ids).
--
-- No RETURNING (outBinds shift after an errored row with batchErrors) and no dmlRowCounts
-- (wrong for MERGE after the first error before 23.6): a row not in batchErrors is merged.
-- An identical row merged again updates nothing (the WHERE of the update), so re-running a
-- block during whole-call failure isolation is harmless. attributes (a CLOB,
-- migrations/008_attributes.sql) are part of "identical": NULL tests first (rows without
-- attributes need no LOB call), then DBMS_LOB.COMPARE of the canonical text.
MERGE INTO orders o
USING (SELECT s.source_key, s.customer_id, s.order_date, s.amount, s.currency, s.attributes
         FROM order_stage s
        WHERE s.stage_id = :stage_id) src
ON (o.source_key = src.source_key)
WHEN MATCHED THEN UPDATE SET
       o.customer_id = src.customer_id,
       o.order_date  = src.order_date,
       o.amount      = src.amount,
       o.currency    = src.currency,
       o.attributes  = src.attributes,
       o.updated_at  = SYSTIMESTAMP
 WHERE DECODE(o.customer_id, src.customer_id, 0, 1) = 1
    OR DECODE(o.order_date, src.order_date, 0, 1) = 1
    OR DECODE(o.amount, src.amount, 0, 1) = 1
    OR DECODE(o.currency, src.currency, 0, 1) = 1
    OR CASE WHEN o.attributes IS NULL AND src.attributes IS NULL THEN 0
            WHEN o.attributes IS NULL OR src.attributes IS NULL THEN 1
            WHEN DBMS_LOB.COMPARE(o.attributes, src.attributes) = 0 THEN 0
            ELSE 1 END = 1
WHEN NOT MATCHED THEN INSERT
       (source_key, customer_id, order_date, amount, currency, attributes)
VALUES (src.source_key, src.customer_id, src.order_date, src.amount, src.currency, src.attributes)
