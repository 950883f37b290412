-- One row of a staging batch, array-bound with connection.executeMany (explicit bindDefs,
-- batchErrors: true). Values arrive as text and are converted here with explicit formats, so
-- that no session NLS setting (NLS_NUMERIC_CHARACTERS, NLS_DATE_FORMAT) can change their
-- meaning, and cast to order_stage's own column types, so that a value order_stage cannot
-- hold (ORA-01438: an amount past NUMBER(18, 2)) is refused here, for its row alone, as a
-- batch error, and never reaches the statements that write order_stage from this table.
-- stage_batch_direct.sql converts the same way; the lines it did not insert come here.
-- :attributes is the row's attributes (JSON text or NULL; migrations/008_attributes.sql), bound
-- as VARCHAR2 while it fits the database's VARCHAR2 limit and as a CLOB past it (binds.ts, longText).
INSERT INTO order_stage_batch
       (source_key, customer_id, order_date, amount, currency, line_no, parse_code, parse_message,
        attributes)
VALUES (:source_key,
        CAST(TO_NUMBER(:customer_id, '99999999999999999999999999999999999999',
                       'NLS_NUMERIC_CHARACTERS=''.,''') AS NUMBER(19)),
        TO_DATE(:order_date, 'YYYY-MM-DD'),
        CAST(TO_NUMBER(:amount, '99999999999999999999999999D999999999999',
                       'NLS_NUMERIC_CHARACTERS=''.,''') AS NUMBER(18, 2)),
        :currency,
        :line_no,
        :parse_code,
        :parse_message,
        :attributes)
