/**
 * --row-lock-wait on Oracle for the waits no lock step can take first: a key another session
 * inserted and has not committed makes the MERGE's insert (processing, both ways), staging's
 * direct insert and its insert of new keys wait for that session, and Oracle has no lock timeout
 * for DML. Each such statement runs under a call timeout of what is left of the transaction's
 * one bound (src/engine/oracle/lock-budget.ts); its NJS-123 is transient (the chunk or batch rolls
 * back and runs again, the connection kept), the connection's own call_timeout set back after.
 * Against the RECORDING connection: the other session's wait is scripted
 * (WaitsForAnotherSession), ended as thin mode ends a call at its call timeout (read in
 * lib/thin/protocol/protocol.js, not run against a server).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createOracleEngineWith } from '../../src/engine/oracle/index.js';
import { LockBudget, MIN_BOUNDED_CALL_MS } from '../../src/engine/oracle/lock-budget.js';
import { processRowsSql } from '../../src/engine/oracle/chunk-in-database.js';
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import type { OraBinds } from '../../src/engine/oracle/oracledb-types.js';
import { retryRows } from '../../src/pipeline/operations.js';
import { processBacklog } from '../../src/pipeline/process.js';
import { memoryLogger } from '../support/memory-logger.js';
import { constants, driverError, RecordingDatabase, WaitsForAnotherSession } from './recording-connection.js';
import { claimed, claimRows, isLock, processOptions } from './lock-rows.js';

/** The engine's default call_timeout (DEFAULT_CALL_TIMEOUT_SECONDS), set on every connection. */
const OWN_CALL_TIMEOUT = 1_800_000;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('Oracle --row-lock-wait: a key another session inserted and has not committed (recording connection)', () => {
  it('the MERGE runs under a call timeout of what is left of the chunk’s bound; its NJS-123 is transient and the connection is kept', async () => {
    const db = new RecordingDatabase({
      executeMany: (sql, binds: OraBinds[]) => {
        if (isLock(sql)) return { outBinds: binds.map(() => ({ failure: null })) };
        if (sql === oracleQuery('merge_orders')) throw new WaitsForAnotherSession();
        return { rowsAffected: binds.length, batchErrors: [] };
      },
    });
    const engine = createOracleEngineWith(db, constants, { processInDatabase: false });
    const error = await engine
      .transaction((tx) => tx.mergeOrders([claimed(1), claimed(2)], { isolationBlock: 2 }), { lockWaitMs: 2_500 })
      .catch((e: unknown) => e);
    const merge = db.executeManyCalls().find((c) => c.sql === oracleQuery('merge_orders'));
    // 2.5 s rounded up to 3 s, less the lock step's few milliseconds; not the connection's 30 minutes
    expect(merge?.callTimeout).toBeGreaterThan(2_000);
    expect(merge?.callTimeout).toBeLessThanOrEqual(3_000);
    expect(String(error)).toMatch(/NJS-123: call timeout of \d+ ms exceeded: the statement waited past --row-lock-wait \(3 s/);
    expect(engine.classifyError(error)).toBe('transient');
    // rolled back on the same connection, which is kept, its own call timeout back
    expect(db.trace().slice(-1)).toEqual(['1:rollback']);
    await engine.transaction((tx) => tx.lockStaleProcessing(new Date(0)));
    expect(db.calls.some((c) => c.kind === 'close')).toBe(false);
    const after = db.calls.at(-2);
    expect(after).toMatchObject({ kind: 'execute', conn: 1, callTimeout: OWN_CALL_TIMEOUT });
  });

  it('the bound is the chunk’s: after the lock step waited, the MERGE gets what is left, at least 1 s', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    vi.spyOn(Date, 'now').mockImplementation(() => clock);
    const db = new RecordingDatabase({
      executeMany: (sql, binds: OraBinds[]) => {
        if (isLock(sql)) {
          // row 2 is held: the NOWAIT pass finds it, the WAIT pass waits 2.6 s and gets it
          const nowait = /NOWAIT/.test(sql);
          if (!nowait) clock += 2_600;
          return {
            outBinds: binds.map((b) => ({
              failure: nowait && b.stage_id === 2 ? 'ORA-00054: resource busy and acquire with NOWAIT specified' : null,
            })),
          };
        }
        return { rowsAffected: binds.length, batchErrors: [] };
      },
    });
    const engine = createOracleEngineWith(db, constants, { processInDatabase: false });
    await engine.transaction((tx) => tx.mergeOrders([claimed(1), claimed(2)], { isolationBlock: 2 }), { lockWaitMs: 4_000 });
    const calls = db.executeManyCalls();
    expect(calls.map((c) => [isLock(c.sql) ? (/WAIT (\d+)/.exec(c.sql)?.[1] ?? 'NOWAIT') : 'merge', c.callTimeout])).toEqual([
      ['NOWAIT', OWN_CALL_TIMEOUT],
      ['4', OWN_CALL_TIMEOUT],
      // 4 s less the 2.6 s waited
      ['merge', 1_400],
    ]);
    // past the bound: nothing left, and a statement still gets MIN_BOUNDED_CALL_MS
    const budget = new LockBudget(2);
    budget.leftMs();
    clock += 5_000;
    expect([budget.leftMs(), budget.secondsLeft(), MIN_BOUNDED_CALL_MS]).toEqual([0, 0, 1_000]);
  });

  it('--row-lock-wait 0 or none: the MERGE keeps the connection’s own call timeout, and its NJS-123 stays fatal', async () => {
    for (const lockWaitMs of [0, undefined]) {
      const db = new RecordingDatabase({
        executeMany: (sql) => {
          if (sql === oracleQuery('merge_orders')) throw new WaitsForAnotherSession();
          return { rowsAffected: 1, batchErrors: [] };
        },
      });
      const engine = createOracleEngineWith(db, constants, { processInDatabase: false });
      const error = await engine
        .transaction((tx) => tx.mergeOrders([claimed(1)], { isolationBlock: 1 }), { lockWaitMs })
        .catch((e: unknown) => e);
      expect(db.executeManyCalls().map((c) => c.callTimeout)).toEqual([OWN_CALL_TIMEOUT]);
      expect(String(error)).toBe(`Error: NJS-123: call timeout of ${OWN_CALL_TIMEOUT} ms exceeded`);
      expect(engine.classifyError(error)).toBe('fatal');
      expect(engine.classifyError(driverError('NJS-123', 'call timeout of 5 ms exceeded'))).toBe('fatal');
    }
  });

  it('through processing in the database: the chunk whose block waits is rolled back and run again; once the key is committed it merges', async () => {
    let blocks = 0;
    let claims = 0;
    const db = new RecordingDatabase({
      resultSetRows: (sql) => (sql === oracleQuery('claim') && claims++ < 2 ? claimRows([1, 2], true) : []),
      executeMany: (sql, binds: OraBinds[]) => {
        if (sql === processRowsSql() && blocks++ === 0) throw new WaitsForAnotherSession();
        if (sql === processRowsSql()) return { outBinds: binds.map(() => ({ failure: null })) };
        return { rowsAffected: binds.length };
      },
    });
    const engine = createOracleEngineWith(db, constants, { processInDatabase: true });
    const logs = memoryLogger();
    const result = await processBacklog(
      engine,
      processOptions(5_000, { retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 }, logger: logs.logger }),
    );
    expect(result.counts).toMatchObject({ chunks: 1, claimed: 2, done: 2, retryWait: 0, error: 0 });
    const blockCalls = db.executeManyCalls().filter((c) => c.sql === processRowsSql());
    expect(blockCalls).toHaveLength(2);
    for (const c of blockCalls) {
      expect(c.callTimeout).toBeGreaterThan(4_000);
      expect(c.callTimeout).toBeLessThanOrEqual(5_000);
    }
    // one connection throughout: the timeout did not close it
    expect(db.sessions()).toBe(1);
    expect(db.trace().filter((t) => t.endsWith(':rollback'))).toEqual(['1:rollback']);
    expect(logs.records.some((r) => /NJS-123.*--row-lock-wait/.test(JSON.stringify(r)))).toBe(true);
  });

  it('staging: the direct insert and the insert of new keys wait within the batch’s bound; the timeout fails the batch as transient', async () => {
    const input = { sourceKey: 'K1', customerId: '1', orderDate: '2026-01-01', amount: '20', currency: 'JPY', lineNo: 2 };
    for (const [stageDirect, waits] of [
      [true, oracleQuery('stage_batch_direct')],
      [false, oracleQuery('stage_batch_new')],
    ] as const) {
      const db = new RecordingDatabase({
        executeMany: (sql, binds: OraBinds[]) => {
          if (sql === waits) throw new WaitsForAnotherSession();
          return { rowsAffected: binds.length, batchErrors: [] };
        },
        execute: (sql) =>
          sql === oracleQuery('stage_batch_counts')
            ? { rows: [{ UPDATED: '0', UNCHANGED: '0', UNCHANGED_ERROR: '0', REPEATED_IN_LOAD: '0' }] }
            : { rows: [] },
      });
      const engine = createOracleEngineWith(db, constants, { stageDirect });
      const error = await engine.transaction((tx) => tx.stageBatch(2, [input]), { lockWaitMs: 1_500 }).catch((e: unknown) => e);
      const call = db.executeManyCalls().find((c) => c.sql === waits);
      expect(call?.callTimeout).toBeGreaterThanOrEqual(MIN_BOUNDED_CALL_MS);
      expect(call?.callTimeout).toBeLessThanOrEqual(2_000);
      expect(engine.classifyError(error)).toBe('transient');
      expect(db.calls.some((c) => c.kind === 'close')).toBe(false);
    }
  });
});

describe('Oracle --row-lock-wait: retry’s lock statements share one bound (recording connection)', () => {
  it('a batch locked by two bind sets (over 20 load ids): the second gets what the first left, in whole seconds, rounded up', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    vi.spyOn(Date, 'now').mockImplementation(() => clock);
    const row = (id: number) => ({ ...claimRows([id])[0], PROCESS_STATUS: 'ERROR', ERROR_CODE: 'ORA-01438' });
    const waits: string[] = [];
    const db = new RecordingDatabase({
      execute: (sql, binds) => {
        const wait = / FOR UPDATE( WAIT \d+| NOWAIT)?$/.exec(sql);
        if (wait !== null) {
          waits.push(wait[0].trim());
          // the first lock statement waits 1.4 s for another session's row, then gets it
          if (waits.length === 1) clock += 1_400;
        }
        // one ERROR row per bind set: stage_id 1 in the first (load 7's), 2 in the second
        const past = (binds.after_stage_id as { val: number } | undefined)?.val ?? 0;
        const id = Object.values(binds).some((b) => (b as { val?: unknown }).val === 7) ? 1 : 2;
        return { rows: sql === oracleQuery('control_held_errors') || past >= id ? [] : [row(id)] };
      },
    });
    const engine = createOracleEngineWith(db, constants);
    const loadIds = Array.from({ length: 25 }, (_, i) => 7 + i);
    const report = await retryRows(
      engine,
      { selector: { loadIds }, all: false, corrections: {}, reason: 'r', operator: 'ops@example', dryRun: false },
      { batchSize: 10, lockWaitMs: 1_500 },
    );
    expect(report.count).toBe(2);
    // 1.5 s rounds up to 2 s for the batch; 0.6 s left rounds up to 1 s (each bind set waited 2 s before)
    expect(waits).toEqual(['FOR UPDATE WAIT 2', 'FOR UPDATE WAIT 1']);
  });
});
