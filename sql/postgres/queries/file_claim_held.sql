-- In a staging batch's transaction: whether the session that took the file's claim still lives
-- (then it holds the claim: a run gives a claim up only once the file's staging ended). First the
-- barrier of file_claim_barrier.sql (class $1, key $2) taken shared until the transaction ends:
-- a session that takes the claim once this one's ended waits there until this transaction ends,
-- before it reads the file's history; not got, such a session is there already. Then the claim
-- session's mark (file_claim_session.sql: class $3, token $4): got, no session holds it, the
-- claim session is gone. Both in the lock manager, O(1): pg_locks would build the server's whole
-- lock table each time (5 ms a batch with 10,000 locks held). CASE evaluates in order.
SELECT CASE
         WHEN pg_try_advisory_xact_lock_shared($1, hashtext($2))
         THEN NOT pg_try_advisory_xact_lock_shared($3, $4)
         ELSE false
       END AS held
