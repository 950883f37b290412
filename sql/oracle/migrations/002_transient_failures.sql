-- attempt_count counts every processing attempt again; --max-attempts bounds a new count
-- (sql/postgres/migrations/007_transient_failures.sql says why, and does the same).
--
-- transient_failures: the transient failures since the row's values last changed or an operator
-- last retried it. queries/stage_batch_update.sql and apply_manual_changes.sql reset it where
-- they used to reset attempt_count; attempt_count is reset nowhere.
--
-- Format and re-run as in 001_schema.sql: one statement per block, blocks separated by a line
-- holding only "/". The ALTER commits on its own (a re-run tolerates ORA-01430, column exists);
-- the two updates of existing rows are committed with this migration's record, so a run that
-- stops before the record rolls them back and the re-run does them once, from the same values.
--
-- Existing rows: a row waiting in RETRY_WAIT gets transient_failures = attempt_count (every
-- attempt counted there since the count was last reset was a transient failure); a row whose
-- attempt_count a reset left below its logged failed attempts (error-log rows of phase VALIDATE
-- or MERGE), plus one when it is DONE, is raised to that (a lower bound: earlier successes left
-- no trace). The error log's attempt_no values stay as written.

ALTER TABLE order_stage ADD (transient_failures NUMBER(10) DEFAULT 0 NOT NULL)
/
UPDATE order_stage
   SET transient_failures = attempt_count
 WHERE process_status = 'RETRY_WAIT'
/
MERGE INTO order_stage s
USING (SELECT b.stage_id, COUNT(*) AS failures
         FROM order_bulk_error b
        WHERE b.phase IN ('VALIDATE', 'MERGE')
          AND b.stage_id IS NOT NULL
        GROUP BY b.stage_id) f
ON (s.stage_id = f.stage_id)
WHEN MATCHED THEN UPDATE SET
       s.attempt_count = f.failures + CASE WHEN s.process_status = 'DONE' THEN 1 ELSE 0 END
 WHERE s.attempt_count < f.failures + CASE WHEN s.process_status = 'DONE' THEN 1 ELSE 0 END
