-- A file identity's claim (src/engine/oracle/file-claims.ts): its row locked by the claim's own
-- session until that session's ROLLBACK or its end. Waits at most a second for another session's
-- claim (ORA-30006: it still holds it); the caller waits on, one second at a time.
SELECT claim_key
  FROM order_loader_file_claim
 WHERE claim_key = :claim_key
   FOR UPDATE WAIT 1
