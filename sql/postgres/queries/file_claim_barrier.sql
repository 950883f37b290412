-- Right after a session took a file identity's claim (file_claim.sql), before it reads the
-- file's history: waits (the session's lock_timeout at most) for every staging batch of that
-- identity still open (each holds this lock shared: file_claim_held.sql), so a batch of a run
-- whose claim ended is in the history or never commits. $1 is the barrier's class ('OLFB'),
-- $2 the identity's key. A transaction-level lock in a statement of its own: released at once.
SELECT pg_advisory_xact_lock($1, hashtext($2))
