-- One row of a staging batch, array-bound with connection.executeMany (explicit bindDefs).
-- Values arrive as text and are converted here with explicit formats, so that no session NLS
-- setting (NLS_NUMERIC_CHARACTERS, NLS_DATE_FORMAT) can change their meaning. A value that
-- does not convert fails the whole batch, as the ::numeric / ::date casts do on PostgreSQL.
INSERT INTO order_stage_batch
       (source_key, customer_id, order_date, amount, currency, line_no, parse_code, parse_message)
VALUES (:source_key,
        TO_NUMBER(:customer_id, '99999999999999999999999999999999999999',
                  'NLS_NUMERIC_CHARACTERS=''.,'''),
        TO_DATE(:order_date, 'YYYY-MM-DD'),
        TO_NUMBER(:amount, '99999999999999999999999999D999999999999',
                  'NLS_NUMERIC_CHARACTERS=''.,'''),
        :currency,
        :line_no,
        :parse_code,
        :parse_message)
