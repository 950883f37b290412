-- In a staging batch's transaction: whether the file's claim (file_claim.sql: class $1, key $3)
-- is still held by the claim's session (pid $4). First the barrier of file_claim_barrier.sql
-- (class $2) taken shared until the transaction ends: a session that takes the claim once this
-- one's ended waits there until this transaction ends, before it reads the file's history.
-- Not got: such a session is there already, the claim is another's. CASE evaluates in order.
SELECT CASE
         WHEN pg_try_advisory_xact_lock_shared($2, hashtext($3))
         THEN EXISTS (SELECT 1
                        FROM pg_locks
                       WHERE locktype = 'advisory'
                         AND classid = $1::int::oid
                         AND objid = hashtext($3)::oid
                         AND objsubid = 2
                         AND pid = $4
                         AND mode = 'ExclusiveLock'
                         AND granted)
         ELSE false
       END AS held
