-- Lock the orders row of one claimed stage row before the chunk's MERGE (merge_orders.sql),
-- within --row-lock-wait for the whole chunk: the engine sends it first with NOWAIT for every row
-- of the chunk, then again for each row another session held, with WAIT n, n the whole seconds
-- left of the chunk's bound, in place of "WAIT 86400" (Oracle takes no bind there)
-- (src/engine/oracle/merge.ts lockTargets); it does not send this block at all for
-- --row-lock-wait 0 (wait for ever: the MERGE itself waits). Executed with connection.executeMany, one iteration per claimed row
-- (PL/SQL: one round trip, two the first time a connection runs it, lib/thin/connection.js
-- _execute), :stage_id in, :failure out.
--
-- A row another session holds (ORA-00054 with NOWAIT, ORA-30006 past WAIT n), or a deadlock (ORA-00060: Oracle
-- rolled back this lock statement only) leaves its message in :failure: the engine leaves the
-- row out of the MERGE and sends it to RETRY_WAIT (transient, src/engine/oracle/classify.ts),
-- and the rest of the chunk merges and commits, as PostgreSQL's lock_timeout does. No row yet
-- (a new key) locks nothing: the cursor loop runs no iteration (Oracle locks a FOR UPDATE
-- cursor's rows when it is opened). Any other error ends the call and fails the chunk.
--
-- What this cannot bound: a new key that another session inserted and has not committed. The
-- MERGE's insert then waits on the unique index entry until that session commits (ORA-00001,
-- transient: RETRY_WAIT, the retry updates) or rolls back (the insert goes through), or until
-- the URL's call_timeout; a SELECT cannot lock a row that is not there yet.
DECLARE
  lock_timed_out EXCEPTION;
  PRAGMA EXCEPTION_INIT(lock_timed_out, -30006);
  lock_busy EXCEPTION;
  PRAGMA EXCEPTION_INIT(lock_busy, -54);
  deadlock EXCEPTION;
  PRAGMA EXCEPTION_INIT(deadlock, -60);
BEGIN
  :failure := NULL;
  FOR held IN (SELECT o.order_id
                 FROM orders o
                WHERE o.source_key = (SELECT s.source_key FROM order_stage s WHERE s.stage_id = :stage_id)
                  FOR UPDATE WAIT 86400) LOOP
    NULL;
  END LOOP;
EXCEPTION
  WHEN lock_timed_out OR lock_busy OR deadlock THEN
    :failure := SUBSTR(SQLERRM, 1, 1000);
END;
