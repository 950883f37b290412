-- The optimizer statistics of order_stage after a staging phase that staged rows: the Oracle
-- counterpart of PostgreSQL's ANALYZE order_stage (src/pipeline/load.ts). A conventional insert
-- gathers none (Oracle gathers while loading only for a CTAS or a direct-path insert into an empty
-- table, 12.1 and later), and the maintenance window's job may have seen the table empty: the
-- status and tally queries would then be planned for a table of 0 rows that now holds millions.
-- The claim does not depend on it (claim.sql pins its plan with a hint).
--
-- The loader's user owns the table, so it needs no grant (ANALYZE ANY is for other schemas'
-- tables). :table_name is ORDER_STAGE, or a bench workspace's name for it (bound by the engine:
-- the workspace's rewrite of a statement's text does not touch literals).
-- cascade: the indexes too. no_invalidate => FALSE: the cursors planned on the old statistics are
-- invalidated now, not over the default rolling window of up to five hours.
-- Statistics a DBA locked (DBMS_STATS.LOCK_TABLE_STATS: ORA-20005) are the DBA's choice, also the
-- way to turn this gathering off: left as they are, the load goes on.
DECLARE
  stats_locked EXCEPTION;
  PRAGMA EXCEPTION_INIT(stats_locked, -20005);
BEGIN
  DBMS_STATS.GATHER_TABLE_STATS(ownname => USER, tabname => :table_name, cascade => TRUE, no_invalidate => FALSE);
EXCEPTION
  WHEN stats_locked THEN
    NULL;
END;
