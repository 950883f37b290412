-- On a claim session that has just locked its claim row (src/engine/oracle/file-claims.ts): the
-- barrier row is locked after this savepoint, and given up alone by file_claim_savepoint_back.sql.
SAVEPOINT file_claim_barrier
