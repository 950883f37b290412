-- Count the staging batch against what order_stage holds before stage_batch_update.sql and
-- stage_batch_new.sql write it (the same transaction; the rows of the batch's keys are locked by
-- stage_batch_lock.sql, so what is counted is what the update then writes), with the
-- rules of sql/postgres/queries/stage_batch.sql:
--   updated           existing, not repeated, and values differ, or the line failed parsing
--                     now, or the stored row is a parse rejection (it is re-parsed)
--   unchanged         existing, not repeated, and identical
--   unchanged_error   of those, in ERROR (a reload of a still-wrong row)
--   repeated_in_load  existing and last staged by this same load (an earlier batch): counted
--                     here only, never also as updated/unchanged, so that each line of the
--                     file is counted once (the pipeline adds it to the duplicates)
-- "inserted" is not counted here: it is the rowsAffected of stage_batch_new.sql itself.
-- DECODE compares NULL with NULL as equal: it is Oracle's IS NOT DISTINCT FROM. attributes, a CLOB,
-- cannot go through DECODE: NULL tests first (no LOB call for rows without attributes), then
-- DBMS_LOB.COMPARE (canonical text: equal attributes are equal text).
-- The plan: order_stage_batch is a global temporary table without statistics; the hints pin
-- a nested loop from each batch row into order_stage's unique index on source_key, linear in
-- the batch whatever order_stage's size (a hash join would read all of order_stage for every
-- batch; stage_batch_update.sql says more).
SELECT COUNT(CASE WHEN is_new = 0 AND is_repeated = 0 AND is_identical = 0 THEN 1 END) AS updated,
       COUNT(CASE WHEN is_new = 0 AND is_repeated = 0 AND is_identical = 1 THEN 1 END) AS unchanged,
       COUNT(CASE WHEN is_new = 0 AND is_repeated = 0 AND is_identical = 1
                   AND process_status = 'ERROR' THEN 1 END)                         AS unchanged_error,
       COUNT(CASE WHEN is_new = 0 AND is_repeated = 1 THEN 1 END)                  AS repeated_in_load
  FROM (SELECT /*+ LEADING(i s) USE_NL(s) INDEX(s uq_order_stage_source) */
               CASE WHEN s.stage_id IS NULL THEN 1 ELSE 0 END AS is_new,
               CASE WHEN s.stage_id IS NOT NULL
                     AND i.parse_code IS NULL
                     AND DECODE(s.customer_id, i.customer_id, 0, 1) = 0
                     AND DECODE(s.order_date, i.order_date, 0, 1) = 0
                     AND DECODE(s.amount, i.amount, 0, 1) = 0
                     AND DECODE(s.currency, i.currency, 0, 1) = 0
                     AND CASE WHEN s.attributes IS NULL AND i.attributes IS NULL THEN 0
                              WHEN s.attributes IS NULL OR i.attributes IS NULL THEN 1
                              WHEN DBMS_LOB.COMPARE(s.attributes, i.attributes) = 0 THEN 0
                              ELSE 1 END = 0
                     AND NOT (s.process_status = 'ERROR' AND NVL(s.error_code, '-') LIKE 'PARSE%')
                    THEN 1 ELSE 0 END AS is_identical,
               s.process_status,
               CASE WHEN s.load_id = :load_id THEN 1 ELSE 0 END AS is_repeated
          FROM order_stage_batch i
          LEFT JOIN order_stage s ON s.source_key = i.source_key)
