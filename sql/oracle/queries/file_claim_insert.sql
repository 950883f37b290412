-- A file identity's claim row, made the first time the identity is claimed (committed at once,
-- before it is locked: file_claim_lock.sql). Two sessions inserting the same new key at once:
-- the second waits for the first's COMMIT, then gets ORA-00001, which the engine takes as "there".
INSERT INTO order_loader_file_claim (claim_key)
SELECT :claim_key FROM dual
 WHERE NOT EXISTS (SELECT 1 FROM order_loader_file_claim WHERE claim_key = :claim_key)
