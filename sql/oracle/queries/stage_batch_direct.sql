-- One line of a staging batch straight into order_stage: the first write of a batch,
-- array-bound with connection.executeMany (batchErrors: true), one iteration per line in line
-- order, as the first statement of the batch's transaction (READ COMMITTED, stage_batch_lock.sql). When every key
-- is new (a first load) this is the whole staging rule: READY, or ERROR with the parse error;
-- load_id and line_no of this load; every other column its default. The identity column numbers
-- the rows in bind order, so stage_id follows the file as on PostgreSQL.
--
-- A key order_stage already holds is refused by uq_order_stage_source (ORA-00001, a batch error
-- for that line alone; Oracle goes on with the next line): that line goes to the batch-table way
-- (stage_batch_insert.sql, stage_batch_counts.sql, stage_batch_update.sql, stage_batch_new.sql),
-- which updates it or counts it unchanged. A line refused for any other row-level reason
-- (ORA-01438 from the CAST, a CHECK, a trigger) goes there too, so that it is refused, or
-- staged, exactly as the batch-table way alone would: Oracle checks CHECK constraints and fires
-- BEFORE INSERT triggers before the unique index, so such a refusal says nothing about whether
-- the key is new (src/engine/oracle/staging.ts, stage-direct.ts).
--
-- The values are converted exactly as stage_batch_insert.sql converts them (explicit formats, no
-- session NLS setting; cast to order_stage's own column types), so a line gets the same values
-- either way. :parse_code is bound once and read twice (thin mode binds a repeated name in SQL
-- to every occurrence, as stage_batch_update.sql's :load_id). :attributes as in
-- stage_batch_insert.sql (migrations/008_attributes.sql).
-- Not measured (no Oracle server here): one array INSERT per batch instead of four statements
-- through the session's batch table (docs/oracle.md, "Staging").
INSERT INTO order_stage
       (source_key, customer_id, order_date, amount, currency,
        process_status, error_code, error_message, load_id, line_no, attributes)
VALUES (:source_key,
        CAST(TO_NUMBER(:customer_id, '99999999999999999999999999999999999999',
                       'NLS_NUMERIC_CHARACTERS=''.,''') AS NUMBER(19)),
        TO_DATE(:order_date, 'YYYY-MM-DD'),
        CAST(TO_NUMBER(:amount, '99999999999999999999999999D999999999999',
                       'NLS_NUMERIC_CHARACTERS=''.,''') AS NUMBER(18, 2)),
        :currency,
        CASE WHEN :parse_code IS NULL THEN 'READY' ELSE 'ERROR' END,
        :parse_code,
        :parse_message,
        :load_id,
        :line_no,
        :attributes)
