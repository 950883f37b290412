/**
 * The run records of init, recover and retry on the Oracle engine, against a RECORDING database
 * (test/oracle/recording-connection.ts): which statements are sent, with which binds. Nothing
 * here runs on an Oracle Database.
 */
import { describe, expect, it } from 'vitest';
import { createOracleEngineWith } from '../../src/engine/oracle/index.js';
import { boundedWait } from '../../src/engine/oracle/merge.js';
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import { OrderLoader } from '../../src/loader.js';
import { listMigrations } from '../../src/sql-files.js';
import { memoryLogger } from '../support/memory-logger.js';
import { catalogRows, constants, driverError, everyObject, RecordingDatabase, type Call } from './recording-connection.js';

type ExecuteCall = Extract<Call, { kind: 'execute' }>;

/** A database whose migrations are all recorded, whose run ids count up, and whose lock queries return `locked`. */
function scriptedPool(locked: Record<string, unknown>[] = [], heldRows: Record<string, unknown>[] = []) {
  let runId = 40;
  return new RecordingDatabase({
    execute: (sql, binds) => {
      if (sql.startsWith('CREATE TABLE order_loader_migration'))
        throw driverError('ORA-00955', 'name is already used by an existing object');
      if (sql.startsWith('SELECT version')) return { rows: listMigrations('oracle').map((m) => ({ VERSION: m.version })) };
      if (sql === oracleQuery('schema_objects')) return { rows: catalogRows(everyObject(), binds) };
      if (sql === oracleQuery('run_start')) return { outBinds: { run_id: [++runId] }, rowsAffected: 1 };
      if (sql === oracleQuery('lock_stale_processing')) return { rows: locked };
      if (sql === oracleQuery('lock_abandoned_holds')) return { rows: heldRows };
      if (sql === oracleQuery('held_loads'))
        return {
          rows: [
            { LOAD_ID: '3', N: '4', HELD_SINCE: '2026-01-01T00:00:00.000Z', FILE_NAME: 'in/a.csv', STAGING: '0', CONTROL: '0' },
            { LOAD_ID: '5', N: '2', HELD_SINCE: '2026-01-01T00:00:00.000Z', FILE_NAME: 'in/b.txt', STAGING: '0', CONTROL: '1' },
          ],
        };
      // accept: load 5 is held for its control totals, load 3 never was
      if (sql === oracleQuery('control_hold'))
        return {
          rows:
            (binds.load_id as { val: unknown }).val === 5
              ? [{ DETAIL: JSON.stringify({ loadId: 5, claimed: { count: '3' }, read: { count: 2 } }), ACCEPTED: '0' }]
              : [],
        };
      if (sql === oracleQuery('lock_control_held')) return { rows: heldRows };
      // retry walks its batches by stage_id (find, then lock the range, FOR UPDATE WAIT its
      // --row-lock-wait): only rows past the cursor
      if (
        sql === oracleQuery('find_error_rows') ||
        sql.replace(/ WAIT \d+$/, '') === boundedWait(oracleQuery('lock_error_rows'), undefined)
      ) {
        const after = (binds.after_stage_id as { val: number }).val;
        return { rows: locked.filter((row) => Number(row.STAGE_ID) > after) };
      }
      if (sql === oracleQuery('status_retry_wait')) return { rows: [{ N: '2', NEXT_DUE_AT: '2026-01-01T01:00:00.000Z' }] };
      return { rows: [] };
    },
  });
}

function runRecords(db: RecordingDatabase) {
  const starts = db.calls.filter((c): c is ExecuteCall => c.kind === 'execute' && c.sql === oracleQuery('run_start'));
  const events = db
    .executeManyCalls()
    .filter((c) => c.sql === oracleQuery('run_event'))
    .flatMap((c) => c.binds);
  const finishes = db.calls.filter((c): c is ExecuteCall => c.kind === 'execute' && c.sql === oracleQuery('run_finish'));
  return {
    commands: starts.map((c) => (c.binds.command as { val: unknown }).val),
    events: events.map((b) => [b.run_id, b.event]),
    details: events.map((b) => (b.detail === null || b.detail === undefined ? null : (JSON.parse(b.detail as string) as unknown))),
    finishes: finishes.map((c) => [
      (c.binds.run_id as { val: unknown }).val,
      (c.binds.status as { val: unknown }).val,
      JSON.parse(String((c.binds.counts as { val: unknown }).val)) as unknown,
    ]),
  };
}

const errorRow = {
  STAGE_ID: '7',
  SOURCE_KEY: 'K7',
  CUSTOMER_ID: '42',
  ORDER_DATE: '2024-04-01',
  AMOUNT: null,
  CURRENCY: 'JPY',
  PROCESS_STATUS: 'ERROR',
  ATTEMPT_COUNT: '1',
  LOAD_ID: '3',
  LINE_NO: '8',
  ERROR_CODE: 'MISSING_AMOUNT',
  ERROR_MESSAGE: 'amount is missing',
  UPDATED_AT: '2024-05-01T10:00:00.000Z',
};

describe('Oracle engine (recording database): a run for init, recover and retry', () => {
  it('init: migrate, then an init run with the applied list', async () => {
    const db = scriptedPool();
    const loader = OrderLoader.fromEngine(createOracleEngineWith(db, constants), memoryLogger().logger);
    expect(await loader.init()).toEqual([]);
    const r = runRecords(db);
    expect(r.commands).toEqual(['init']);
    expect(r.events).toEqual([
      [41, 'invoked'],
      [41, 'migrated'],
      [41, 'completed'],
    ]);
    expect(r.details[1]).toEqual({ applied: [] });
    expect(r.finishes).toEqual([[41, 'COMPLETED', { migrations: 0 }]]);
  });

  it('recover: a recover run with the count of rows recovered', async () => {
    const db = scriptedPool();
    const loader = OrderLoader.fromEngine(createOracleEngineWith(db, constants), memoryLogger().logger);
    await loader.recover({ olderThanMs: 60_000, operator: 'ops', reason: 'stuck', dryRun: false });
    const r = runRecords(db);
    expect(r.commands).toEqual(['recover']);
    expect(r.events).toEqual([
      [41, 'invoked'],
      [41, 'recovered'],
      [41, 'completed'],
    ]);
    expect(r.details[0]).toEqual({ olderThanMs: 60_000, operator: 'ops', reason: 'stuck' });
    expect(r.finishes).toEqual([[41, 'COMPLETED', { recovered: 0 }]]);
  });

  it('recover: the HELD rows of abandoned loads locked with the same cutoff, released audited; the rest reported by load', async () => {
    const held = { ...errorRow, STAGE_ID: '9', SOURCE_KEY: 'K9', PROCESS_STATUS: 'HELD', ERROR_CODE: null, ERROR_MESSAGE: null };
    const db = scriptedPool([], [held]);
    const loader = OrderLoader.fromEngine(createOracleEngineWith(db, constants), memoryLogger().logger);
    const before = Date.now();
    const report = await loader.recover({ olderThanMs: 60_000, operator: 'ops', reason: 'give the set up', dryRun: false });
    const lock = db.calls.find((c): c is ExecuteCall => c.kind === 'execute' && c.sql === oracleQuery('lock_abandoned_holds'));
    const cutoff = Date.parse(`${String((lock?.binds.older_than as { val: unknown }).val)}Z`);
    expect(cutoff).toBeGreaterThanOrEqual(before - 60_000 - 1);
    expect(cutoff).toBeLessThanOrEqual(Date.now() - 60_000);
    expect(report).toMatchObject({
      count: 1,
      released: 1,
      changes: [{ stageId: 9, oldStatus: 'HELD', newStatus: 'READY', action: 'RECOVER' }],
    });
    // held_loads read after the commit: what it says is left HELD, with why
    expect(report.heldKept).toEqual([
      { loadId: 3, rows: 4, heldSince: new Date('2026-01-01T00:00:00.000Z'), fileName: 'in/a.csv', staging: false, why: 'younger' },
      {
        loadId: 5,
        rows: 2,
        heldSince: new Date('2026-01-01T00:00:00.000Z'),
        fileName: 'in/b.txt',
        staging: false,
        control: true,
        why: 'control',
      },
    ]);
    const applied = db.executeManyCalls().filter((c) => c.sql === oracleQuery('apply_manual_changes'));
    expect(applied.flatMap((c) => c.binds.map((b) => b.stage_id))).toEqual([9]);
    // the load given up leaves the file sets that held it, and the sets waiting on nothing go
    const sets = db.calls.filter(
      (c): c is ExecuteCall =>
        c.kind === 'execute' && (c.sql === oracleQuery('hold_set_release') || c.sql === oracleQuery('hold_set_forget')),
    );
    expect(
      sets.map((c) => [
        c.sql === oracleQuery('hold_set_release') ? 'release' : 'forget',
        Object.values(c.binds).map((b) => (b as { val: unknown }).val),
      ]),
    ).toEqual([
      ['release', [3]],
      ['forget', [null]],
    ]);
    expect(runRecords(db).finishes).toEqual([[41, 'COMPLETED', { recovered: 1 }]]);
  });

  it('retry --no-process: a retry run; with processing: the processing in the same run, then the rows waiting', async () => {
    const db = scriptedPool([errorRow]);
    const loader = OrderLoader.fromEngine(createOracleEngineWith(db, constants), memoryLogger().logger);
    const request = {
      selector: { stageIds: [7] },
      all: false,
      corrections: { amount: '10' },
      reason: 'fixed',
      operator: 'ops',
      dryRun: false,
    };
    await loader.retry(request, { process: false });
    const withProcess = await loader.retry(request);
    const r = runRecords(db);
    expect(r.commands).toEqual(['retry', 'retry']);
    expect(r.events).toEqual([
      [41, 'invoked'],
      [41, 'retried'],
      [41, 'completed'],
      [42, 'invoked'],
      [42, 'retried'],
      [42, 'processed'],
      [42, 'completed'],
    ]);
    expect(r.finishes[0]).toEqual([41, 'COMPLETED', { retried: 1 }]);
    expect(r.finishes[1]).toEqual([42, 'COMPLETED', expect.objectContaining({ retried: 1, claimed: 0 })]);
    expect(withProcess.process).toMatchObject({ runId: 42, retryWait: { count: 2, nextDueAt: new Date('2026-01-01T01:00:00.000Z') } });
  });

  it('accept: the control hold read and the load’s HELD rows locked by its id, released audited (ACCEPT), the load marked accepted in the accept’s run', async () => {
    const held = {
      ...errorRow,
      STAGE_ID: '9',
      SOURCE_KEY: 'K9',
      PROCESS_STATUS: 'HELD',
      LOAD_ID: '5',
      ERROR_CODE: null,
      ERROR_MESSAGE: null,
    };
    const db = scriptedPool([], [held]);
    const loader = OrderLoader.fromEngine(createOracleEngineWith(db, constants), memoryLogger().logger);
    const { accept } = await loader.accept({ loadId: 5, reason: 'partner confirmed', operator: 'ops', dryRun: false }, { process: false });
    expect(accept).toMatchObject({
      loadId: 5,
      count: 1,
      hold: { claimed: { count: '3' } },
      changes: [{ stageId: 9, oldStatus: 'HELD', newStatus: 'READY', action: 'ACCEPT' }],
    });
    const lock = db.calls.find((c): c is ExecuteCall => c.kind === 'execute' && c.sql === oracleQuery('lock_control_held'));
    expect((lock?.binds.load_id as { val: unknown }).val).toBe(5);
    const applied = db.executeManyCalls().filter((c) => c.sql === oracleQuery('apply_manual_changes'));
    expect(applied.flatMap((c) => c.binds.map((b) => [b.stage_id, b.action]))).toEqual([[9, 'ACCEPT']]);
    const r = runRecords(db);
    expect(r.events).toEqual([
      [41, 'invoked'],
      [41, 'control_accepted'],
      [41, 'accepted'],
      [41, 'completed'],
    ]);
    expect(r.details[1]).toEqual({ loadId: 5, rows: 1, operator: 'ops', reason: 'partner confirmed' });
    await expect(loader.accept({ loadId: 3, reason: 'x', dryRun: false })).rejects.toThrow(/not held for its control totals/);
  });

  it('retry --dry-run records nothing', async () => {
    const db = scriptedPool([errorRow]);
    const loader = OrderLoader.fromEngine(createOracleEngineWith(db, constants), memoryLogger().logger);
    await loader.retry({ selector: { stageIds: [7] }, all: false, corrections: {}, reason: 'look', operator: 'ops', dryRun: true });
    expect(runRecords(db).commands).toEqual([]);
  });

  it('retryWaitSummary: one query, count and the first due time as UTC text', async () => {
    const db = scriptedPool();
    const engine = createOracleEngineWith(db, constants);
    expect(await engine.retryWaitSummary()).toEqual({ count: 2, nextDueAt: new Date('2026-01-01T01:00:00.000Z') });
    expect(db.calls.filter((c) => c.kind === 'execute').map((c) => c.sql)).toEqual([oracleQuery('status_retry_wait')]);
  });
});
