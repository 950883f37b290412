-- One claimed row of a chunk processed in the database: its orders row locked (when the chunk has a
-- lock bound), merged into orders and written DONE, in one iteration of an array execution of this
-- block (connection.executeMany, one iteration per row whose values are plainly valid): the whole
-- chunk in one round trip after its claim, where the client sent a lock step, the array MERGE and
-- the array update to DONE as three (src/engine/oracle/chunk-in-database.ts; PostgreSQL's
-- counterpart is order_loader_process_chunk, sql/postgres/migrations/012 and 014).
--
-- Not sent as written: the engine puts merge_orders.sql in place of "merge_orders_here;" and
-- finalize_done.sql in place of "finalize_done_here;" (one text for each statement, whichever way
-- the chunk goes), each ended with ";". :stage_id and :batch_id are theirs.
--
-- Per-row isolation, as the array MERGE's batchErrors gave it: the row's work starts at a savepoint;
-- an error of any of its statements rolls the row back to it (the MERGE undone when the update
-- failed after it) and comes back in :failure (SQLERRM, the first 1000 characters), and the next
-- iteration goes on. The engine classifies it as it classifies a batch error: a fatal code fails
-- the chunk, a transient one (ORA-00001 of a concurrent insert, ORA-00060, ORA-08177) or a
-- refusal (ORA-01438, ORA-01400, a CHECK) goes to the pipeline's rules (RETRY_WAIT or ERROR, with
-- attempt_count + 1 and an error-log row, written by finalize_failed.sql and
-- finalize_failed_log.sql). ORA-01013 (the call cancelled: a second SIGINT's break(), the call
-- timeout) is raised on, never reported for a row.
--
-- :lock_first = 1 (the transaction has a lock bound, --row-lock-wait > 0): the row's orders row is
-- locked first with NOWAIT; held by another session, ORA-00054 comes back in :failure and the
-- engine waits for it within what is left of the chunk's bound (merge_lock.sql with WAIT k), then
-- sends this block again for that row with :lock_first = 0. 0: no lock step (the MERGE waits).
DECLARE
  cancelled EXCEPTION;
  PRAGMA EXCEPTION_INIT(cancelled, -1013);
  CURSOR target IS
    SELECT o.order_id
      FROM orders o
     WHERE o.source_key = (SELECT s.source_key FROM order_stage s WHERE s.stage_id = :stage_id)
       FOR UPDATE NOWAIT;
BEGIN
  :failure := NULL;
  SAVEPOINT process_row;
  IF :lock_first = 1 THEN
    OPEN target;
    CLOSE target;
  END IF;
  merge_orders_here;
  finalize_done_here;
EXCEPTION
  WHEN cancelled THEN
    RAISE;
  WHEN OTHERS THEN
    ROLLBACK TO SAVEPOINT process_row;
    :failure := SUBSTR(SQLERRM, 1, 1000);
END;
