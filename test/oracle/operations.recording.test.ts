/**
 * Oracle engine operations (retry, recover, errors export, resume, progress) against a
 * RECORDING connection (test/oracle/recording-connection.ts). These tests check what the engine
 * sends to node-oracledb (SQL text, binds, bindDefs, options, statement order, commit) and how
 * it reads thin-mode-shaped answers. They run no SQL and say nothing about how a real Oracle
 * Database executes it: locking, SKIP LOCKED, and the SQL's validity on 19c are not tested here.
 */
import { describe, expect, it } from 'vitest';
import oracledb from 'oracledb';
import { createOracleEngineWith, ORACLE_MAX_CHUNK } from '../../src/engine/oracle/index.js';
import { boundedWait } from '../../src/engine/oracle/merge.js';
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import type { ManualChange } from '../../src/engine/types.js';
import { retryRows } from '../../src/pipeline/operations.js';
import { retryingTransient } from '../../src/pipeline/retry.js';
import { memoryLogger } from '../support/memory-logger.js';
import { MAX_SLOT_SETS } from '../../src/engine/oracle/binds.js';
import { UserError } from '../../src/errors.js';
import { constants, driverError, RecordingDatabase, type Call } from './recording-connection.js';

const NUMBER = (oracledb as unknown as { DB_TYPE_NUMBER: unknown }).DB_TYPE_NUMBER;
const VARCHAR = (oracledb as unknown as { DB_TYPE_VARCHAR: unknown }).DB_TYPE_VARCHAR;
const CLOB = (oracledb as unknown as { DB_TYPE_CLOB: unknown }).DB_TYPE_CLOB;

type ExecuteCall = Extract<Call, { kind: 'execute' }>;

/** lock_error_rows.sql as sent in a transaction without a row-lock wait: its WAIT 86400 marker left out (plain FOR UPDATE). */
const LOCK_SENT = boundedWait(oracleQuery('lock_error_rows'), undefined);

/** The text a statement is sent as: lock_error_rows.sql with its wait set, the others as they are. */
const sent = (name: string): string => (name === 'lock_error_rows' ? LOCK_SENT : oracleQuery(name));

function executes(db: RecordingDatabase, name?: string): ExecuteCall[] {
  return db.calls.filter((c): c is ExecuteCall => c.kind === 'execute' && (name === undefined || c.sql === sent(name)));
}

/** The binds of a slot list as the engine should send them. */
function slots(name: string, values: (number | string)[] | null, maxSize?: number): Record<string, unknown> {
  const out: Record<string, unknown> = { [`by_${name}`]: { val: values === null ? 0 : 1, type: NUMBER } };
  for (let i = 0; i < 20; i++) {
    const val = values?.[i] ?? null;
    out[`${name}${i + 1}`] = maxSize === undefined ? { val, type: NUMBER } : { val, type: VARCHAR, maxSize };
  }
  return out;
}

/** A stage row as the snapshot queries return it (NUMBER and CLOB fetched as strings). */
function stageRow(stageId: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    STAGE_ID: String(stageId),
    SOURCE_KEY: `K${stageId}`,
    CUSTOMER_ID: '42',
    ORDER_DATE: '2024-04-01',
    AMOUNT: '1200.00',
    CURRENCY: 'JPY',
    PROCESS_STATUS: 'ERROR',
    ATTEMPT_COUNT: '3',
    LOAD_ID: '7',
    LINE_NO: String(stageId + 1),
    ERROR_CODE: 'ORA-01438',
    ERROR_MESSAGE: 'ORA-01438: value larger than specified precision allowed for this column',
    UPDATED_AT: '2024-05-01T10:00:00.123Z',
    ...over,
  };
}

function snapshot(stageId: number) {
  return {
    stageId,
    sourceKey: `K${stageId}`,
    customerId: '42',
    orderDate: '2024-04-01',
    amount: '1200.00',
    currency: 'JPY',
    status: 'ERROR',
    attemptCount: 3,
    loadId: 7,
    lineNo: stageId + 1,
    errorCode: 'ORA-01438',
    errorMessage: 'ORA-01438: value larger than specified precision allowed for this column',
    updatedAt: new Date('2024-05-01T10:00:00.123Z'),
  };
}

function change(stageId: number, over: Partial<ManualChange> = {}): ManualChange {
  return {
    stageId,
    sourceKey: `K${stageId}`,
    action: 'RETRY',
    oldStatus: 'ERROR',
    newStatus: 'READY',
    values: { customerId: '42', orderDate: '2024-04-01', amount: '1200.50', currency: 'JPY' },
    oldValues: '{"amount":"99999999999.00","status":"ERROR"}',
    newValues: '{"amount":"1200.50","status":"READY"}',
    operator: 'ops@example',
    reason: 'amount corrected by the sender',
    ...over,
  };
}

const NEW_SQL = [
  'lock_error_rows',
  'find_error_rows',
  'lock_stale_processing',
  'apply_manual_changes',
  'apply_manual_changes_audit',
  'error_rows',
  'staging_history',
  'runs_running',
  'claimable_count',
  'rejected_lines',
  'latest_raw_records',
  'file_layouts',
];

describe('Oracle operations SQL text (static checks, not an Oracle parse)', () => {
  it.each(NEW_SQL)('%s.sql has no PostgreSQL-only syntax, no trailing semicolon, and only named binds', (name) => {
    const sql = oracleQuery(name);
    expect(sql).not.toMatch(/;\s*$/);
    expect(sql).not.toMatch(/::|\$\d|\bLIMIT\b|\bLATERAL\b|=\s*ANY\b|\bunnest\b|\bnow\(\)|\bILIKE\b|\bBOOLEAN\b/i);
    expect(sql).not.toMatch(/\bCOMMIT\b/i);
  });

  it('only the two lock queries lock; FETCH FIRST / ROWNUM never appear with FOR UPDATE', () => {
    for (const name of NEW_SQL) {
      const sql = oracleQuery(name);
      if (/FOR UPDATE/i.test(sql)) expect(sql).not.toMatch(/FETCH\s+FIRST|ROWNUM/i);
    }
    expect(oracleQuery('lock_error_rows')).toMatch(
      /ORDER BY CASE WHEN process_status = 'ERROR' THEN stage_id END\s+FOR UPDATE WAIT 86400$/,
    );
    expect(LOCK_SENT).toMatch(/ORDER BY CASE WHEN process_status = 'ERROR' THEN stage_id END\s+FOR UPDATE$/);
    expect(oracleQuery('lock_stale_processing')).toMatch(/ORDER BY stage_id\s+FOR UPDATE SKIP LOCKED$/);
    expect(oracleQuery('error_rows')).not.toMatch(/FOR UPDATE/i);
    expect(oracleQuery('find_error_rows')).not.toMatch(/FOR UPDATE/i);
  });
});

describe('Oracle engine (recording connection): lockErrorRows / findErrorRows (one retry batch)', () => {
  const window = { afterStageId: 4, limit: 2 };
  const range = (after: number, upTo: number) => ({
    after_stage_id: { val: after, type: NUMBER },
    up_to_stage_id: { val: upTo, type: NUMBER },
  });
  const findWindow = (after: number, limit: number) => ({
    after_stage_id: { val: after, type: NUMBER },
    row_limit: { val: limit, type: NUMBER },
  });

  it('lock: the batch is found without a lock (FETCH FIRST), then the stage_id range it spans is locked FOR UPDATE; no commit inside', async () => {
    const db = new RecordingDatabase({
      execute: (sql) => ({
        rows:
          sql === oracleQuery('find_error_rows')
            ? [stageRow(5), stageRow(9)]
            : [stageRow(5), stageRow(9, { LOAD_ID: null, LINE_NO: null, CUSTOMER_ID: null })],
      }),
    });
    const engine = createOracleEngineWith(db, constants);
    const locked = await engine.transaction(async (tx) => {
      const rows = await tx.lockErrorRows({}, window);
      expect(db.calls.some((c) => c.kind === 'commit')).toBe(false);
      return rows;
    });
    expect(locked).toEqual([snapshot(5), { ...snapshot(9), loadId: null, lineNo: null, customerId: null }]);
    expect(db.trace()).toEqual(['1:execute:SELECT /*+ INDEX_ASC(order_stage', '1:execute:SELECT /*+ INDEX_ASC(order_stage', '1:commit']);
    const [find, lock] = executes(db);
    const none = {
      ...slots('stage_id', null),
      ...slots('source_key', null, 400),
      ...slots('error_code', null, 120),
      ...slots('load_id', null),
    };
    expect(find!.sql).toBe(oracleQuery('find_error_rows'));
    expect(find!.binds).toEqual({ ...none, ...findWindow(4, 2) });
    expect(lock!.sql).toBe(LOCK_SENT);
    expect(lock!.sql).toMatch(/^SELECT \/\*\+ INDEX_ASC\(order_stage ix_order_stage_error\) \*\//);
    expect(lock!.sql).toMatch(
      /WHERE CASE WHEN process_status = 'ERROR' THEN stage_id END > :after_stage_id\s[^]*AND CASE WHEN process_status = 'ERROR' THEN stage_id END <= :up_to_stage_id\s+ORDER BY CASE WHEN process_status = 'ERROR' THEN stage_id END\s+FOR UPDATE$/,
    );
    // the lock covers exactly the range of the batch found: after 4, up to the last row found (9)
    expect(lock!.binds).toEqual({ ...none, ...range(4, 9) });
    // a plain execute fetches every row of the FOR UPDATE cursor: no result set, no maxRows
    expect(lock!.options).toMatchObject({
      autoCommit: false,
      outFormat: (oracledb as unknown as { OUT_FORMAT_OBJECT: number }).OUT_FORMAT_OBJECT,
    });
    expect(lock!.options).not.toHaveProperty('resultSet');
    expect(lock!.options).not.toHaveProperty('maxRows');
    expect(lock!.options.fetchTypeHandler).toBeTypeOf('function');
  });

  it('find: one query with FETCH FIRST and no FOR UPDATE; nothing is locked', async () => {
    const db = new RecordingDatabase({ execute: () => ({ rows: [stageRow(7)] }) });
    const engine = createOracleEngineWith(db, constants);
    const rows = await engine.transaction((tx) => tx.findErrorRows({ loadIds: [7] }, { afterStageId: 0, limit: 500 }));
    expect(rows).toEqual([snapshot(7)]);
    const [call, ...rest] = executes(db);
    expect(rest).toEqual([]);
    expect(call!.sql).toBe(oracleQuery('find_error_rows'));
    expect(call!.sql).not.toMatch(/FOR UPDATE/i);
    expect(call!.sql).toMatch(/^SELECT \/\*\+ INDEX_ASC\(order_stage ix_order_stage_error\) \*\//);
    expect(call!.sql).toMatch(/WHERE CASE WHEN process_status = 'ERROR' THEN stage_id END > :after_stage_id\s/);
    expect(call!.sql).toMatch(/ORDER BY CASE WHEN process_status = 'ERROR' THEN stage_id END\s+FETCH FIRST :row_limit ROWS ONLY$/);
    expect(call!.binds).toMatchObject({ ...slots('load_id', [7]), ...findWindow(0, 500) });
  });

  it('lock: nothing found after the cursor, nothing locked', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    expect(await engine.transaction((tx) => tx.lockErrorRows({ errorCodes: ['ORA-01438'] }, window))).toEqual([]);
    expect(executes(db).map((c) => c.sql)).toEqual([oracleQuery('find_error_rows')]);
  });

  it('binds every selector value into slots (never into the SQL text), combined with AND', async () => {
    const db = new RecordingDatabase({ execute: () => ({ rows: [stageRow(3)] }) });
    const engine = createOracleEngineWith(db, constants);
    const key = "O'Reilly,注文-1";
    await engine.transaction((tx) =>
      tx.lockErrorRows(
        { stageIds: [3, 1, 3], sourceKeys: [key], errorCodes: ['ORA-01438', 'VALIDATE_DATE'], loadIds: [7] },
        { afterStageId: 0, limit: 10 },
      ),
    );
    const calls = executes(db);
    expect(calls.map((c) => c.sql)).toEqual([oracleQuery('find_error_rows'), LOCK_SENT]);
    const selected = {
      ...slots('stage_id', [3, 1]), // de-duplicated
      ...slots('source_key', [key], 400),
      ...slots('error_code', ['ORA-01438', 'VALIDATE_DATE'], 120),
      ...slots('load_id', [7]),
    };
    expect(calls[0]!.binds).toEqual({ ...selected, ...findWindow(0, 10) });
    expect(calls[1]!.binds).toEqual({ ...selected, ...range(0, 3) });
    for (const c of calls) {
      expect(c.sql).not.toContain('Reilly');
      expect(c.sql).not.toContain('ORA-01438');
    }
  });

  it('a list longer than 20 runs in slices in the same transaction; the batch is the first rows of their union in stage_id order', async () => {
    const stageIds = Array.from({ length: 45 }, (_, i) => 100 - i); // 100..56
    const db = new RecordingDatabase({
      execute: (_sql, binds) => {
        // answer each slice with the row of its first stage id slot
        const first = (binds.stage_id1 as { val: number }).val;
        return { rows: [stageRow(first)] };
      },
    });
    const engine = createOracleEngineWith(db, constants);
    const locked = await engine.transaction((tx) =>
      tx.lockErrorRows({ stageIds, sourceKeys: ['K100', 'K80', 'K60'] }, { afterStageId: 0, limit: 2 }),
    );
    const finds = executes(db, 'find_error_rows');
    const locks = executes(db, 'lock_error_rows');
    expect(finds).toHaveLength(3);
    // the slice that found only 100, past the batch's end (80), is not run again
    expect(locks).toHaveLength(2);
    expect(
      finds.map((c) => Object.keys(c.binds).filter((k) => /^stage_id\d+$/.test(k) && (c.binds[k] as { val: unknown }).val !== null).length),
    ).toEqual([20, 20, 5]);
    expect(locks.map((c) => c.binds.stage_id1)).toEqual([
      { val: 80, type: NUMBER },
      { val: 60, type: NUMBER },
    ]);
    for (const c of [...finds, ...locks]) {
      expect(c.binds).toMatchObject(slots('source_key', ['K100', 'K80', 'K60'], 400));
      expect(c.binds.by_error_code).toEqual({ val: 0, type: NUMBER });
    }
    // found 60, 80, 100; the batch of 2 ends at 80: every slice run locks up to 80
    for (const c of locks) expect(c.binds).toMatchObject(range(0, 80));
    expect(locked.map((r) => r.stageId)).toEqual([60, 80]);
    expect(db.trace().filter((t) => t.endsWith('commit'))).toHaveLength(1);
    expect(db.trace().at(-1)).toBe('1:commit');
  });

  it('two long lists: one execution per combination of slices', async () => {
    const db = new RecordingDatabase({ execute: () => ({ rows: [stageRow(1)] }) });
    const engine = createOracleEngineWith(db, constants);
    await engine.transaction((tx) =>
      tx.lockErrorRows(
        { stageIds: Array.from({ length: 21 }, (_, i) => i + 1), loadIds: Array.from({ length: 41 }, (_, i) => i + 1) },
        window,
      ),
    );
    expect(executes(db, 'find_error_rows')).toHaveLength(2 * 3);
    expect(executes(db, 'lock_error_rows')).toHaveLength(2 * 3);
  });

  it('two long lists: the locking pass re-runs only the combinations whose find returned a row of the batch', async () => {
    // only the combination of the first stage-id slice and the second load-id slice holds rows
    const db = new RecordingDatabase({
      execute: (_sql, binds) =>
        (binds.stage_id1 as { val: unknown }).val === 1 && (binds.load_id1 as { val: unknown }).val === 21
          ? { rows: [stageRow(5), stageRow(6)] }
          : { rows: [] },
    });
    const engine = createOracleEngineWith(db, constants);
    const rows = await engine.transaction((tx) =>
      tx.lockErrorRows(
        { stageIds: Array.from({ length: 21 }, (_, i) => i + 1), loadIds: Array.from({ length: 41 }, (_, i) => i + 1) },
        window,
      ),
    );
    expect(rows.map((r) => r.stageId)).toEqual([5, 6]);
    expect(executes(db, 'find_error_rows')).toHaveLength(2 * 3);
    const locks = executes(db, 'lock_error_rows');
    expect(locks).toHaveLength(1);
    expect((locks[0]?.binds.load_id1 as { val: unknown }).val).toBe(21);
  });

  it('lists whose slices would need more than MAX_SLOT_SETS queries are refused before anything is sent', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    const many = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
    // 200 stage ids x 200 load ids: 10 x 10 = 100 combinations of slices
    await expect(engine.transaction((tx) => tx.lockErrorRows({ stageIds: many(200), loadIds: many(200) }, window))).rejects.toThrow(
      /needs 100 queries .*at most 64/,
    );
    await expect(engine.listErrorRows({ loadIds: many(1300), limit: 10 })).rejects.toThrow(UserError); // 65 slices
    expect(executes(db)).toEqual([]);
    // 64 combinations are run: 160 x 160 values
    await engine.transaction((tx) => tx.findErrorRows({ stageIds: many(160), loadIds: many(160) }, window));
    expect(executes(db, 'find_error_rows')).toHaveLength(MAX_SLOT_SETS);
  });

  it('a given list whose values cannot match any row (longer than the column) matches nothing and sends nothing', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    const rows = await engine.transaction((tx) => tx.lockErrorRows({ sourceKeys: ['x'.repeat(101)] }, window));
    expect(rows).toEqual([]);
    expect(await engine.transaction((tx) => tx.findErrorRows({ sourceKeys: ['x'.repeat(101)] }, window))).toEqual([]);
    expect(db.trace()).toEqual(['1:commit', '1:commit']);
  });

  it('an empty list is "not given" (matches every ERROR row), like the PostgreSQL engine', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    await engine.transaction((tx) => tx.lockErrorRows({ stageIds: [], sourceKeys: [] }, window));
    const [call] = executes(db);
    expect(call!.binds.by_stage_id).toEqual({ val: 0, type: NUMBER });
    expect(call!.binds.by_source_key).toEqual({ val: 0, type: NUMBER });
  });

  it('a non-integer id fails before anything is sent', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    await expect(engine.transaction((tx) => tx.lockErrorRows({ stageIds: [1.5] }, window))).rejects.toThrow(/not an integer/);
    expect(db.trace()).toEqual(['1:rollback']);
  });
});

describe('Oracle engine (recording connection): retry in batches', () => {
  const request = (dryRun: boolean) => ({
    selector: { loadIds: [7] },
    all: false,
    corrections: {},
    reason: 'r',
    operator: 'ops@example',
    dryRun,
  });
  /**
   * A stage holding ERROR rows 1..n of load 7, answered by the find query's cursor and limit;
   * `held`: load 7 held for its control totals, whose rows the find and lock queries leave out
   * (their NOT EXISTS on the load's control_held event) and control_held_errors.sql counts.
   */
  function stage(n: number, held = false) {
    return new RecordingDatabase({
      execute: (sql, binds) => {
        if (sql === oracleQuery('control_held_errors')) return { rows: held ? [{ LOAD_ID: 7, N: n }] : [] };
        if (held) return { rows: [] };
        const after = (binds.after_stage_id as { val: number }).val;
        const upTo = sql.replace(/ WAIT \d+$/, '') === LOCK_SENT ? (binds.up_to_stage_id as { val: number }).val : Number.POSITIVE_INFINITY;
        const limit = sql === oracleQuery('find_error_rows') ? (binds.row_limit as { val: number }).val : Number.POSITIVE_INFINITY;
        const ids = Array.from({ length: n }, (_, i) => i + 1)
          .filter((id) => id > after && id <= upTo)
          .slice(0, limit);
        return { rows: ids.map((id) => stageRow(id)) };
      },
    });
  }

  it('a dry run sends no FOR UPDATE and writes nothing, and plans every batch', async () => {
    const db = stage(5);
    const engine = createOracleEngineWith(db, constants);
    const report = await retryRows(engine, request(true), { batchSize: 2 });
    expect(report).toMatchObject({ dryRun: true, count: 5 });
    expect(report.changes.map((c) => c.stageId)).toEqual([1, 2, 3, 4, 5]);
    const sent = db.calls.filter((c): c is Extract<Call, { sql: string }> => 'sql' in c);
    expect(sent.length).toBeGreaterThan(0);
    for (const c of sent) expect(c.sql).not.toMatch(/FOR\s+UPDATE/i);
    expect(db.executeManyCalls()).toEqual([]);
  });

  it('the rows of a load held for its control totals are left out by the database and counted once, by load', async () => {
    const db = stage(5, true);
    const engine = createOracleEngineWith(db, constants);
    const report = await retryRows(engine, request(false), { batchSize: 2 });
    expect(report).toMatchObject({ dryRun: false, count: 0, changes: [], controlHeld: [{ loadId: 7, rows: 5 }] });
    expect(db.executeManyCalls()).toEqual([]);
    const counted = executes(db, 'control_held_errors');
    expect(counted.map((c) => [c.binds.by_load_id, c.binds.load_id1, c.binds.load_id2])).toEqual([
      [
        { val: 1, type: NUMBER },
        { val: 7, type: NUMBER },
        { val: null, type: NUMBER },
      ],
    ]);
    expect(executes(db, 'control_hold')).toEqual([]);
    // the filter is the database's: the find and the lock name the load's control events
    for (const name of ['find_error_rows', 'lock_error_rows'])
      expect(oracleQuery(name)).toMatch(/NOT EXISTS \(SELECT 1\s+FROM load_run_event c\s+WHERE c\.event = 'control_held'/);
  });

  it('a long selector list is counted per slice and the counts of a load added', async () => {
    const db = new RecordingDatabase({
      execute: (sql) => (sql === oracleQuery('control_held_errors') ? { rows: [{ LOAD_ID: 7, N: 2 }] } : { rows: [] }),
    });
    const engine = createOracleEngineWith(db, constants);
    const ids = Array.from({ length: 25 }, (_, i) => i + 1);
    expect(await engine.transaction((tx) => tx.controlHeldErrors({ stageIds: ids }))).toEqual([{ loadId: 7, rows: 4 }]);
    expect(executes(db, 'control_held_errors')).toHaveLength(2);
  });

  it("the rows of a load an unfinished hold set holds are left out by the database and named as the set's", async () => {
    const db = new RecordingDatabase({
      execute: (sql) =>
        sql === oracleQuery('control_held_errors')
          ? {
              rows: [
                { LOAD_ID: 7, N: 2, CONTROL: 0, BY_SET: 1 },
                { LOAD_ID: 9, N: 1, CONTROL: 1, BY_SET: 1 },
              ],
            }
          : { rows: [] },
    });
    const engine = createOracleEngineWith(db, constants);
    const report = await retryRows(engine, request(false), { batchSize: 2 });
    expect(report).toMatchObject({
      count: 0,
      controlHeld: [
        { loadId: 7, rows: 2, set: true, control: false },
        { loadId: 9, rows: 1, set: true },
      ],
    });
    expect(report.controlHeld?.[1]).not.toHaveProperty('control');
    expect(db.executeManyCalls()).toEqual([]);
    // the filter is the database's: the find and the lock leave out the loads a set holds
    for (const name of ['find_error_rows', 'lock_error_rows'])
      expect(oracleQuery(name)).toMatch(/NOT EXISTS \(SELECT 1 FROM load_hold_set h WHERE h\.load_id = order_stage\.load_id\)/);
  });

  it('--row-lock-wait bounds the batch lock: FOR UPDATE WAIT n (whole seconds), plain FOR UPDATE for 0; ORA-30006 runs the batch again, then stops', async () => {
    const lockSent = (db: RecordingDatabase) =>
      db.calls
        .filter((c): c is ExecuteCall => c.kind === 'execute' && /FOR UPDATE/.test(c.sql))
        .map((c) => c.sql.slice(c.sql.lastIndexOf('FOR UPDATE')));
    for (const [lockWaitMs, tail] of [
      [1500, 'FOR UPDATE WAIT 2'],
      [0, 'FOR UPDATE'],
    ] as const) {
      const db = stage(3);
      const report = await retryRows(createOracleEngineWith(db, constants), request(false), { batchSize: 2, lockWaitMs });
      expect(report.count).toBe(3);
      expect(lockSent(db)).toEqual([tail, tail]);
    }
    // a dry run locks nothing, whatever the wait
    const dry = stage(3);
    await retryRows(createOracleEngineWith(dry, constants), request(true), { batchSize: 2, lockWaitMs: 1500 });
    expect(lockSent(dry)).toEqual([]);
    // the wait ran out: the batch rolls back and runs again (transient), then the retry stops
    const busy = new RecordingDatabase({
      execute: (sql) => {
        if (/FOR UPDATE WAIT 1$/.test(sql)) throw driverError('ORA-30006', 'resource busy; acquire with WAIT timeout expired');
        return { rows: sql === oracleQuery('find_error_rows') ? [stageRow(1)] : [] };
      },
    });
    const engine = createOracleEngineWith(busy, constants);
    const port = retryingTransient(engine, engine, 'retry batch', {
      policy: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
      logger: memoryLogger().logger,
    });
    await expect(retryRows(port, request(false), { batchSize: 2, lockWaitMs: 1000 })).rejects.toThrow(/ORA-30006/);
    expect(lockSent(busy)).toHaveLength(2);
    expect(busy.executeManyCalls()).toEqual([]);
  });

  it('a retry commits each batch with its changes and audit rows, in a transaction of its own', async () => {
    const db = stage(5);
    const engine = createOracleEngineWith(db, constants);
    const report = await retryRows(engine, request(false), { batchSize: 2 });
    expect(report).toMatchObject({ dryRun: false, count: 5 });
    const writes = db
      .executeManyCalls()
      .map((c) => [c.conn, c.sql === oracleQuery('apply_manual_changes') ? 'update' : 'audit', c.binds.map((b) => b.stage_id)]);
    expect(writes).toEqual([
      [1, 'update', [1, 2]],
      [1, 'audit', [1, 2]],
      [1, 'update', [3, 4]],
      [1, 'audit', [3, 4]],
      [1, 'update', [5]],
      [1, 'audit', [5]],
    ]);
    expect(executes(db, 'lock_error_rows').map((c) => [c.binds.after_stage_id, c.binds.up_to_stage_id])).toEqual([
      [
        { val: 0, type: NUMBER },
        { val: 2, type: NUMBER },
      ],
      [
        { val: 2, type: NUMBER },
        { val: 4, type: NUMBER },
      ],
      [
        { val: 4, type: NUMBER },
        { val: 5, type: NUMBER },
      ],
    ]);
    // each batch commits on its own; the last transaction only finds that nothing is left (the
    // connection is kept between them)
    expect(db.trace().filter((t) => t.endsWith(':commit') || t.includes(':executeMany:'))).toEqual([
      '1:executeMany:UPDATE order_stage SET',
      '1:executeMany:INSERT INTO order_stage_audit',
      '1:commit',
      '1:executeMany:UPDATE order_stage SET',
      '1:executeMany:INSERT INTO order_stage_audit',
      '1:commit',
      '1:executeMany:UPDATE order_stage SET',
      '1:executeMany:INSERT INTO order_stage_audit',
      '1:commit',
      '1:commit',
    ]);
  });
});

describe('Oracle engine (recording connection): lockStaleProcessing', () => {
  it('one execute of the SKIP LOCKED cursor, the cut-off bound as UTC text, every row fetched, no commit inside', async () => {
    const db = new RecordingDatabase({
      execute: () => ({ rows: [stageRow(11, { PROCESS_STATUS: 'PROCESSING', ERROR_CODE: null, ERROR_MESSAGE: null })] }),
    });
    const engine = createOracleEngineWith(db, constants);
    const olderThan = new Date('2024-05-01T09:30:00.5Z');
    const rows = await engine.transaction(async (tx) => {
      const locked = await tx.lockStaleProcessing(olderThan);
      expect(db.calls.some((c) => c.kind === 'commit')).toBe(false);
      return locked;
    });
    expect(rows).toEqual([{ ...snapshot(11), status: 'PROCESSING', errorCode: null, errorMessage: null }]);
    const [call] = executes(db);
    expect(call!.sql).toBe(oracleQuery('lock_stale_processing'));
    expect(call!.sql).toMatch(/FOR UPDATE SKIP LOCKED$/);
    expect(call!.sql).not.toMatch(/ROWNUM|FETCH\s+FIRST/i);
    expect(call!.sql).toContain(`FROM_TZ(TO_TIMESTAMP(:older_than, 'YYYY-MM-DD"T"HH24:MI:SS.FF3'), '+00:00')`);
    expect(call!.binds).toEqual({ older_than: { val: '2024-05-01T09:30:00.500', type: VARCHAR, maxSize: 32 } });
    expect(call!.options).not.toHaveProperty('resultSet');
    expect(call!.options).not.toHaveProperty('maxRows');
    expect(db.calls.some((c) => c.kind === 'getRows')).toBe(false);
    expect(db.trace()).toEqual(['1:execute:SELECT stage_id, source_key,', '1:commit']);
  });
});

describe('Oracle engine (recording connection): applyManualChanges', () => {
  it('two executeMany calls (UPDATE, then the audit INSERT) with explicit bindDefs and no commit inside', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    const changes = [
      change(5),
      change(9, {
        action: 'RECOVER',
        oldStatus: 'PROCESSING',
        newStatus: 'READY',
        sourceKey: '注文-9',
        values: { customerId: null, orderDate: null, amount: null, currency: null },
        oldValues: '{"status":"PROCESSING"}',
        newValues: '{"status":"READY"}',
      }),
    ];
    await engine.transaction(async (tx) => {
      await tx.applyManualChanges(changes);
      expect(db.calls.some((c) => c.kind === 'commit')).toBe(false);
    });
    expect(db.trace()).toEqual(['1:executeMany:UPDATE order_stage SET', '1:executeMany:INSERT INTO order_stage_audit', '1:commit']);
    const [update, audit] = db.executeManyCalls();

    expect(update!.sql).toBe(oracleQuery('apply_manual_changes'));
    expect(update!.sql).toMatch(/error_code\s+= NULL/);
    expect(update!.sql).toMatch(/error_message\s+= NULL/);
    expect(update!.sql).toMatch(/next_attempt_at\s+= NULL/);
    expect(update!.sql).toMatch(/updated_at\s+= SYSTIMESTAMP/);
    expect(update!.sql).toContain("TO_DATE(:order_date, 'YYYY-MM-DD')");
    expect(update!.sql).toMatch(/TO_NUMBER\(:amount, '[9D]+',\s*'NLS_NUMERIC_CHARACTERS=''\.,'''\)/);
    expect(update!.sql).toMatch(/TO_NUMBER\(:customer_id, '9+',\s*'NLS_NUMERIC_CHARACTERS=''\.,'''\)/);
    // a RETRY starts the transient failures (what --max-attempts bounds) again, a RECOVER keeps
    // them; neither touches attempt_count, every processing attempt
    expect(update!.sql).toContain("transient_failures = CASE WHEN :action = 'RETRY' THEN 0 ELSE transient_failures END");
    expect(update!.sql).not.toMatch(/attempt_count/);
    expect(update!.binds).toEqual([
      {
        stage_id: 5,
        action: 'RETRY',
        new_status: 'READY',
        customer_id: '42',
        order_date: '2024-04-01',
        amount: '1200.50',
        currency: 'JPY',
      },
      { stage_id: 9, action: 'RECOVER', new_status: 'READY', customer_id: null, order_date: null, amount: null, currency: null },
    ]);
    expect(update!.options).toEqual({
      autoCommit: false,
      bindDefs: {
        stage_id: { type: NUMBER },
        action: { type: VARCHAR, maxSize: 80 },
        new_status: { type: VARCHAR, maxSize: 80 },
        customer_id: { type: VARCHAR, maxSize: 64 },
        order_date: { type: VARCHAR, maxSize: 64 },
        amount: { type: VARCHAR, maxSize: 64 },
        currency: { type: VARCHAR, maxSize: 12 },
      },
    });

    expect(audit!.sql).toBe(oracleQuery('apply_manual_changes_audit'));
    expect(audit!.sql).toMatch(
      /^INSERT INTO order_stage_audit\s+\(stage_id, source_key, action, old_status, new_status, old_values, new_values,\s+operator, reason\)/,
    );
    expect(audit!.binds).toEqual([
      {
        stage_id: 5,
        source_key: 'K5',
        action: 'RETRY',
        old_status: 'ERROR',
        new_status: 'READY',
        old_values: '{"amount":"99999999999.00","status":"ERROR"}',
        new_values: '{"amount":"1200.50","status":"READY"}',
        operator: 'ops@example',
        reason: 'amount corrected by the sender',
      },
      {
        stage_id: 9,
        source_key: '注文-9',
        action: 'RECOVER',
        old_status: 'PROCESSING',
        new_status: 'READY',
        old_values: '{"status":"PROCESSING"}',
        new_values: '{"status":"READY"}',
        operator: 'ops@example',
        reason: 'amount corrected by the sender',
      },
    ]);
    expect(audit!.options).toEqual({
      autoCommit: false,
      bindDefs: {
        stage_id: { type: NUMBER },
        source_key: { type: VARCHAR, maxSize: 400 },
        action: { type: VARCHAR, maxSize: 80 },
        old_status: { type: VARCHAR, maxSize: 80 },
        new_status: { type: VARCHAR, maxSize: 80 },
        old_values: { type: VARCHAR, maxSize: 4000 },
        new_values: { type: VARCHAR, maxSize: 4000 },
        operator: { type: VARCHAR, maxSize: 512 },
        reason: { type: VARCHAR, maxSize: 4000 },
      },
    });
  });

  it('a retry in one transaction: lock, then both writes, then a single commit', async () => {
    const db = new RecordingDatabase({ execute: () => ({ rows: [stageRow(5)] }) });
    const engine = createOracleEngineWith(db, constants);
    await engine.transaction(async (tx) => {
      const rows = await tx.lockErrorRows({ stageIds: [5] }, { afterStageId: 0, limit: 10 });
      await tx.applyManualChanges(rows.map((r) => change(r.stageId)));
    });
    expect(db.trace()).toEqual([
      '1:execute:SELECT /*+ INDEX_ASC(order_stage',
      '1:execute:SELECT /*+ INDEX_ASC(order_stage',
      '1:executeMany:UPDATE order_stage SET',
      '1:executeMany:INSERT INTO order_stage_audit',
      '1:commit',
    ]);
    expect(new Set(db.calls.map((c) => c.conn))).toEqual(new Set([1]));
  });

  it('only the audit rows with JSON over 4000 bytes are bound as CLOB (a temporary LOB each); the others as VARCHAR2, in row order', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    const big = JSON.stringify({ note: 'あ'.repeat(1400) }); // > 4000 UTF-8 bytes
    await engine.transaction((tx) => tx.applyManualChanges([change(1), change(2, { newValues: big }), change(3), change(4)]));
    const [update, ...audits] = db.executeManyCalls();
    expect(update!.binds.map((b) => b.stage_id)).toEqual([1, 2, 3, 4]);
    expect(audits.map((a) => [a.binds.map((b) => b.stage_id), a.options.bindDefs.old_values, a.options.bindDefs.new_values])).toEqual([
      [[1], { type: VARCHAR, maxSize: 4000 }, { type: VARCHAR, maxSize: 4000 }],
      [[2], { type: VARCHAR, maxSize: 4000 }, { type: CLOB }],
      [[3, 4], { type: VARCHAR, maxSize: 4000 }, { type: VARCHAR, maxSize: 4000 }],
    ]);
    expect(audits[1]!.binds[0]!.new_values).toBe(big);
  });

  it('the changes that carry attributes: one more executeMany setting them, NULL for none left, CLOB past 4000 bytes', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    const big = JSON.stringify({ Note: 'あ'.repeat(1400) });
    await engine.transaction((tx) =>
      tx.applyManualChanges([
        change(1, { attributes: '{"Region":"Tohoku"}' }),
        change(2),
        change(3, { attributes: null }),
        change(4, { attributes: big }),
      ]),
    );
    const attributes = db.executeManyCalls().filter((c) => c.sql === oracleQuery('apply_manual_attributes'));
    expect(attributes.map((a) => [a.binds, a.options.bindDefs.attributes])).toEqual([
      [
        [
          { stage_id: 1, attributes: '{"Region":"Tohoku"}' },
          { stage_id: 3, attributes: null },
        ],
        { type: VARCHAR, maxSize: 4000 },
      ],
      [[{ stage_id: 4, attributes: big }], { type: CLOB }],
    ]);
  });

  it('rowAttributes: in the caller’s transaction, 20 ids per execution, NULL for none', async () => {
    const db = new RecordingDatabase({
      execute: () => ({
        rows: [
          { STAGE_ID: '3', ATTRIBUTES: '{"Region":"Kanto"}' },
          { STAGE_ID: '4', ATTRIBUTES: null },
        ],
      }),
    });
    const engine = createOracleEngineWith(db, constants);
    const ids = Array.from({ length: 21 }, (_, i) => i + 1);
    const found = await engine.transaction((tx) => tx.rowAttributes(ids));
    expect([...found]).toEqual([
      [3, '{"Region":"Kanto"}'],
      [4, null],
    ]);
    const calls = executes(db, 'row_attributes');
    expect(calls).toHaveLength(2);
    expect(calls[1]!.binds.id1).toEqual({ val: 21, type: NUMBER });
    expect(db.trace().filter((t) => t.endsWith('commit'))).toEqual(['1:commit']);
  });

  it("an empty operator or reason (Oracle stores '' as NULL in NOT NULL columns) gets a marker", async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    await engine.transaction((tx) => tx.applyManualChanges([change(1, { operator: '', reason: '' })]));
    const [, audit] = db.executeManyCalls();
    expect(audit!.binds[0]).toMatchObject({ operator: '(unknown)', reason: '(none)' });
  });

  it('an over-long value fails before anything is sent, naming the stage row, not the value', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    const amount = '9'.repeat(70);
    const error = await engine
      .transaction((tx) =>
        tx.applyManualChanges([change(1), change(2, { values: { customerId: '1', orderDate: '2024-01-01', amount, currency: 'JPY' } })]),
      )
      .then(
        () => new Error('expected a failure'),
        (e: unknown) => e as Error,
      );
    expect(error.message).toContain('stage row 2');
    expect(error.message).not.toContain(amount);
    expect(db.trace()).toEqual(['1:rollback']);
  });

  it('a reason over 1000 characters fails (the column is VARCHAR2(1000 CHAR)); nothing is sent', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    await expect(engine.transaction((tx) => tx.applyManualChanges([change(1, { reason: 'r'.repeat(1001) })]))).rejects.toThrow(/reason/);
    expect(db.executeManyCalls()).toEqual([]);
  });

  it('no changes: nothing is sent (executeMany never gets an empty array)', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    await engine.transaction((tx) => tx.applyManualChanges([]));
    expect(db.trace()).toEqual(['1:commit']);
  });

  it('caps each executeMany at 65535 rows: UPDATE and audit INSERT per slice', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    const changes = Array.from({ length: ORACLE_MAX_CHUNK + 2 }, (_, i) => change(i + 1));
    await engine.transaction((tx) => tx.applyManualChanges(changes));
    expect(db.executeManyCalls().map((c) => [c.sql === oracleQuery('apply_manual_changes') ? 'update' : 'audit', c.binds.length])).toEqual([
      ['update', ORACLE_MAX_CHUNK],
      ['audit', ORACLE_MAX_CHUNK],
      ['update', 2],
      ['audit', 2],
    ]);
    expect(db.trace().filter((t) => t.endsWith('commit'))).toHaveLength(1);
  });
});

describe('Oracle engine (recording connection): listErrorRows', () => {
  it('latest error per row by ROW_NUMBER, limit by FETCH FIRST in a query that locks nothing; values mapped', async () => {
    const db = new RecordingDatabase({
      execute: () => ({
        rows: [
          { ...stageRow(5), PHASE: 'MERGE', RAW_RECORD: null, LOGGED_AT: '2024-05-01T10:00:01.000Z', ERROR_LOAD_ID: '7' },
          {
            ...stageRow(6, { ERROR_CODE: 'PARSE_QUOTE', CUSTOMER_ID: null, ORDER_DATE: null, AMOUNT: null, CURRENCY: null }),
            PHASE: 'PARSE',
            RAW_RECORD: 'a,"b',
            LOGGED_AT: '2024-05-01T09:00:00.000Z',
            ERROR_LOAD_ID: '6',
          },
          { ...stageRow(8), PHASE: null, RAW_RECORD: null, LOGGED_AT: null, ERROR_LOAD_ID: null },
        ],
      }),
    });
    const engine = createOracleEngineWith(db, constants);
    const rows = await engine.listErrorRows({ loadIds: [7], errorCodes: ['ORA-01438', 'PARSE_QUOTE'], limit: 100, afterStageId: 4 });
    expect(rows).toEqual([
      { ...snapshot(5), phase: 'MERGE', rawRecord: null, loggedAt: new Date('2024-05-01T10:00:01.000Z'), errorLoadId: 7 },
      {
        ...snapshot(6),
        errorCode: 'PARSE_QUOTE',
        customerId: null,
        orderDate: null,
        amount: null,
        currency: null,
        phase: 'PARSE',
        rawRecord: 'a,"b',
        loggedAt: new Date('2024-05-01T09:00:00.000Z'),
        errorLoadId: 6,
      },
      { ...snapshot(8), phase: null, rawRecord: null, loggedAt: null, errorLoadId: null },
    ]);
    const [call] = executes(db);
    expect(call!.sql).toBe(oracleQuery('error_rows'));
    expect(call!.sql).toContain('ROW_NUMBER() OVER (PARTITION BY b.stage_id ORDER BY b.error_id DESC)');
    expect(call!.sql).toContain('FETCH FIRST :row_limit ROWS ONLY');
    expect(call!.sql).not.toMatch(/FOR UPDATE/i);
    expect(call!.binds).toEqual({
      ...slots('load_id', [7]),
      ...slots('error_code', ['ORA-01438', 'PARSE_QUOTE'], 120),
      after_stage_id: { val: 4, type: NUMBER },
      row_limit: { val: 100, type: NUMBER },
    });
    // a keyset page: rows past the last stage_id of the page before, never OFFSET
    expect(call!.sql).toContain("CASE WHEN s.process_status = 'ERROR' THEN s.stage_id END > :after_stage_id");
    expect(call!.sql).toContain('INDEX_ASC(s ix_order_stage_error)');
    expect(call!.sql).not.toMatch(/\bOFFSET\b/i);
    expect(call!.options.fetchTypeHandler!({ name: 'RAW_RECORD', dbType: CLOB })).toEqual({ type: VARCHAR });
    expect(db.trace()).toEqual(['1:execute:WITH picked AS', '1:commit']);
  });

  it('no filter: both lists "not given"; a limit of 0 sends nothing', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    expect(await engine.listErrorRows({ limit: 0 })).toEqual([]);
    expect(db.calls).toEqual([]);
    await engine.listErrorRows({ limit: 3.7 });
    const [call] = executes(db);
    expect(call!.binds).toEqual({
      ...slots('load_id', null),
      ...slots('error_code', null, 120),
      after_stage_id: { val: 0, type: NUMBER },
      row_limit: { val: 3, type: NUMBER },
    });
  });

  it('slices of a long list: each execution limited, the first `limit` rows of the union kept in stage_id order', async () => {
    let n = 0;
    const answers = [
      [stageRow(10), stageRow(30)],
      [stageRow(20), stageRow(40)],
    ];
    const db = new RecordingDatabase({
      execute: () => ({ rows: (answers[n++] ?? []).map((r) => ({ ...r, PHASE: null, RAW_RECORD: null, LOGGED_AT: null })) }),
    });
    const engine = createOracleEngineWith(db, constants);
    const rows = await engine.listErrorRows({ loadIds: Array.from({ length: 25 }, (_, i) => i + 1), limit: 3 });
    expect(rows.map((r) => r.stageId)).toEqual([10, 20, 30]);
    const calls = executes(db, 'error_rows');
    expect(calls).toHaveLength(2);
    expect(calls.map((c) => c.binds.row_limit)).toEqual([
      { val: 3, type: NUMBER },
      { val: 3, type: NUMBER },
    ]);
    expect(calls[1]!.binds.load_id1).toEqual({ val: 21, type: NUMBER });
    expect(calls[1]!.binds.load_id6).toEqual({ val: null, type: NUMBER });
  });
});

describe('Oracle engine (recording connection): listRejectedLines, latestRawRecords, fileLayouts', () => {
  it('listRejectedLines: stage_id NULL rows past :after_error_id, FETCH FIRST, lists as slots; values mapped', async () => {
    const db = new RecordingDatabase({
      execute: () => ({
        rows: [
          {
            ERROR_ID: '12',
            LOAD_ID: '7',
            LINE_NO: '4',
            PHASE: 'PARSE',
            ERROR_CODE: 'PARSE_FIELD_COUNT',
            ERROR_MESSAGE: 'expected 5 fields',
            RAW_RECORD: 'a,b',
            LOGGED_AT: '2024-05-01T09:00:00.000Z',
          },
          {
            ERROR_ID: '11',
            LOAD_ID: null,
            LINE_NO: null,
            PHASE: 'PARSE',
            ERROR_CODE: 'CSV_QUOTE_NOT_CLOSED',
            ERROR_MESSAGE: 'm',
            RAW_RECORD: null,
            LOGGED_AT: '2024-05-01T09:00:01.000Z',
          },
        ],
      }),
    });
    const engine = createOracleEngineWith(db, constants);
    const rows = await engine.listRejectedLines({ loadIds: [7], errorCodes: ['PARSE_FIELD_COUNT'], limit: 50, afterErrorId: 10 });
    expect(rows).toEqual([
      {
        errorId: 11,
        loadId: null,
        lineNo: null,
        phase: 'PARSE',
        errorCode: 'CSV_QUOTE_NOT_CLOSED',
        errorMessage: 'm',
        rawRecord: null,
        loggedAt: new Date('2024-05-01T09:00:01.000Z'),
      },
      {
        errorId: 12,
        loadId: 7,
        lineNo: 4,
        phase: 'PARSE',
        errorCode: 'PARSE_FIELD_COUNT',
        errorMessage: 'expected 5 fields',
        rawRecord: 'a,b',
        loggedAt: new Date('2024-05-01T09:00:00.000Z'),
      },
    ]);
    const [call] = executes(db, 'rejected_lines');
    expect(call!.sql).toContain('b.stage_id IS NULL');
    expect(call!.sql).toContain('b.error_id > :after_error_id');
    expect(call!.sql).toContain('FETCH FIRST :row_limit ROWS ONLY');
    expect(call!.sql).not.toMatch(/FOR UPDATE|\bOFFSET\b/i);
    // left out once a later load of the same file bytes read past the line (its last staging event)
    expect(call!.sql).toContain('JOIN load_run r ON r.file_sha256 = l.file_sha256 AND r.run_id > l.run_id');
    expect(call!.sql).toContain("AND r.command IN ('load', 'stage')");
    expect(call!.sql).toContain("AND se.event IN ('staged', 'staged_checkpoint'))");
    expect(call!.sql).toContain("AND NVL(JSON_VALUE(e.detail, '$.loadId' RETURNING NUMBER), r.run_id) > b.load_id");
    expect(call!.sql).toMatch(/AND \(e\.event = 'staged'\s+OR JSON_VALUE\(e\.detail, '\$\.line' RETURNING NUMBER\) >= b\.line_no\)\)/);
    expect(call!.binds).toEqual({
      ...slots('load_id', [7]),
      ...slots('error_code', ['PARSE_FIELD_COUNT'], 120),
      after_error_id: { val: 10, type: NUMBER },
      row_limit: { val: 50, type: NUMBER },
    });
    expect(await engine.listRejectedLines({ limit: 0 })).toEqual([]);
    expect(executes(db)).toHaveLength(1);
  });

  it("latestRawRecords and fileLayouts run in the caller's transaction, 20 ids per execution", async () => {
    const db = new RecordingDatabase({
      execute: (sql) =>
        sql === oracleQuery('file_layouts')
          ? {
              rows: [
                { RUN_ID: '7', DETAIL: '{"file":"a.csv","loadId":7,"header":["source_key","amount"],"delimiter":";"}' },
                { RUN_ID: '8', DETAIL: '{"loadId":8}' },
              ],
            }
          : { rows: [{ STAGE_ID: '3', LOAD_ID: '7', RAW_RECORD: 'K;1e5', PHASE: 'PARSE' }] },
    });
    const engine = createOracleEngineWith(db, constants);
    const ids = Array.from({ length: 21 }, (_, i) => i + 1);
    const [raws, layouts] = await engine.transaction(async (tx) => [await tx.latestRawRecords(ids), await tx.fileLayouts([7, 8])] as const);
    expect(raws).toEqual([
      { stageId: 3, loadId: 7, rawRecord: 'K;1e5', phase: 'PARSE' },
      { stageId: 3, loadId: 7, rawRecord: 'K;1e5', phase: 'PARSE' },
    ]);
    // a load staged before layouts were recorded has none
    expect([...layouts]).toEqual([[7, { header: ['source_key', 'amount'], delimiter: ';' }]]);
    const rawCalls = executes(db, 'latest_raw_records');
    expect(rawCalls).toHaveLength(2);
    expect(rawCalls[1]!.binds.id1).toEqual({ val: 21, type: NUMBER });
    expect(rawCalls[1]!.binds.id2).toEqual({ val: null, type: NUMBER });
    expect(executes(db, 'file_layouts')[0]!.binds.id2).toEqual({ val: 8, type: NUMBER });
    expect(db.trace().filter((t) => t.endsWith('commit'))).toEqual(['1:commit']);
  });
});

const identity = (c: string) => ({ sha256: c.repeat(64), encoding: 'utf-8', delimiter: ',' });

describe('Oracle engine (recording connection): stagingHistory, runningRuns, claimableCount', () => {
  it('stagingHistory: loadId from the invoked event, checkpoint from the last staged_checkpoint', async () => {
    const db = new RecordingDatabase({
      execute: () => ({
        rows: [
          {
            RUN_ID: '12',
            INVOKED: '{"loadId":9,"args":["load"]}',
            STAGED: '0',
            CHECKPOINT: '{"line":5000,"byte":262144,"counts":{"inserted":4999}}',
          },
        ],
      }),
    });
    const engine = createOracleEngineWith(db, constants);
    const sha = 'a'.repeat(64);
    expect(await engine.stagingHistory({ sha256: sha, encoding: 'utf-8', delimiter: ',' })).toEqual({
      runId: 12,
      loadId: 9,
      staged: false,
      checkpoint: { line: 5000, byte: 262144, counts: { inserted: 4999 }, stoppedAt: null },
      readAs: { encoding: 'utf-8', delimiter: ',' },
    });
    const [call] = executes(db);
    expect(call!.sql).toBe(oracleQuery('staging_history'));
    expect(call!.sql).toContain("e.event = 'invoked'");
    expect(call!.sql).toContain("e.event = 'staged_checkpoint'");
    expect(call!.sql).toContain("command IN ('load', 'stage')");
    // a run that committed no staging fact does not hide the one that did
    expect(call!.sql).toContain("e.event IN ('staged', 'staged_checkpoint')");
    expect(call!.sql).toContain('runs.committed = 1');
    // the checkpoint is the load's last, by any run of it: a run that skipped the file committed none
    expect(call!.sql).toContain(
      "NVL(JSON_VALUE(e.detail, '$.loadId'), TO_CHAR(l.run_id)) = NVL(JSON_VALUE(inv.detail, '$.loadId'), TO_CHAR(r.run_id))",
    );
    expect(call!.sql).toContain('ORDER BY e.run_id DESC, e.seq DESC');
    // the identity: the same bytes read with the same encoding and delimiter
    expect(call!.sql).toContain("NVL(JSON_VALUE(inv.detail, '$.encoding'), 'utf-8') = :read_encoding");
    expect(call!.sql).toContain("NVL(JSON_VALUE(inv.detail, '$.delimiter'), ',') = :read_delimiter");
    expect(call!.binds).toEqual({
      sha256: { val: sha, type: VARCHAR, maxSize: 64 },
      read_encoding: { val: 'utf-8', type: VARCHAR, maxSize: 160 },
      read_delimiter: { val: ',', type: VARCHAR, maxSize: 160 },
      read_profile: { val: 'builtin', type: VARCHAR, maxSize: 160 },
    });
    await engine.stagingHistory({ sha256: sha, encoding: 'shift_jis', delimiter: '\t' });
    expect(executes(db)[1]!.binds).toMatchObject({
      read_encoding: { val: 'shift_jis', type: VARCHAR, maxSize: 160 },
      read_delimiter: { val: '\t', type: VARCHAR, maxSize: 160 },
    });
  });

  it('stagingHistory: run_id when the invoked event has no loadId; staged; no checkpoint; no run', async () => {
    let answer: Record<string, unknown>[] = [{ RUN_ID: '12', INVOKED: null, STAGED: '1', CHECKPOINT: null }];
    const db = new RecordingDatabase({ execute: () => ({ rows: answer }) });
    const engine = createOracleEngineWith(db, constants);
    expect(await engine.stagingHistory(identity('b'))).toEqual({
      runId: 12,
      loadId: 12,
      staged: true,
      checkpoint: null,
      readAs: { encoding: 'utf-8', delimiter: ',' },
    });
    answer = [{ RUN_ID: '13', INVOKED: '{"loadId":"13"}', STAGED: '0', CHECKPOINT: '{"line":10}' }];
    expect(await engine.stagingHistory(identity('b'))).toEqual({
      runId: 13,
      loadId: 13,
      staged: false,
      checkpoint: { line: 10, byte: null, counts: null, stoppedAt: null },
      readAs: { encoding: 'utf-8', delimiter: ',' },
    });
    // how the run read the file is part of its identity: encoding and delimiter from the invoked event
    answer = [{ RUN_ID: '14', INVOKED: '{"loadId":14,"encoding":"shift_jis","delimiter":"\\t"}', STAGED: '1', CHECKPOINT: null }];
    expect(await engine.stagingHistory(identity('b'))).toMatchObject({
      runId: 14,
      loadId: 14,
      staged: true,
      readAs: { encoding: 'shift_jis', delimiter: '\t' },
    });
    answer = [];
    expect(await engine.stagingHistory(identity('c'))).toBeNull();
  });

  it('runningRuns reads RUNNING runs with UTC text and JSON counts', async () => {
    const db = new RecordingDatabase({
      execute: () => ({
        rows: [
          {
            RUN_ID: '3',
            COMMAND: 'process',
            FILE_NAME: null,
            FILE_SIZE: null,
            FILE_SHA256: null,
            HOST: 'h1',
            PID: '4242',
            STATUS: 'RUNNING',
            STARTED_AT: '2024-05-01T08:00:00.000Z',
            FINISHED_AT: null,
            COUNTS: null,
            MESSAGE: null,
          },
        ],
      }),
    });
    const engine = createOracleEngineWith(db, constants);
    expect(await engine.runningRuns()).toEqual([
      {
        runId: 3,
        command: 'process',
        fileName: null,
        fileSize: null,
        fileSha256: null,
        host: 'h1',
        pid: 4242,
        status: 'RUNNING',
        startedAt: new Date('2024-05-01T08:00:00.000Z'),
        finishedAt: null,
        counts: null,
        message: null,
      },
    ]);
    const [call] = executes(db);
    expect(call!.sql).toBe(oracleQuery('runs_running'));
    expect(call!.sql).toContain("WHERE status = 'RUNNING'");
    expect(call!.binds).toEqual({});
  });

  it('tallyBatch counts a chunk by its batch_id (bound, never spelled into the SQL)', async () => {
    const db = new RecordingDatabase({
      execute: () => ({
        rows: [
          { PROCESS_STATUS: 'DONE', N: '9', LAST_STAGE_ID: '120' },
          { PROCESS_STATUS: 'ERROR', N: '1', LAST_STAGE_ID: '118' },
        ],
      }),
    });
    const engine = createOracleEngineWith(db, constants);
    expect(await engine.tallyBatch('7-3')).toEqual({ tally: { DONE: 9, ERROR: 1 }, lastStageId: 120 });
    const [call] = executes(db);
    expect(call!.sql).toBe(oracleQuery('tally_batch'));
    expect(call!.sql).toContain('WHERE batch_id = :batch_id');
    expect(call!.binds).toEqual({ batch_id: { val: '7-3', type: constants.DB_TYPE_VARCHAR, maxSize: 64 } });
  });

  it('claimableCount counts READY and due RETRY_WAIT rows through the claim index expression', async () => {
    const db = new RecordingDatabase({ execute: () => ({ rows: [{ N: '17' }] }) });
    const engine = createOracleEngineWith(db, constants);
    expect(await engine.claimableCount()).toBe(17);
    const [call] = executes(db);
    expect(call!.sql).toBe(oracleQuery('claimable_count'));
    expect(call!.sql).toContain("CASE WHEN process_status IN ('READY', 'RETRY_WAIT') THEN stage_id END IS NOT NULL");
    expect(call!.sql).toContain("(process_status = 'READY' OR next_attempt_at <= SYSTIMESTAMP)");
    expect(call!.binds).toEqual({});
  });
});
