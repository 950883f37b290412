/**
 * The Oracle engine refreshes order_stage's optimizer statistics after a staging phase that staged
 * rows (Engine.refreshStageStatistics, called by src/pipeline/load.ts as the PostgreSQL engines'
 * ANALYZE): DBMS_STATS.GATHER_TABLE_STATS of the loader's own table, on a connection of its own.
 * Against the RECORDING connection: what is sent, not what Oracle gathers (docs/oracle.md).
 */
import { describe, expect, it } from 'vitest';
import { createOracleEngineWith } from '../../src/engine/oracle/index.js';
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import { constants, RecordingDatabase } from './recording-connection.js';

describe('Oracle statistics after staging (recording connection)', () => {
  it('gathers the statistics of ORDER_STAGE, bound by name, and commits', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    expect(engine.refreshStageStatistics).toBeTypeOf('function');
    await engine.refreshStageStatistics?.();
    await engine.close();
    const sent = db.calls.filter((c) => c.kind === 'execute');
    expect(sent.map((c) => c.sql)).toEqual([oracleQuery('gather_stage_stats')]);
    expect(sent[0]?.kind === 'execute' ? sent[0].binds.table_name : undefined).toMatchObject({ val: 'ORDER_STAGE' });
    expect(db.trace().at(-2)).toMatch(/:commit$/);
  });

  it('the block gathers the table and its indexes for the owner, invalidates old plans now, and leaves locked statistics alone', () => {
    const sql = oracleQuery('gather_stage_stats');
    expect(sql).toMatch(
      /DBMS_STATS\.GATHER_TABLE_STATS\(ownname => USER, tabname => :table_name, cascade => TRUE, no_invalidate => FALSE\)/,
    );
    // ORA-20005 (statistics locked by a DBA) only: any other error goes up
    expect(sql).toMatch(/PRAGMA EXCEPTION_INIT\(stats_locked, -20005\)/);
    expect(sql.match(/\bWHEN\b/g)).toHaveLength(1);
  });
});
