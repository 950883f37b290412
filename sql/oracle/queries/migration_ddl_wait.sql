-- The migration session's DDL waits up to 60 s for a table lock another session holds (a load's
-- open transaction on order_stage), instead of failing at once with ORA-00054: DDL does not
-- queue for locks by default (DDL_LOCK_TIMEOUT 0). Past it, ORA-00054 stops migrate with what
-- to do (src/engine/oracle/migrations.ts). Session-wide; only migrations run DDL on it.
-- In a block: the PL/SQL grammar check refuses a number as ALTER SESSION's value (Oracle does not).
BEGIN
  EXECUTE IMMEDIATE 'ALTER SESSION SET DDL_LOCK_TIMEOUT = 60';
END;
