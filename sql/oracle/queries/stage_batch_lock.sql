-- Lock the order_stage rows of the staging batch's keys that order_stage holds, before the batch
-- counts them (stage_batch_counts.sql) and updates them (stage_batch_update.sql). The batch's transaction is READ COMMITTED: each statement reads what is committed when
-- it starts, and these rows, locked by this transaction, cannot change under it, so the counts and
-- the writes describe the same rows, which is what a SERIALIZABLE transaction gave before. Why not
-- SERIALIZABLE: processing beside staging commits chunks of READY rows (DONE, ERROR, RETRY_WAIT);
-- a batch that updates a key whose row a chunk committed after the batch's transaction began fails
-- with ORA-08177, and it fails again on every retry while processing keeps committing chunks of
-- those keys (a reload, a correction file, a second load of an earlier load's keys): the retry
-- budget runs out and the run stops. Here a row a chunk holds is waited for (the chunk commits),
-- then read as committed: no ORA-08177 from processing.
--
-- What the lock cannot hold is a key another session stages meanwhile (it has no row yet): counted
-- as new, then found by the new-key insert's NOT EXISTS (stage_batch_new.sql), it would be left
-- out silently; the engine compares the insert's rows with the counts' new keys, and a shortfall
-- fails the batch as transient (rolled back, staged again: src/engine/oracle/staging.ts), as
-- ORA-00001 from such a key always did. (A key committed by another session after this lock and
-- before the counts is counted and updated unlocked: the counts can then be off only if that
-- session commits the key once more before this batch's update.)
--
-- FOR UPDATE OF s.stage_id locks order_stage's rows only (order_stage_batch is the session's own).
-- WAIT 86400 is replaced by the engine with --row-lock-wait's bound in whole seconds when the
-- transaction has one (as merge_lock.sql); a row still held after it raises ORA-30006, transient:
-- the batch is rolled back and staged again. Oracle locks a FOR UPDATE cursor's rows when it opens
-- it; the rows stay locked after CLOSE, until the transaction ends (one round trip, no row sent).
-- The hints: the batch row, then order_stage by its unique index on source_key (as the counts).
DECLARE
  CURSOR staged IS
    SELECT /*+ LEADING(i s) USE_NL(s) INDEX(s uq_order_stage_source) */ s.stage_id
      FROM order_stage_batch i
      JOIN order_stage s ON s.source_key = i.source_key
       FOR UPDATE OF s.stage_id WAIT 86400;
BEGIN
  OPEN staged;
  CLOSE staged;
END;
