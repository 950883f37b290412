-- In a staging batch's transaction (src/engine/oracle/file-claims.ts): the file identity's
-- barrier row (src/engine/oracle/file-claims.ts barrierKey) locked until the transaction ends,
-- so that a session taking the claim after this run's ended waits for this batch before it
-- reads the file's history. Not waiting: a session passing the barrier holds the claim already
-- (ORA-00054, the claim is another's).
SELECT claim_key
  FROM order_loader_file_claim
 WHERE claim_key = :claim_key
   FOR UPDATE NOWAIT
