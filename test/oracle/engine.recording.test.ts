/**
 * Oracle engine against a RECORDING connection (test/oracle/recording-connection.ts).
 * These tests check what the engine sends to node-oracledb (SQL text, binds, bindDefs,
 * options, statement order, commit/rollback/close) and how it reads thin-mode-shaped answers.
 * They do not run SQL and say nothing about how a real Oracle Database executes it.
 */
import { describe, expect, it } from 'vitest';
import oracledb from 'oracledb';
import { createOracleEngineWith, OracleChunkError, ORACLE_MAX_CHUNK } from '../../src/engine/oracle/index.js';
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import type { ClaimedRow, StageInput } from '../../src/engine/types.js';
import { batchError, constants, driverError, RecordingDatabase } from './recording-connection.js';

const NUMBER = (oracledb as unknown as { DB_TYPE_NUMBER: unknown }).DB_TYPE_NUMBER;
const VARCHAR = (oracledb as unknown as { DB_TYPE_VARCHAR: unknown }).DB_TYPE_VARCHAR;
const CLOB = (oracledb as unknown as { DB_TYPE_CLOB: unknown }).DB_TYPE_CLOB;

function claimed(stageId: number, extra: Partial<ClaimedRow> = {}): ClaimedRow {
  return {
    stageId,
    sourceKey: `K${stageId}`,
    customerId: '42',
    orderDate: '2024-04-01',
    amount: '1200.00',
    currency: 'JPY',
    attemptCount: 0,
    transientFailures: 0,
    loadId: 7,
    lineNo: stageId + 1,
    ...extra,
  };
}

function mergeCalls(db: RecordingDatabase) {
  return db.executeManyCalls().filter((c) => c.sql === oracleQuery('merge_orders'));
}

describe('Oracle engine (recording connection): mergeOrders', () => {
  it('sends one executeMany of the MERGE with batchErrors, autoCommit false and explicit bindDefs', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    const rows = [claimed(10), claimed(11), claimed(12)];
    const failures = await engine.transaction((tx) => tx.mergeOrders(rows, { isolationBlock: 3 }));
    expect(failures).toEqual([]);
    const calls = mergeCalls(db);
    expect(calls).toHaveLength(1);
    const call = calls[0]!;
    expect(call.sql).toMatch(/^MERGE INTO orders o/);
    expect(call.sql).not.toMatch(/RETURNING/i);
    expect(call.binds).toEqual([{ stage_id: 10 }, { stage_id: 11 }, { stage_id: 12 }]);
    expect(call.options).toEqual({ autoCommit: false, batchErrors: true, bindDefs: { stage_id: { type: NUMBER } } });
    expect(call.options).not.toHaveProperty('dmlRowCounts');
  });

  it('stores a MERGE refusal as the PostgreSQL path does: the first line, quoted values blanked (23ai adds ORA-03301 with the row)', async () => {
    const message = [
      'ORA-00001: unique constraint (LOADER.UQ_ORDERS_SOURCE) violated on table LOADER.ORDERS columns (SOURCE_KEY)',
      "ORA-03301: (ORA-00001 details) row with column values (SOURCE_KEY:'K-SECRET') already exists",
    ].join('\n');
    const db = new RecordingDatabase({
      executeMany: (sql) => (sql === oracleQuery('merge_orders') ? { batchErrors: [batchError(0, message)] } : {}),
    });
    const failures = await createOracleEngineWith(db, constants).transaction((tx) => tx.mergeOrders([claimed(30)], { isolationBlock: 1 }));
    expect(failures.map((f) => [f.code, f.message])).toEqual([
      ['ORA-00001', 'ORA-00001: unique constraint (LOADER.UQ_ORDERS_SOURCE) violated on table LOADER.ORDERS columns (SOURCE_KEY)'],
    ]);
  });

  it('maps batchErrors[].offset to the stage row and parses the ORA code from the message (no errorNum)', async () => {
    const db = new RecordingDatabase({
      executeMany: (sql) =>
        sql === oracleQuery('merge_orders')
          ? {
              batchErrors: [
                batchError(1, 'ORA-01438: value larger than specified precision allowed for this column'),
                batchError(
                  3,
                  'ORA-00001: unique constraint (LOADER.UQ_ORDERS_SOURCE) violated on table LOADER.ORDERS columns (SOURCE_KEY)',
                ),
              ],
            }
          : {},
    });
    const engine = createOracleEngineWith(db, constants);
    const rows = [claimed(20), claimed(21), claimed(22), claimed(23)];
    const failures = await engine.transaction((tx) => tx.mergeOrders(rows, { isolationBlock: 4 }));
    expect(failures).toEqual([
      {
        stageId: 21,
        code: 'ORA-01438',
        message: 'ORA-01438: value larger than specified precision allowed for this column',
        kind: 'rejected',
      },
      expect.objectContaining({ stageId: 23, code: 'ORA-00001', kind: 'transient' }),
    ]);
    expect(mergeCalls(db)).toHaveLength(1);
  });

  it('reads a bare error number as ORA-nnnnn (a thin batch error whose message was not sent)', async () => {
    const db = new RecordingDatabase({ executeMany: () => ({ batchErrors: [batchError(0, '1400')] }) });
    const engine = createOracleEngineWith(db, constants);
    const failures = await engine.transaction((tx) => tx.mergeOrders([claimed(1)], { isolationBlock: 1 }));
    expect(failures).toEqual([expect.objectContaining({ stageId: 1, code: 'ORA-01400', kind: 'rejected' })]);
  });

  it('a batch error with a fatal code (out of space) fails the chunk: rollback, connection closed, the next use gets a new one', async () => {
    const db = new RecordingDatabase({
      executeMany: () => ({ batchErrors: [batchError(0, 'ORA-01653: unable to extend table LOADER.ORDERS by 128 in tablespace USERS')] }),
    });
    const engine = createOracleEngineWith(db, constants);
    const run = engine.transaction((tx) => tx.mergeOrders([claimed(1), claimed(2)], { isolationBlock: 2 }));
    await expect(run).rejects.toBeInstanceOf(OracleChunkError);
    const error = await run.catch((e: unknown) => e);
    expect(engine.classifyError(error)).toBe('fatal');
    expect(db.trace().slice(-2)).toEqual(['1:rollback', '1:close']);
    expect(db.ended).toEqual(new Set([1]));
    expect(db.calls.some((c) => c.kind === 'commit')).toBe(false);
    await engine.transaction((tx) => tx.mergeOrders([claimed(3)], { isolationBlock: 1 })).catch(() => undefined);
    expect(mergeCalls(db).at(-1)!.conn).toBe(2);
  });

  it('a fatal code anywhere in a batch error (ORA-00604 before ORA-01653) fails the chunk: rollback, no commit', async () => {
    const db = new RecordingDatabase({
      executeMany: () => ({
        batchErrors: [
          batchError(
            1,
            'ORA-00604: error occurred at recursive SQL level 1\nORA-01653: unable to extend table LOADER.ORDERS by 128 in tablespace USERS',
          ),
        ],
      }),
    });
    const engine = createOracleEngineWith(db, constants);
    const error = await engine
      .transaction(async (tx) => {
        await tx.mergeOrders([claimed(1), claimed(2)], { isolationBlock: 2 });
        await tx.finalizeChunk({ batchId: 'b', done: [1], failed: [] });
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OracleChunkError);
    expect((error as OracleChunkError).code).toBe('ORA-01653');
    expect(engine.classifyError(error)).toBe('fatal');
    expect(db.calls.some((c) => c.kind === 'commit')).toBe(false);
    expect(db.calls.some((c) => c.kind === 'rollback')).toBe(true);
  });

  it.each([
    [
      'NJS-098 (placeholders)',
      () => driverError('NJS-098', '2 bind placeholders were used in the SQL statement but 1 bind values were provided'),
    ],
    ['NJS-005 (invalid parameter)', () => driverError('NJS-005', 'invalid value for parameter 2')],
    ['NJS-037 (never raised by executeMany)', () => driverError('NJS-037', 'invalid data type at array index 1 for bind ":stage_id"')],
    ['a TypeError', () => new TypeError("Cannot read properties of undefined (reading 'map')")],
  ])('a whole-call %s is not about a row: the chunk fails, nothing is bisected or committed', async (_name, make) => {
    const db = new RecordingDatabase({
      executeMany: (sql) => {
        if (sql === oracleQuery('merge_orders')) throw make();
        return {};
      },
    });
    const engine = createOracleEngineWith(db, constants);
    const rows = [claimed(1), claimed(2), claimed(3), claimed(4)];
    const error = await engine.transaction((tx) => tx.mergeOrders(rows, { isolationBlock: 4 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(engine.classifyError(error)).toBe('rejected');
    expect(mergeCalls(db)).toHaveLength(1);
    expect(db.calls.some((c) => c.kind === 'commit')).toBe(false);
  });

  it('isolates a whole-call NJS-058 by the row it names and re-runs the others', async () => {
    // The recording connection throws NJS-058 "... in row n" like lib/transformer.js; here
    // the script makes the first call throw it for row 2, as a real over-long value would.
    let call = 0;
    const db = new RecordingDatabase({
      executeMany: (sql) => {
        if (sql !== oracleQuery('merge_orders')) return {};
        call++;
        if (call === 1) throw driverError('NJS-058', 'maxSize of 400 is too small for value of length 410 in row 2');
        return { batchErrors: [] };
      },
    });
    const engine = createOracleEngineWith(db, constants);
    const rows = [claimed(30), claimed(31), claimed(32), claimed(33)];
    const failures = await engine.transaction((tx) => tx.mergeOrders(rows, { isolationBlock: 4 }));
    expect(failures).toEqual([expect.objectContaining({ stageId: 32, code: 'NJS-058', kind: 'rejected' })]);
    const calls = mergeCalls(db);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.binds).toEqual([{ stage_id: 30 }, { stage_id: 31 }, { stage_id: 33 }]);
    expect(db.calls.filter((c) => c.kind === 'commit')).toHaveLength(1);
  });

  it('isolates a whole-call error without a row index (NJS-011) by halves, down to the bad row', async () => {
    const bad = 105;
    const db = new RecordingDatabase({
      executeMany: (sql, binds) => {
        if (sql !== oracleQuery('merge_orders')) return {};
        if (binds.some((b) => b.stage_id === bad)) throw driverError('NJS-011', 'encountered bind value and type mismatch');
        return { batchErrors: [] };
      },
    });
    const engine = createOracleEngineWith(db, constants);
    const rows = Array.from({ length: 8 }, (_, i) => claimed(100 + i));
    const failures = await engine.transaction((tx) => tx.mergeOrders(rows, { isolationBlock: 8 }));
    expect(failures).toEqual([expect.objectContaining({ stageId: bad, code: 'NJS-011', kind: 'rejected' })]);
    const calls = mergeCalls(db);
    // 8 -> [100..103] ok, [104..107] fails -> [104,105] fails, [106,107] ok -> [104] ok, [105] fails
    expect(calls.map((c) => c.binds.map((b) => b.stage_id))).toEqual([
      [100, 101, 102, 103, 104, 105, 106, 107],
      [100, 101, 102, 103],
      [104, 105, 106, 107],
      [104, 105],
      [104],
      [105],
      [106, 107],
    ]);
    // every stage row was either merged by a successful call or reported
    const merged = new Set(calls.filter((c) => !c.binds.some((b) => b.stage_id === bad)).flatMap((c) => c.binds.map((b) => b.stage_id)));
    expect([...merged].sort()).toEqual([100, 101, 102, 103, 104, 106, 107]);
  });

  it('maps offsets within the isolated block, not the original chunk', async () => {
    let call = 0;
    const db = new RecordingDatabase({
      executeMany: (sql, binds) => {
        if (sql !== oracleQuery('merge_orders')) return {};
        call++;
        if (call === 1) throw driverError('NJS-058', 'maxSize of 8 is too small for value of length 9 in row 0');
        // second call: rows 41, 42; row at offset 1 (stage 42) overflows
        expect(binds).toEqual([{ stage_id: 41 }, { stage_id: 42 }]);
        return { batchErrors: [batchError(1, 'ORA-01438: value larger than specified precision allowed for this column')] };
      },
    });
    const engine = createOracleEngineWith(db, constants);
    const failures = await engine.transaction((tx) => tx.mergeOrders([claimed(40), claimed(41), claimed(42)], { isolationBlock: 3 }));
    expect(failures.map((f) => [f.stageId, f.code])).toEqual([
      [40, 'NJS-058'],
      [42, 'ORA-01438'],
    ]);
  });

  it('a connection-level whole-call error propagates (fatal), with no isolation attempts', async () => {
    const db = new RecordingDatabase({
      executeMany: (sql) => {
        if (sql === oracleQuery('merge_orders'))
          throw driverError(
            'NJS-500',
            'connection to Oracle Database was closed or broken\nORA-03113: end-of-file on communication channel',
          );
        return {};
      },
    });
    const engine = createOracleEngineWith(db, constants);
    const run = engine.transaction((tx) => tx.mergeOrders([claimed(1), claimed(2), claimed(3)], { isolationBlock: 3 }));
    const error = await run.catch((e: unknown) => e);
    expect(engine.classifyError(error)).toBe('fatal');
    expect(mergeCalls(db)).toHaveLength(1);
    expect(db.calls.at(-1)).toEqual({ kind: 'close', conn: 1 });
    expect(db.ended).toEqual(new Set([1]));
  });

  it('a whole-call ORA error is about the statement, not a row: the chunk fails, no row is blamed', async () => {
    // With batchErrors, row errors come back in batchErrors; a thrown ORA error (missing table,
    // privilege, unusable index, ...) would otherwise be bisected and mark every row ERROR.
    const db = new RecordingDatabase({
      executeMany: (sql) => {
        if (sql === oracleQuery('merge_orders'))
          throw Object.assign(driverError('ORA-00942', 'table or view does not exist'), { errorNum: 942 });
        return {};
      },
    });
    const engine = createOracleEngineWith(db, constants);
    const error = await engine
      .transaction((tx) => tx.mergeOrders([claimed(1), claimed(2), claimed(3)], { isolationBlock: 3 }))
      .catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe('ORA-00942');
    expect(engine.classifyError(error)).toBe('rejected');
    expect(mergeCalls(db)).toHaveLength(1);
    expect(db.trace().at(-1)).toEqual('1:rollback');
    expect(db.ended.size).toBe(0); // not a broken connection: kept
    expect(db.calls.some((c) => c.kind === 'commit')).toBe(false);
  });

  it('a transient whole-call ORA error (deadlock) fails the chunk as transient, to be retried whole', async () => {
    const db = new RecordingDatabase({
      executeMany: (sql) => {
        if (sql === oracleQuery('merge_orders'))
          throw Object.assign(driverError('ORA-00060', 'deadlock detected while waiting for resource'), { errorNum: 60 });
        return {};
      },
    });
    const engine = createOracleEngineWith(db, constants);
    const error = await engine
      .transaction((tx) => tx.mergeOrders([claimed(1), claimed(2)], { isolationBlock: 2 }))
      .catch((e: unknown) => e);
    expect(engine.classifyError(error)).toBe('transient');
    expect(mergeCalls(db)).toHaveLength(1);
  });

  it('never calls executeMany with an empty array', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    await engine.transaction(async (tx) => {
      expect(await tx.mergeOrders([], { isolationBlock: 1 })).toEqual([]);
      await tx.finalizeChunk({ batchId: 'b', done: [], failed: [] });
      await tx.logErrors([]);
    });
    expect(db.executeManyCalls()).toEqual([]);
  });

  it('caps one executeMany at 65535 rows (NJS-141)', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    expect(engine.capabilities).toEqual({ concurrentConnections: true, maxChunkSize: ORACLE_MAX_CHUNK });
    const rows = Array.from({ length: ORACLE_MAX_CHUNK + 2 }, (_, i) => claimed(i + 1));
    await engine.transaction((tx) => tx.mergeOrders(rows, { isolationBlock: rows.length }));
    expect(mergeCalls(db).map((c) => c.binds.length)).toEqual([ORACLE_MAX_CHUNK, 2]);
  });
});

describe('Oracle engine (recording connection): one chunk', () => {
  it('claim, merge, finalize in one transaction on one connection, committed once', async () => {
    const rows = [
      {
        STAGE_ID: '5',
        SOURCE_KEY: '注文-0005',
        CUSTOMER_ID: '42',
        ORDER_DATE: '2024-04-01',
        AMOUNT: '1200.00',
        CURRENCY: 'JPY',
        ATTEMPT_COUNT: '0',
        TRANSIENT_FAILURES: '0',
        LOAD_ID: '7',
        LINE_NO: '2',
      },
      {
        STAGE_ID: '6',
        SOURCE_KEY: 'K6',
        CUSTOMER_ID: '43',
        ORDER_DATE: '2024-04-02',
        AMOUNT: '99999999999.00',
        CURRENCY: 'USD',
        ATTEMPT_COUNT: '3',
        TRANSIENT_FAILURES: '2',
        LOAD_ID: null,
        LINE_NO: null,
      },
      {
        STAGE_ID: '7',
        SOURCE_KEY: 'K7',
        CUSTOMER_ID: '44',
        ORDER_DATE: '2024-04-03',
        AMOUNT: '1.50',
        CURRENCY: 'EUR',
        ATTEMPT_COUNT: '0',
        TRANSIENT_FAILURES: '0',
        LOAD_ID: '7',
        LINE_NO: '4',
      },
    ];
    const db = new RecordingDatabase({
      resultSetRows: () => rows,
      executeMany: (sql) =>
        sql === oracleQuery('merge_orders')
          ? { batchErrors: [batchError(1, 'ORA-01438: value larger than specified precision allowed for this column')] }
          : {},
    });
    const engine = createOracleEngineWith(db, constants);
    const next = new Date('2024-05-01T10:00:00.123Z');

    await engine.transaction(async (tx) => {
      const chunk = await tx.claimChunk({ afterStageId: 4, limit: 3, loadIds: [7, 8] });
      expect(chunk).toEqual([
        {
          stageId: 5,
          sourceKey: '注文-0005',
          customerId: '42',
          orderDate: '2024-04-01',
          amount: '1200.00',
          currency: 'JPY',
          attemptCount: 0,
          transientFailures: 0,
          loadId: 7,
          lineNo: 2,
        },
        {
          stageId: 6,
          sourceKey: 'K6',
          customerId: '43',
          orderDate: '2024-04-02',
          amount: '99999999999.00',
          currency: 'USD',
          attemptCount: 3,
          transientFailures: 2,
          loadId: null,
          lineNo: null,
        },
        {
          stageId: 7,
          sourceKey: 'K7',
          customerId: '44',
          orderDate: '2024-04-03',
          amount: '1.50',
          currency: 'EUR',
          attemptCount: 0,
          transientFailures: 0,
          loadId: 7,
          lineNo: 4,
        },
      ]);
      const failures = await tx.mergeOrders(chunk, { isolationBlock: 3 });
      expect(failures).toEqual([expect.objectContaining({ stageId: 6, code: 'ORA-01438', kind: 'rejected' })]);
      await tx.finalizeChunk({
        batchId: 'batch-1',
        done: [5, 7],
        failed: [
          {
            stageId: 6,
            sourceKey: 'K6',
            status: 'ERROR',
            attemptNo: 4,
            transientFailures: 2,
            loadId: null,
            lineNo: null,
            error: { phase: 'MERGE', code: 'ORA-01438', message: 'x'.repeat(1500) },
          },
          {
            stageId: 8,
            sourceKey: 'K8',
            status: 'RETRY_WAIT',
            attemptNo: 1,
            transientFailures: 1,
            loadId: 7,
            lineNo: 9,
            error: { phase: 'MERGE', code: 'ORA-00060', message: 'ORA-00060: deadlock detected while waiting for resource' },
            nextAttemptAt: next,
          },
        ],
      });
    });

    expect(db.trace()).toEqual([
      '1:execute:SELECT /*+ INDEX_ASC(order_stage',
      '1:getRows',
      '1:closeResultSet',
      '1:executeMany:MERGE INTO orders',
      '1:executeMany:UPDATE order_stage SET',
      '1:executeMany:UPDATE order_stage SET',
      '1:executeMany:INSERT INTO order_bulk_error',
      '1:commit',
    ]);
    expect(db.ended.size).toBe(0);

    // the claim: SKIP LOCKED cursor, exactly N rows fetched from a result set, then closed
    const claim = db.calls[0]!;
    if (claim.kind !== 'execute') throw new Error('expected execute');
    expect(claim.sql).toBe(oracleQuery('claim'));
    expect(claim.sql).toMatch(/FOR UPDATE SKIP LOCKED$/);
    expect(claim.sql).not.toMatch(/FETCH\s+FIRST|ROWNUM/i);
    expect(claim.binds).toEqual({ after_stage_id: { val: 4, type: NUMBER }, load_ids: { val: ',7,8,', type: VARCHAR, maxSize: 4000 } });
    expect(claim.options).toMatchObject({ autoCommit: false, resultSet: true, fetchArraySize: 3, prefetchRows: 3 });
    expect(db.calls[1]).toEqual({ kind: 'getRows', conn: 1, numRows: 3 });

    const [, done, failed, log] = db.executeManyCalls();
    expect(done!.sql).toBe(oracleQuery('finalize_done'));
    expect(done!.binds).toEqual([
      { stage_id: 5, batch_id: 'batch-1' },
      { stage_id: 7, batch_id: 'batch-1' },
    ]);
    expect(done!.options).toEqual({
      autoCommit: false,
      bindDefs: { stage_id: { type: NUMBER }, batch_id: { type: VARCHAR, maxSize: 256 } },
    });
    expect(failed!.sql).toBe(oracleQuery('finalize_failed'));
    expect(failed!.binds[0]).toMatchObject({
      stage_id: 6,
      status: 'ERROR',
      attempt_no: 4,
      transient_failures: 2,
      batch_id: 'batch-1',
      error_code: 'ORA-01438',
      next_attempt_at: null,
    });
    expect(String(failed!.binds[0]!.error_message)).toHaveLength(1000);
    expect(failed!.binds[1]).toMatchObject({
      stage_id: 8,
      status: 'RETRY_WAIT',
      attempt_no: 1,
      transient_failures: 1,
      next_attempt_at: '2024-05-01T10:00:00.123',
    });
    expect(failed!.options.bindDefs).toMatchObject({
      attempt_no: { type: NUMBER },
      transient_failures: { type: NUMBER },
      error_message: { type: VARCHAR, maxSize: 4000 },
      next_attempt_at: { type: VARCHAR },
    });
    // (the recording connection refuses binds that do not match the placeholders: NJS-098)
    expect(failed!.sql).toMatch(/attempt_count\s+= :attempt_no,\s+transient_failures\s+= :transient_failures,/);
    expect(log!.sql).toBe(oracleQuery('finalize_failed_log'));
    expect(log!.binds.map((b) => [b.stage_id, b.source_key, b.phase, b.attempt_no])).toEqual([
      [6, 'K6', 'MERGE', 4],
      [8, 'K8', 'MERGE', 1],
    ]);
  });

  it.each([1, 2, 3, 50])('the claim of %i rows fetches (and so, under SKIP LOCKED, locks) no more than that many rows', async (limit) => {
    const available = Array.from({ length: 120 }, (_, i) => ({
      STAGE_ID: String(i + 1),
      SOURCE_KEY: `K${i + 1}`,
      CUSTOMER_ID: '1',
      ORDER_DATE: '2024-04-01',
      AMOUNT: '1.00',
      CURRENCY: 'JPY',
      ATTEMPT_COUNT: '0',
      TRANSIENT_FAILURES: '0',
      LOAD_ID: '1',
      LINE_NO: '2',
    }));
    const db = new RecordingDatabase({ resultSetRows: () => available });
    const engine = createOracleEngineWith(db, constants);
    const rows = await engine.transaction((tx) => tx.claimChunk({ afterStageId: 0, limit }));
    expect(rows).toHaveLength(limit);
    const claim = db.calls.find((c) => c.kind === 'execute');
    if (claim?.kind !== 'execute') throw new Error('expected the claim');
    expect(claim.fetched).toBe(limit);
  });

  it('the recording fetches as thin mode does: prefetchRows with the execute, then what getRows(n) lacks', async () => {
    const db = new RecordingDatabase({ resultSetRows: () => [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] });
    const connection = await db.getConnection();
    const defaults = await connection.execute('SELECT 1 FROM dual', {}, { autoCommit: false, resultSet: true });
    const call = db.calls.at(-1);
    if (call?.kind !== 'execute') throw new Error('expected execute');
    expect(call.fetched).toBe(2); // prefetchRows defaults to 2 (lib/settings.js)
    expect(await defaults.resultSet!.getRows(5)).toEqual([1, 2, 3, 4, 5]);
    expect(call.fetched).toBe(5);
    const big = await connection.execute('SELECT 1 FROM dual', {}, { autoCommit: false, resultSet: true, prefetchRows: 8 });
    const bigCall = db.calls.at(-1);
    expect(await big.resultSet!.getRows(3)).toEqual([1, 2, 3]);
    expect(bigCall?.kind === 'execute' && bigCall.fetched).toBe(8); // more than asked for: locked too
    const plain = await new RecordingDatabase({ execute: () => ({ rows: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }) }).getConnection();
    expect((await plain.execute('SELECT 1 FROM dual', {}, { autoCommit: false, maxRows: 4 })).rows).toEqual([1, 2, 3, 4]);
    expect((await plain.execute('SELECT 1 FROM dual', {}, { autoCommit: false })).rows).toHaveLength(10); // every row: never for a lock
  });

  it('claim without a load filter binds NULL; an empty load list claims nothing and sends nothing', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    await engine.transaction(async (tx) => {
      expect(await tx.claimChunk({ afterStageId: 0, limit: 100 })).toEqual([]);
      expect(await tx.claimChunk({ afterStageId: 0, limit: 100, loadIds: [] })).toEqual([]);
    });
    const claims = db.calls.filter((c) => c.kind === 'execute');
    expect(claims).toHaveLength(1);
    expect(claims[0]!.binds.load_ids).toEqual({ val: null, type: VARCHAR, maxSize: 4000 });
  });

  it('rolls back and keeps the connection for the next use on a non-fatal error', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    await expect(
      engine.transaction(async () => {
        throw new Error('validation blew up');
      }),
    ).rejects.toThrow('validation blew up');
    expect(db.trace()).toEqual(['1:rollback']);
    expect(db.ended.size).toBe(0);
    await engine.transaction(async (tx) => tx.claimChunk({ afterStageId: 0, limit: 1 }));
    expect(db.trace().slice(1)).toEqual(['1:execute:SELECT /*+ INDEX_ASC(order_stage', '1:getRows', '1:closeResultSet', '1:commit']);
    await engine.close();
    expect(db.trace().at(-1)).toBe('1:close');
  });

  it('drops the connection when the rollback itself fails', async () => {
    const db = new RecordingDatabase({
      rollback: () => {
        throw driverError('NJS-003', 'invalid or closed connection');
      },
    });
    const engine = createOracleEngineWith(db, constants);
    await expect(engine.transaction(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(db.calls.at(-1)).toEqual({ kind: 'close', conn: 1 });
    expect(db.ended).toEqual(new Set([1]));
  });
});

describe('Oracle engine (recording connection): stageBatch', () => {
  const input = (over: Partial<StageInput> = {}): StageInput => ({
    sourceKey: 'A-1',
    customerId: '42',
    orderDate: '2024-04-01',
    amount: '1200.5',
    currency: 'JPY',
    lineNo: 2,
    ...over,
  });

  it('through the batch table (ORDER_LOADER_STAGE_DIRECT=off): array-binds the batch, locks the rows of the keys staged already, counts, updates each key (array-bound), then inserts the new keys in line order', async () => {
    const db = new RecordingDatabase({
      execute: (sql) =>
        sql === oracleQuery('stage_batch_counts')
          ? { rows: [{ UPDATED: '1', UNCHANGED: '0', UNCHANGED_ERROR: '0', REPEATED_IN_LOAD: '1' }] }
          : { rowsAffected: 0 },
    });
    const engine = createOracleEngineWith(db, constants, { stageDirect: false });
    const counts = await engine.transaction((tx) =>
      tx.stageBatch(7, [
        input(),
        input({ sourceKey: '注文-２', lineNo: 3 }),
        input({
          sourceKey: 'bad',
          customerId: null,
          orderDate: null,
          amount: null,
          currency: null,
          lineNo: 4,
          parseError: { code: 'PARSE_QUOTE', message: 'unclosed quote' },
        }),
      ]),
    );
    // inserted: the new-key insert's own rowsAffected (the recording database answers every row
    // bound), not a count read before it
    expect(oracleQuery('stage_batch_counts')).not.toMatch(/AS inserted/i);
    expect(counts).toEqual({ inserted: 3, updated: 1, unchanged: 0, unchangedError: 0, repeatedInLoad: 1, refused: [], by: 'batch-table' });
    expect(db.trace()).toEqual([
      '1:executeMany:INSERT INTO order_stage_batch',
      '1:execute:DECLARE CURSOR staged',
      '1:execute:SELECT COUNT(CASE WHEN',
      '1:execute:SAVEPOINT stage_batch_update',
      '1:executeMany:MERGE /*+ USE_NL(s)',
      '1:executeMany:INSERT INTO order_stage',
      '1:commit',
    ]);
    const insert = db.executeManyCalls()[0]!;
    expect(insert.options).toEqual({
      autoCommit: false,
      batchErrors: true,
      bindDefs: {
        source_key: { type: VARCHAR, maxSize: 400 },
        customer_id: { type: VARCHAR, maxSize: 64 },
        order_date: { type: VARCHAR, maxSize: 64 },
        amount: { type: VARCHAR, maxSize: 64 },
        currency: { type: VARCHAR, maxSize: 12 },
        line_no: { type: NUMBER },
        parse_code: { type: VARCHAR, maxSize: 120 },
        parse_message: { type: VARCHAR, maxSize: 4000 },
        // the rows' attributes (none here): VARCHAR2 of the database's limit, a CLOB past it
        attributes: { type: VARCHAR, maxSize: 4000 },
      },
    });
    expect(insert.binds[0]).toEqual({
      source_key: 'A-1',
      customer_id: '42',
      order_date: '2024-04-01',
      amount: '1200.5',
      currency: 'JPY',
      line_no: 2,
      parse_code: null,
      parse_message: null,
      attributes: null,
    });
    expect(insert.binds[2]).toMatchObject({
      source_key: 'bad',
      customer_id: null,
      parse_code: 'PARSE_QUOTE',
      parse_message: 'unclosed quote',
    });
    // values are converted in SQL with explicit formats, never by session NLS settings
    expect(insert.sql).toContain("TO_DATE(:order_date, 'YYYY-MM-DD')");
    expect(insert.sql).toMatch(/TO_NUMBER\(:amount, '[9D]+',\s*'NLS_NUMERIC_CHARACTERS=''\.,'''\)/);
    // the update: one iteration per key, each refusable alone (batchErrors)
    const merge = db.executeManyCalls()[1]!;
    expect(merge.sql).toBe(oracleQuery('stage_batch_update'));
    expect(merge.binds).toEqual([
      { source_key: 'A-1', load_id: 7 },
      { source_key: '注文-２', load_id: 7 },
      { source_key: 'bad', load_id: 7 },
    ]);
    expect(merge.options).toEqual({
      autoCommit: false,
      batchErrors: true,
      bindDefs: { source_key: { type: VARCHAR, maxSize: 400 }, load_id: { type: NUMBER } },
    });
    // the new keys: one iteration per row, in line order (stage_id follows it)
    const fresh = db.executeManyCalls()[2]!;
    expect(fresh.sql).toBe(oracleQuery('stage_batch_new'));
    expect(fresh.binds).toEqual([
      { source_key: 'A-1', load_id: 7 },
      { source_key: '注文-２', load_id: 7 },
      { source_key: 'bad', load_id: 7 },
    ]);
    expect(fresh.options).toEqual({
      autoCommit: false,
      batchErrors: true,
      bindDefs: { source_key: { type: VARCHAR, maxSize: 400 }, load_id: { type: NUMBER } },
    });
    // a row whose values change starts its transient failures again and keeps its attempt_count
    // (as order_loader_stage_batch, PostgreSQL migration 007)
    expect(oracleQuery('stage_batch_update')).toContain(
      's.transient_failures = CASE WHEN src.is_changed = 1 THEN 0 ELSE s.transient_failures END',
    );
    expect(oracleQuery('stage_batch_update')).not.toMatch(/attempt_count/);
  });

  it('a source_key over 100 characters fails the batch before anything is sent, naming the line, not the value', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    const key = '長'.repeat(101);
    const error: unknown = await engine
      .transaction((tx) => tx.stageBatch(1, [input({ sourceKey: key, lineNo: 12 })]))
      .then(
        () => null,
        (e: unknown) => e,
      );
    if (!(error instanceof Error)) throw new Error('expected the batch to fail');
    expect(error.message).toContain('line 12');
    expect(error.message).not.toContain(key);
    expect(db.trace()).toEqual(['1:rollback']);
  });

  it('100 four-byte characters fit the 400-byte maxSize, directly and through the batch table', async () => {
    for (const [stageDirect, calls] of [
      [true, 1],
      [false, 3],
    ] as const) {
      const db = new RecordingDatabase({
        execute: () => ({ rows: [{ UPDATED: '0', UNCHANGED: '0', UNCHANGED_ERROR: '0', REPEATED_IN_LOAD: '0' }] }),
      });
      const engine = createOracleEngineWith(db, constants, { stageDirect });
      await engine.transaction((tx) => tx.stageBatch(1, [input({ sourceKey: '𠮷'.repeat(100) })]));
      expect(db.executeManyCalls()).toHaveLength(calls);
    }
  });
});

describe('Oracle engine (recording connection): error log, runs, reports', () => {
  it('logErrors binds raw_record as VARCHAR2 up to 4000 bytes, as CLOB beyond (only those rows), and cuts messages to 1000', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    const base = {
      stageId: null,
      sourceKey: 'K',
      loadId: 3,
      lineNo: 9,
      batchId: null,
      attemptNo: null,
      phase: 'PARSE' as const,
      code: 'PARSE_COLUMNS',
      message: 'm'.repeat(2000),
    };
    await engine.transaction(async (tx) => {
      await tx.logErrors([{ ...base, rawRecord: 'a,b,c' }]);
      await tx.logErrors([
        { ...base, rawRecord: 'x'.repeat(5000) },
        { ...base, rawRecord: null },
        { ...base, rawRecord: 'd,e' },
      ]);
    });
    const [small, large, rest] = db.executeManyCalls();
    expect(small!.sql).toBe(oracleQuery('log_errors'));
    expect(small!.options.bindDefs.raw_record).toEqual({ type: VARCHAR, maxSize: 4000 });
    expect(String(small!.binds[0]!.error_message)).toHaveLength(1000);
    expect(large!.options.bindDefs.raw_record).toEqual({ type: CLOB });
    expect(large!.binds.map((b) => b.raw_record)).toEqual(['x'.repeat(5000)]);
    expect(rest!.options.bindDefs.raw_record).toEqual({ type: VARCHAR, maxSize: 4000 });
    expect(rest!.binds.map((b) => b.raw_record)).toEqual([null, 'd,e']);
    expect(db.trace().filter((t) => t.endsWith('commit'))).toHaveLength(1);
  });

  it("logErrors does not look up the stage row of a rejected line's own key (keyOnly): it is logged for the errors export only", async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    const base = {
      stageId: null,
      loadId: 3,
      lineNo: 9,
      batchId: null,
      attemptNo: null,
      phase: 'PARSE' as const,
      message: 'm',
      rawRecord: 'r',
    };
    await engine.transaction((tx) =>
      tx.logErrors([
        { ...base, code: 'PARSE_ENCODING', sourceKey: 'K-1', keyOnly: true },
        { ...base, code: 'PARSE_AMOUNT', sourceKey: 'K-2' },
      ]),
    );
    const [call] = db.executeManyCalls();
    expect(call!.binds.map((b) => [b.source_key, b.lookup_key])).toEqual([
      ['K-1', null],
      ['K-2', 'K-2'],
    ]);
  });

  it('logErrors looks the stage row up by the full source_key only, never by a cut one', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    const base = {
      stageId: null,
      loadId: 3,
      lineNo: 9,
      batchId: null,
      attemptNo: null,
      phase: 'PARSE' as const,
      code: 'PARSE_AMOUNT',
      message: 'm',
      rawRecord: 'r',
    };
    const long = 'K'.repeat(150);
    await engine.transaction((tx) =>
      tx.logErrors([
        { ...base, sourceKey: 'K-1' },
        { ...base, sourceKey: long },
        { ...base, sourceKey: null },
      ]),
    );
    const [call] = db.executeManyCalls();
    expect(call!.sql).toContain('WHERE s.source_key = :lookup_key');
    expect(call!.binds.map((b) => [b.source_key, b.lookup_key])).toEqual([
      ['K-1', 'K-1'],
      ['K'.repeat(100), null],
      [null, null],
    ]);
    expect(call!.options.bindDefs.lookup_key).toEqual({ type: VARCHAR, maxSize: 400 });
  });

  it('addRunEvent is one array-bound INSERT with the detail as JSON text', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    await engine.transaction((tx) => tx.addRunEvent(12, { event: 'staged', detail: { line: 1000, byte: 52000 } }));
    const [call] = db.executeManyCalls();
    expect(call!.binds).toEqual([{ run_id: 12, event: 'staged', detail: '{"line":1000,"byte":52000}' }]);
    expect(call!.options).toEqual({
      autoCommit: false,
      bindDefs: { run_id: { type: NUMBER }, event: { type: VARCHAR, maxSize: 160 }, detail: { type: VARCHAR, maxSize: 4000 } },
    });
  });

  it('startRun reads the RETURNING out bind and commits; listRuns maps UTC text and JSON', async () => {
    const db = new RecordingDatabase({
      execute: (sql) => {
        if (sql === oracleQuery('run_start')) return { outBinds: { run_id: [41] }, rowsAffected: 1 };
        if (sql === oracleQuery('runs_list')) {
          return {
            rows: [
              {
                RUN_ID: '41',
                COMMAND: 'load',
                FILE_NAME: 'a.csv',
                FILE_SIZE: '120',
                FILE_SHA256: 'f'.repeat(64),
                HOST: 'h',
                PID: '99',
                STATUS: 'COMPLETED',
                STARTED_AT: '2024-05-01T10:00:00.000Z',
                FINISHED_AT: null,
                COUNTS: '{"done":3}',
                MESSAGE: null,
              },
            ],
          };
        }
        return {};
      },
    });
    const engine = createOracleEngineWith(db, constants);
    const runId = await engine.startRun({
      command: 'load',
      fileName: 'a.csv',
      fileSize: 120,
      fileSha256: 'f'.repeat(64),
      host: 'h',
      pid: 99,
    });
    expect(runId).toBe(41);
    const start = db.calls[0]!;
    expect(start.kind === 'execute' && start.binds.run_id).toEqual({
      dir: (oracledb as unknown as { BIND_OUT: number }).BIND_OUT,
      type: NUMBER,
    });
    expect(db.trace().slice(0, 2)).toEqual(['1:execute:INSERT INTO load_run', '1:commit']);
    const runs = await engine.listRuns(5);
    expect(runs).toEqual([
      {
        runId: 41,
        command: 'load',
        fileName: 'a.csv',
        fileSize: 120,
        fileSha256: 'f'.repeat(64),
        host: 'h',
        pid: 99,
        status: 'COMPLETED',
        startedAt: new Date('2024-05-01T10:00:00.000Z'),
        finishedAt: null,
        counts: { done: 3 },
        message: null,
      },
    ]);
  });

  it('finishRun cuts the message to 4000 bytes without splitting a character', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    await engine.finishRun(3, 'FAILED', { done: 1 }, 'あ'.repeat(2000));
    const call = db.calls[0]!;
    if (call.kind !== 'execute') throw new Error('expected execute');
    const message = (call.binds.message as { val: string }).val;
    expect(Buffer.byteLength(message)).toBeLessThanOrEqual(4000);
    expect(message).toBe('あ'.repeat(1333));
  });

  it('tallyLoads binds 20 id slots per statement and sums the slices', async () => {
    const db = new RecordingDatabase({
      execute: () => ({
        rows: [
          { PROCESS_STATUS: 'DONE', N: '2' },
          { PROCESS_STATUS: 'ERROR', N: '1' },
        ],
      }),
    });
    const engine = createOracleEngineWith(db, constants);
    const tally = await engine.tallyLoads(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(tally).toEqual({ DONE: 4, ERROR: 2 });
    const executes = db.calls.filter((c) => c.kind === 'execute');
    expect(executes).toHaveLength(2);
    const second = executes[1]!;
    expect(second.binds.id5).toEqual({ val: 25, type: NUMBER });
    expect(second.binds.id6).toEqual({ val: null, type: NUMBER });
    expect(await engine.tallyLoads([])).toEqual({});
  });

  it('statusReport reads counts, the oldest READY row, the retry-wait summary and since when the oldest row waits', async () => {
    const db = new RecordingDatabase({
      execute: (sql) => {
        if (sql === oracleQuery('status_counts'))
          return {
            rows: [
              { LOAD_ID: null, PROCESS_STATUS: 'READY', N: '3' },
              { LOAD_ID: '2', PROCESS_STATUS: 'DONE', N: '10' },
            ],
          };
        if (sql === oracleQuery('status_oldest_ready'))
          return { rows: [{ STAGE_ID: '8', SOURCE_KEY: 'K8', STAGED_AT: '2024-05-01T00:00:00.000Z' }] };
        if (sql === oracleQuery('status_oldest_waiting')) return { rows: [{ WAITING_SINCE: '2024-04-30T23:00:00.000Z' }] };
        return { rows: [{ N: '0', NEXT_DUE_AT: null }] };
      },
    });
    const engine = createOracleEngineWith(db, constants);
    expect(await engine.statusReport()).toEqual({
      counts: [
        { loadId: null, status: 'READY', count: 3 },
        { loadId: 2, status: 'DONE', count: 10 },
      ],
      oldestReady: { stageId: 8, sourceKey: 'K8', stagedAt: new Date('2024-05-01T00:00:00.000Z') },
      retryWait: { count: 0, nextDueAt: null },
      oldestWaitingSince: new Date('2024-04-30T23:00:00.000Z'),
    });
  });

  it('loadRuns binds the load ids in slots and --since as UTC text, and reads each run once', async () => {
    const db = new RecordingDatabase({
      execute: (sql) =>
        sql === oracleQuery('status_load_runs')
          ? { rows: [{ RUN_ID: '3', FILE_NAME: 'in/day.csv', STARTED_AT: '2026-01-31T06:00:00.000Z' }] }
          : { rows: [] },
    });
    const engine = createOracleEngineWith(db, constants);
    const ids = Array.from({ length: 21 }, (_, i) => i + 1);
    expect(await engine.loadRuns({ loadIds: ids, since: new Date('2026-01-01T00:00:00Z') })).toEqual([
      { loadId: 3, fileName: 'in/day.csv', startedAt: new Date('2026-01-31T06:00:00.000Z') },
    ]);
    const calls = db.calls.filter((c) => c.kind === 'execute' && c.sql === oracleQuery('status_load_runs'));
    // 21 ids: two executions of 20 slots
    expect(calls).toHaveLength(2);
    const binds = (calls[1] as { binds: Record<string, { val: unknown }> }).binds;
    expect(binds.id1?.val).toBe(21);
    expect(binds.id2?.val).toBeNull();
    expect(binds.since_utc?.val).toBe('2026-01-01T00:00:00.000');
  });

  it('queries fetch NUMBER and CLOB columns as strings (fetchTypeHandler)', async () => {
    const db = new RecordingDatabase({ execute: () => ({ rows: [] }) });
    const engine = createOracleEngineWith(db, constants);
    await engine.listRunEvents([1]);
    const call = db.calls[0]!;
    if (call.kind !== 'execute') throw new Error('expected execute');
    const handler = call.options.fetchTypeHandler!;
    expect(handler({ name: 'N', dbType: NUMBER })).toEqual({ type: VARCHAR });
    expect(handler({ name: 'DETAIL', dbType: CLOB })).toEqual({ type: VARCHAR });
    expect(handler({ name: 'SOURCE_KEY', dbType: VARCHAR })).toBeUndefined();
  });
});
