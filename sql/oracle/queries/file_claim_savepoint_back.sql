-- The barrier row passed (file_claim_savepoint.sql): its lock ends, the claim row's stays (a
-- rollback to a savepoint ends the locks taken since it, not those taken before).
ROLLBACK TO SAVEPOINT file_claim_barrier
