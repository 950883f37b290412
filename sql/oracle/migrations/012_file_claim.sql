-- File claims (src/engine/oracle/file-claims.ts; src/pipeline/file-claim.ts says what they are
-- for): one row per file identity a load or stage has claimed, keyed by the identity's hash
-- (64 hex digits). A run claims a file by locking its row (file_claim_lock.sql, FOR UPDATE WAIT
-- on a session of its own) and gives it up by a ROLLBACK; Oracle ends the lock with the session,
-- whatever ended it. A row lock, not DBMS_LOCK: that needs an EXECUTE grant the loader's user
-- may not have. Rows are inserted once per identity (file_claim_insert.sql, committed on its
-- own) and never updated: a few dozen bytes per file ever loaded.
CREATE TABLE order_loader_file_claim (
  claim_key  VARCHAR2(64 CHAR)        NOT NULL,
  created_at TIMESTAMP WITH TIME ZONE DEFAULT SYSTIMESTAMP NOT NULL,
  CONSTRAINT pk_order_loader_file_claim PRIMARY KEY (claim_key)
)
