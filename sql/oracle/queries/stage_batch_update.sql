-- Update the row of order_stage whose source_key is :source_key, from the staging batch (the
-- staging rule: the last occurrence of a source_key wins; docs/ARCHITECTURE.md, section 2).
-- Array-bound with connection.executeMany (batchErrors: true), one iteration per key of the
-- batch: a key order_stage does not hold yet updates nothing (stage_batch_new.sql inserts it
-- afterwards, in line order), and an update the database refuses (a CHECK constraint, a
-- trigger, a VPD policy) comes back as a batch error for that key alone, rejected like a parse
-- reject while the other keys go on (src/engine/oracle/staging.ts), as the new-key insert's
-- refusals do and as PostgreSQL's savepoint isolation does. Same rules as
-- sql/postgres/queries/stage_batch.sql:
--   values changed, or re-parsed -> updated, READY again (or ERROR); transient_failures back
--                                   to 0 (the transient failures of the earlier values do not
--                                   count against --max-attempts); attempt_count kept (every
--                                   processing attempt, never reset; migration 002)
--   values identical             -> untouched; when not DONE, load_id/line_no move
--                                   to this load so that the load's outcome counts it;
--                                   a later line of the same load moves line_no to itself
--                                   (the last line of a key is the one the error log names,
--                                   whatever batch the earlier line was in)
-- attributes (a CLOB, migrations/008_attributes.sql) are compared with DBMS_LOB.COMPARE after
-- a NULL test that settles rows without attributes (the built-in format) without a LOB call; the
-- loader writes them in canonical form, so equal attributes are equal text.
-- is_changed is computed in USING (the target rows are locked by this transaction,
-- stage_batch_lock.sql, so USING reads them as the target does); the UPDATE ... WHERE skips rows that would
-- not change at all. In Oracle every SET expression sees the row's values before the update.
--
-- The plan: order_stage_batch is a global temporary table without statistics (and dynamic
-- sampling of it says nothing about how its keys match order_stage), so the optimizer could
-- cost a hash join over a full scan of order_stage, read whole for every key of every batch.
-- The hints pin the only plan that stays linear whatever the tables' sizes: the batch row by
-- its primary key, then order_stage by its unique index on source_key, nested loops.
MERGE /*+ USE_NL(s) INDEX(s uq_order_stage_source) */ INTO order_stage s
USING (SELECT /*+ LEADING(i cur) USE_NL(cur) INDEX(i pk_order_stage_batch) INDEX(cur uq_order_stage_source) */
              i.source_key, i.customer_id, i.order_date, i.amount, i.currency, i.line_no,
              i.parse_code, i.parse_message, i.attributes,
              CASE WHEN (cur.process_status = 'ERROR' AND NVL(cur.error_code, '-') LIKE 'PARSE%')
                     OR i.parse_code IS NOT NULL
                     OR DECODE(cur.customer_id, i.customer_id, 0, 1) = 1
                     OR DECODE(cur.order_date, i.order_date, 0, 1) = 1
                     OR DECODE(cur.amount, i.amount, 0, 1) = 1
                     OR DECODE(cur.currency, i.currency, 0, 1) = 1
                     OR CASE WHEN cur.attributes IS NULL AND i.attributes IS NULL THEN 0
                             WHEN cur.attributes IS NULL OR i.attributes IS NULL THEN 1
                             WHEN DBMS_LOB.COMPARE(cur.attributes, i.attributes) = 0 THEN 0
                             ELSE 1 END = 1
                   THEN 1 ELSE 0 END AS is_changed
         FROM order_stage_batch i
         JOIN order_stage cur ON cur.source_key = i.source_key
        WHERE i.source_key = :source_key) src
ON (s.source_key = src.source_key)
WHEN MATCHED THEN UPDATE SET
       s.customer_id        = src.customer_id,
       s.order_date         = src.order_date,
       s.amount             = src.amount,
       s.currency           = src.currency,
       s.attributes         = src.attributes,
       s.process_status     = CASE WHEN src.is_changed = 1
                                   THEN CASE WHEN src.parse_code IS NULL THEN 'READY' ELSE 'ERROR' END
                                   ELSE s.process_status END,
       s.error_code         = CASE WHEN src.is_changed = 1 THEN src.parse_code ELSE s.error_code END,
       s.error_message      = CASE WHEN src.is_changed = 1 THEN src.parse_message ELSE s.error_message END,
       s.next_attempt_at    = CASE WHEN src.is_changed = 1 THEN NULL ELSE s.next_attempt_at END,
       s.transient_failures = CASE WHEN src.is_changed = 1 THEN 0 ELSE s.transient_failures END,
       s.load_id            = :load_id,
       s.line_no            = src.line_no,
       s.updated_at         = SYSTIMESTAMP
 WHERE src.is_changed = 1
    OR (s.process_status <> 'DONE' AND DECODE(s.load_id, :load_id, 0, 1) = 1)
    OR (DECODE(s.load_id, :load_id, 1, 0) = 1 AND s.line_no < src.line_no)
