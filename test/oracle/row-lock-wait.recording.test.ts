/**
 * --row-lock-wait on Oracle, against a RECORDING connection
 * (test/oracle/recording-connection.ts): before the chunk's array MERGE, the orders rows of the
 * claimed rows are locked with FOR UPDATE WAIT n (queries/merge_lock.sql, one executeMany of a
 * PL/SQL block, :failure out per row); a row another session held past n seconds comes back as
 * ORA-30006 in its :failure, is left out of the MERGE and waits in RETRY_WAIT, and the rest of
 * the chunk merges and commits, as PostgreSQL's lock_timeout does. The driver's discard of a
 * connection whose close() hangs (a dead network path) destroys its socket after 5 s and
 * counts it against maxOpen until then. Nothing here runs on an Oracle Database: the held rows
 * and the hung logoff are scripted.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import oracledb from 'oracledb';
import { createOracleEngineWith, OracleChunkError } from '../../src/engine/oracle/index.js';
import { lockWaitSeconds, mergeLockSql } from '../../src/engine/oracle/merge.js';
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import type { OraBinds, OraConnection } from '../../src/engine/oracle/oracledb-types.js';
import { processBacklog } from '../../src/pipeline/process.js';
import { constants, driverError, RecordingDatabase } from './recording-connection.js';
import { claimed, claimRows, isLock, processOptions } from './lock-rows.js';

const NUMBER = (oracledb as unknown as { DB_TYPE_NUMBER: unknown }).DB_TYPE_NUMBER;
const VARCHAR = (oracledb as unknown as { DB_TYPE_VARCHAR: unknown }).DB_TYPE_VARCHAR;
const BUSY = 'ORA-30006: resource busy; acquire with WAIT timeout expired';

/** The wait a lock call gives each row: 0 for NOWAIT. */
const waitOf = (sql: string) => Number(/FOR UPDATE WAIT (\d+)/.exec(sql)?.[1] ?? 0);

/** A database where another session holds the orders rows of the stage ids in `held`. */
function holding(held: ReadonlySet<number>, failure = BUSY) {
  return new RecordingDatabase({
    executeMany: (sql, binds: OraBinds[]) => {
      if (isLock(sql)) {
        return { outBinds: binds.map((b) => ({ failure: held.has(Number(b.stage_id)) ? failure : null })) };
      }
      return { rowsAffected: binds.length, batchErrors: [] };
    },
  });
}

describe('Oracle --row-lock-wait (recording connection)', () => {
  it('locks the chunk’s targets with NOWAIT first, then waits for a held row; a row held past the wait is transient and not merged, the others are', async () => {
    vi.spyOn(Date, 'now').mockReturnValue(Date.parse('2026-01-01T00:00:00Z'));
    const db = holding(new Set([11]));
    const engine = createOracleEngineWith(db, constants);
    const failures = await engine.transaction((tx) => tx.mergeOrders([claimed(10), claimed(11), claimed(12)], { isolationBlock: 3 }), {
      lockWaitMs: 2_500,
    });
    vi.restoreAllMocks();
    expect(failures).toEqual([{ stageId: 11, code: 'ORA-30006', message: BUSY, kind: 'transient' }]);
    const [lock, wait, merge] = db.executeManyCalls();
    expect(lock?.sql).toBe(mergeLockSql(0));
    expect(lock?.sql).toMatch(/FOR UPDATE NOWAIT\)/);
    expect(lock?.binds).toEqual([{ stage_id: 10 }, { stage_id: 11 }, { stage_id: 12 }]);
    expect(lock?.options).toEqual({
      autoCommit: false,
      bindDefs: { stage_id: { type: NUMBER }, failure: { dir: constants.BIND_OUT, type: VARCHAR, maxSize: 4000 } },
    });
    // whole seconds, rounded up: 2.5 s waits 3 s
    expect(wait?.sql).toBe(mergeLockSql(3));
    expect(wait?.binds).toEqual([{ stage_id: 11 }]);
    expect(merge?.sql).toBe(oracleQuery('merge_orders'));
    expect(merge?.binds).toEqual([{ stage_id: 10 }, { stage_id: 12 }]);
    expect(db.trace().at(-1)).toBe('1:commit');
  });

  it('one bound for the whole chunk: three held rows wait --row-lock-wait in all, not each (the script lets each wait pass in full)', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    vi.spyOn(Date, 'now').mockImplementation(() => clock);
    const held = new Set([11, 12, 13]);
    const db = new RecordingDatabase({
      executeMany: (sql, binds: OraBinds[]) => {
        if (!isLock(sql)) return { rowsAffected: binds.length, batchErrors: [] };
        // a held row costs the call the whole of its wait, then times out
        const busy = binds.filter((b) => held.has(Number(b.stage_id))).length;
        clock += waitOf(sql) * 1000 * busy;
        return {
          outBinds: binds.map((b) => ({
            failure: held.has(Number(b.stage_id))
              ? waitOf(sql) > 0
                ? BUSY
                : 'ORA-00054: resource busy and acquire with NOWAIT specified or timeout expired'
              : null,
          })),
        };
      },
    });
    const engine = createOracleEngineWith(db, constants);
    const start = clock;
    const failures = await engine.transaction((tx) => tx.mergeOrders([10, 11, 12, 13, 14].map(claimed), { isolationBlock: 5 }), {
      lockWaitMs: 3_000,
    });
    vi.restoreAllMocks();
    expect(failures.map((f) => [f.stageId, f.kind])).toEqual([
      [11, 'transient'],
      [12, 'transient'],
      [13, 'transient'],
    ]);
    // the longest the chunk could have waited: each lock call's wait times the rows held in it
    const worst = db
      .executeManyCalls()
      .filter((c) => isLock(c.sql))
      .reduce((sum, c) => sum + waitOf(c.sql) * c.binds.filter((b) => held.has(Number(b.stage_id))).length, 0);
    expect(worst).toBeLessThanOrEqual(3);
    expect(clock - start).toBeLessThanOrEqual(3_000);
    expect(db.executeManyCalls().find((c) => c.sql === oracleQuery('merge_orders'))?.binds).toEqual([{ stage_id: 10 }, { stage_id: 14 }]);
  });

  it('every row held: nothing is merged, every row is transient', async () => {
    const db = holding(new Set([1, 2]));
    const engine = createOracleEngineWith(db, constants);
    const failures = await engine.transaction((tx) => tx.mergeOrders([claimed(1), claimed(2)], { isolationBlock: 2 }), { lockWaitMs: 1 });
    expect(failures.map((f) => [f.stageId, f.kind])).toEqual([
      [1, 'transient'],
      [2, 'transient'],
    ]);
    // NOWAIT for both, then a wait for the first held row; nothing is merged
    expect(db.executeManyCalls().every((c) => isLock(c.sql))).toBe(true);
  });

  it('a deadlock reported for a row is transient too (ORA-00060: Oracle rolled back that lock statement only)', async () => {
    const db = holding(new Set([5]), 'ORA-00060: deadlock detected while waiting for resource');
    const engine = createOracleEngineWith(db, constants);
    const failures = await engine.transaction((tx) => tx.mergeOrders([claimed(5)], { isolationBlock: 1 }), { lockWaitMs: 10_000 });
    expect(failures).toEqual([expect.objectContaining({ stageId: 5, code: 'ORA-00060', kind: 'transient' })]);
  });

  it('a non-transient code in a row’s :failure fails the chunk (rolled back), no row is blamed', async () => {
    const db = holding(new Set([5]), 'ORA-01653: unable to extend table LOADER.ORDERS');
    const engine = createOracleEngineWith(db, constants);
    const error = await engine
      .transaction((tx) => tx.mergeOrders([claimed(5)], { isolationBlock: 1 }), { lockWaitMs: 10_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OracleChunkError);
    expect(engine.classifyError(error)).toBe('fatal');
    expect(db.trace()).not.toContain('1:commit');
  });

  it('--row-lock-wait 0 (wait for ever) and no wait given send no lock step: the MERGE alone, as before', async () => {
    for (const lockWaitMs of [0, undefined]) {
      const db = holding(new Set([1]));
      const engine = createOracleEngineWith(db, constants);
      await engine.transaction((tx) => tx.mergeOrders([claimed(1)], { isolationBlock: 1 }), { lockWaitMs });
      expect(db.executeManyCalls().map((c) => c.sql)).toEqual([oracleQuery('merge_orders')]);
    }
  });

  it('the wait in whole seconds: 1 ms and 1 s wait 1 s, 1.001 s waits 2 s, at most 24 h; 0 none', () => {
    expect([1, 1_000, 1_001, 10_000, 86_400_000, 0].map(lockWaitSeconds)).toEqual([1, 1, 2, 10, 86_400, undefined]);
    expect(mergeLockSql(7)).not.toContain('86400');
  });

  it('a lock answer without one out bind per row fails the chunk rather than merging unlocked rows', async () => {
    const db = new RecordingDatabase({
      executeMany: (sql, binds) => (isLock(sql) ? { outBinds: [] } : { rowsAffected: binds.length, batchErrors: [] }),
    });
    const engine = createOracleEngineWith(db, constants);
    await expect(engine.transaction((tx) => tx.mergeOrders([claimed(1)], { isolationBlock: 1 }), { lockWaitMs: 1_000 })).rejects.toThrow(
      /out binds/,
    );
    expect(db.executeManyCalls().some((c) => c.sql === oracleQuery('merge_orders'))).toBe(false);
  });

  it('through processing: the held row ends RETRY_WAIT with ORA-30006, the other DONE, in one committed chunk', async () => {
    const rows = claimRows([1, 2]);

    let claims = 0;
    const db = new RecordingDatabase({
      resultSetRows: (sql) => (sql === oracleQuery('claim') && claims++ === 0 ? rows : []),
      executeMany: (sql, binds: OraBinds[]) =>
        isLock(sql)
          ? { outBinds: binds.map((b) => ({ failure: b.stage_id === 2 ? BUSY : null })) }
          : { rowsAffected: binds.length, ...(sql === oracleQuery('merge_orders') ? { batchErrors: [] } : {}) },
    });
    const engine = createOracleEngineWith(db, constants);
    const result = await processBacklog(engine, processOptions(10_000));
    expect(result.counts).toMatchObject({ claimed: 2, done: 1, retryWait: 1, error: 0 });
    const done = db.executeManyCalls().find((c) => c.sql === oracleQuery('finalize_done'));
    expect(done?.binds.map((b) => b.stage_id)).toEqual([1]);
    const failed = db.executeManyCalls().find((c) => c.sql === oracleQuery('finalize_failed'));
    expect(failed?.binds).toEqual([expect.objectContaining({ stage_id: 2, status: 'RETRY_WAIT', error_code: 'ORA-30006' })]);
    expect(db.executeManyCalls().find((c) => c.sql === oracleQuery('merge_orders'))?.binds).toEqual([{ stage_id: 1 }]);
    expect(db.trace().filter((t) => t.endsWith(':commit')).length).toBeGreaterThanOrEqual(1);
  });
});

describe('Oracle driver: a discarded connection whose close hangs (recording connection)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is destroyed after 5 s, and counts against maxOpen until then: the waiting caller gets a connection only after', async () => {
    vi.useFakeTimers();
    let broke = false;
    const db = new RecordingDatabase({
      execute: (_sql, _binds, _options, conn) => {
        if (conn === 1 && !broke) {
          broke = true;
          throw driverError('ORA-03113', 'end-of-file on communication channel');
        }
        return { rows: [] };
      },
      // the logoff of session 1 never comes back: a dead network path
      close: (conn) => (conn === 1 ? new Promise<void>(() => undefined) : undefined),
    });
    const opened: number[] = [];
    const connector = {
      async getConnection(): Promise<OraConnection> {
        const connection = await db.getConnection();
        opened.push(connection.id);
        return connection;
      },
    };
    const engine = createOracleEngineWith(connector, constants, { maxIdle: 1, maxOpen: 1 });
    const first = engine.transaction((tx) => tx.lockStaleProcessing(new Date(0))).catch((e: unknown) => e);
    const second = engine.transaction((tx) => tx.lockStaleProcessing(new Date(0)));
    await vi.advanceTimersByTimeAsync(4_900);
    // session 1 is still closing: no second session yet, the cap holds
    expect(opened).toEqual([1]);
    expect(db.calls.some((c) => c.kind === 'destroy')).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(db.calls.filter((c) => c.kind === 'destroy')).toEqual([{ kind: 'destroy', conn: 1 }]);
    expect(db.ended.has(1)).toBe(true);
    await expect(second).resolves.toEqual([]);
    expect(opened).toEqual([1, 2]);
    expect(String(await first)).toMatch(/ORA-03113/);
    await engine.close();
  });

  it('a close that ends in time is not destroyed', async () => {
    const db = new RecordingDatabase({
      execute: () => {
        throw driverError('ORA-03113', 'end-of-file on communication channel');
      },
    });
    const engine = createOracleEngineWith(db, constants, { maxIdle: 1, maxOpen: 1 });
    await expect(engine.transaction((tx) => tx.lockStaleProcessing(new Date(0)))).rejects.toThrow(/ORA-03113/);
    expect(db.calls.some((c) => c.kind === 'destroy')).toBe(false);
    expect(db.ended.has(1)).toBe(true);
  });
});
