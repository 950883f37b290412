/**
 * Oracle staging against a RECORDING connection (test/oracle/recording-connection.ts): a row
 * the database refuses while staging comes back in the staging insert's batchErrors (thin mode:
 * an Error with `offset` and `message`, no errorNum) and is rejected alone, like a parse
 * reject; fatal and transient codes fail the batch. The first describe blocks script the
 * refusals of the batch-table way (ORDER_LOADER_STAGE_DIRECT=off); the last runs the default,
 * the direct insert first, against the table model (table-model.ts), whose batch errors
 * (ORA-00001, ORA-01438), rowsAffected and counts follow from its tables. Nothing runs on an
 * Oracle Database.
 */
import { describe, expect, it } from 'vitest';
import oracledb from 'oracledb';
import { createOracleEngineWith, ORACLE_MAX_CHUNK, OracleChunkError } from '../../src/engine/oracle/index.js';
import { DIRECT_MAX_EXISTING_SHARE, DirectInsertPolicy, stageDirectEnabled } from '../../src/engine/oracle/stage-direct.js';
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import type { StageInput } from '../../src/engine/types.js';
import { openOrderFile } from '../../src/input/order-file.js';
import { DEFAULT_RETRY } from '../../src/pipeline/retry.js';
import { stageFile } from '../../src/pipeline/stage.js';
import { HEADER, writeTestFile } from '../support/files.js';
import { memoryLogger } from '../support/memory-logger.js';
import { batchError, constants, RecordingDatabase } from './recording-connection.js';
import type { OraBinds } from '../../src/engine/oracle/oracledb-types.js';
import { TableModel } from './table-model.js';

const NUMBER = (oracledb as unknown as { DB_TYPE_NUMBER: unknown }).DB_TYPE_NUMBER;
const VARCHAR = (oracledb as unknown as { DB_TYPE_VARCHAR: unknown }).DB_TYPE_VARCHAR;

const COUNTS = { rows: [{ UPDATED: '0', UNCHANGED: '0', UNCHANGED_ERROR: '0', REPEATED_IN_LOAD: '0' }] };

/** The batch-table way alone (ORDER_LOADER_STAGE_DIRECT=off): what these scripts answer. */
const BATCH_TABLE = { stageDirect: false };

/** A database that refuses, in the staging insert, the rows whose source_key starts with X. */
function refusing(message: string) {
  return new RecordingDatabase({
    execute: (sql) => (sql === oracleQuery('stage_batch_counts') ? COUNTS : { rows: [] }),
    executeMany: (sql, binds: OraBinds[]) => {
      if (sql !== oracleQuery('stage_batch_insert')) return { rowsAffected: binds.length, batchErrors: [] };
      const errors = binds.flatMap((b, offset) =>
        typeof b.source_key === 'string' && b.source_key.startsWith('X') ? [batchError(offset, message)] : [],
      );
      return { rowsAffected: binds.length - errors.length, batchErrors: errors };
    },
  });
}

const row = (lineNo: number, over: Partial<StageInput> = {}): StageInput => ({
  sourceKey: `K${lineNo}`,
  customerId: '1',
  orderDate: '2026-01-01',
  amount: '10',
  currency: 'JPY',
  lineNo,
  ...over,
});

describe('Oracle staging through the batch table (recording connection): rows refused by the database', () => {
  it('maps each batch error offset to its line; the other rows are counted and inserted in line order', async () => {
    const db = refusing('ORA-01438: value larger than specified precision allowed for this column');
    const engine = createOracleEngineWith(db, constants, BATCH_TABLE);
    const result = await engine.transaction((tx) =>
      tx.stageBatch(3, [row(2), row(3, { sourceKey: 'X3' }), row(4), row(5, { sourceKey: 'X5' })]),
    );
    expect(result.refused).toEqual([
      {
        lineNo: 3,
        sourceKey: 'X3',
        code: 'ORA-01438',
        message: 'ORA-01438: value larger than specified precision allowed for this column',
      },
      {
        lineNo: 5,
        sourceKey: 'X5',
        code: 'ORA-01438',
        message: 'ORA-01438: value larger than specified precision allowed for this column',
      },
    ]);
    // the new-key insert binds only the rows staged, in line order; its rowsAffected is "inserted"
    const fresh = db.executeManyCalls().find((c) => c.sql === oracleQuery('stage_batch_new'));
    expect(fresh?.binds.map((b) => b.source_key)).toEqual(['K2', 'K4']);
    expect(result.inserted).toBe(2);
    expect(db.trace().at(-1)).toBe('1:commit');
  });

  it('a batch whose every row is refused sends neither the counts nor the writes', async () => {
    const db = refusing('ORA-01438: value larger than specified precision allowed for this column');
    const engine = createOracleEngineWith(db, constants, BATCH_TABLE);
    const result = await engine.transaction((tx) => tx.stageBatch(3, [row(2, { sourceKey: 'X2' })]));
    expect(result).toMatchObject({ inserted: 0, updated: 0, refused: [expect.objectContaining({ lineNo: 2 })] });
    expect(db.trace()).toEqual(['1:executeMany:INSERT INTO order_stage_batch', '1:commit']);
  });

  it.each([
    [
      'fatal',
      'ORA-00604: error occurred at recursive SQL level 1\nORA-01653: unable to extend table LOADER.ORDER_STAGE_BATCH',
      'ORA-01653',
    ],
    ['transient', 'ORA-00060: deadlock detected while waiting for resource', 'ORA-00060'],
  ] as const)('a %s code in a batch error fails the whole batch, rolled back', async (kind, message, code) => {
    const db = refusing(message);
    const engine = createOracleEngineWith(db, constants, BATCH_TABLE);
    const error = await engine.transaction((tx) => tx.stageBatch(3, [row(2), row(3, { sourceKey: 'X3' })])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OracleChunkError);
    expect((error as OracleChunkError).code).toBe(code);
    expect(engine.classifyError(error)).toBe(kind);
    expect(db.trace()).not.toContain('1:commit');
    expect(db.executeManyCalls().some((c) => c.sql === oracleQuery('stage_batch_new'))).toBe(false);
  });

  it('a refusal in the new-key insert is rejected too, and not counted as inserted', async () => {
    const db = new RecordingDatabase({
      execute: (sql) => (sql === oracleQuery('stage_batch_counts') ? COUNTS : { rows: [] }),
      executeMany: (sql, binds) =>
        sql === oracleQuery('stage_batch_new')
          ? { rowsAffected: binds.length - 1, batchErrors: [batchError(0, 'ORA-02290: check constraint (LOADER.CK_TEST) violated')] }
          : { rowsAffected: binds.length, batchErrors: [] },
    });
    const engine = createOracleEngineWith(db, constants, BATCH_TABLE);
    const result = await engine.transaction((tx) => tx.stageBatch(3, [row(7), row(8)]));
    expect(result.inserted).toBe(1);
    expect(result.refused).toEqual([expect.objectContaining({ lineNo: 7, code: 'ORA-02290' })]);
  });

  it('through the pipeline: the refused line is logged and counted exactly as a parse reject', async () => {
    const db = refusing('ORA-01438: value larger than specified precision allowed for this column');
    const engine = createOracleEngineWith(db, constants, BATCH_TABLE);
    const lines = ['A,1,2026-01-01,10,JPY', 'XB,2,2026-01-01,20,JPY', 'C,3,2026-01-01', 'D,4,2026-01-01,40,JPY'];
    const file = await openOrderFile(writeTestFile(`${HEADER}\n${lines.join('\n')}\n`), { encoding: 'utf-8', delimiter: ',' });
    const result = await stageFile(engine, 41, file, { loadId: 41, batchSize: 10, retry: DEFAULT_RETRY, logger: memoryLogger().logger });
    expect(result.counts).toEqual({ read: 4, inserted: 2, updated: 0, unchanged: 0, unchangedError: 0, duplicates: 0, rejected: 2 });
    const logged = db
      .executeManyCalls()
      .filter((c) => c.sql === oracleQuery('log_errors'))
      .flatMap((c) => c.binds);
    expect(logged.map((b) => [b.line_no, b.source_key, b.stage_id, b.phase, b.error_code, b.raw_record])).toEqual([
      [3, 'XB', null, 'PARSE', 'ORA-01438', lines[1]],
      [4, null, null, 'PARSE', expect.stringMatching(/^PARSE/), lines[2]],
    ]);
    const checkpoint = db
      .executeManyCalls()
      .filter((c) => c.sql === oracleQuery('run_event'))
      .map((c) => JSON.parse(String(c.binds[0]?.detail)) as { counts: unknown; line: number });
    expect(checkpoint).toEqual([expect.objectContaining({ line: 5, counts: result.counts })]);
  });
});

describe('Oracle staging through the batch table (recording connection): an update of a staged key refused by the database', () => {
  /**
   * Keys `staged` (K2..K4) are staged already, the others are new; the site's CHECK constraint
   * refuses the update of the keys named in `refuse` (a batch error of stage_batch_update.sql at
   * that key's offset). The counts answer what the batch then holds: each staged key counted as
   * updated; the new-key insert inserts the others.
   */
  function refusingUpdates(refuse: ReadonlySet<string>, staged: ReadonlySet<string> = new Set(['K2', 'K3', 'K4'])) {
    let batch: string[] = [];
    const db = new RecordingDatabase({
      execute: (sql) => {
        if (sql !== oracleQuery('stage_batch_counts')) return { rows: [] };
        const updated = batch.filter((k) => staged.has(k)).length;
        return { rows: [{ UPDATED: String(updated), UNCHANGED: '0', UNCHANGED_ERROR: '0', REPEATED_IN_LOAD: '0' }] };
      },
      executeMany: (sql, binds: OraBinds[]) => {
        const keys = binds.map((b) => String(b.source_key));
        if (sql === oracleQuery('stage_batch_insert')) batch = keys;
        if (sql === oracleQuery('stage_batch_drop_key')) batch = batch.filter((k) => !keys.includes(k));
        if (sql === oracleQuery('stage_batch_update')) {
          const errors = keys.flatMap((k, offset) =>
            refuse.has(k) ? [batchError(offset, 'ORA-02290: check constraint (LOADER.CK_SITE_AMOUNT) violated')] : [],
          );
          return { rowsAffected: keys.length - errors.length, batchErrors: errors };
        }
        if (sql === oracleQuery('stage_batch_new')) return { rowsAffected: keys.filter((k) => !staged.has(k)).length, batchErrors: [] };
        return { rowsAffected: keys.length, batchErrors: [] };
      },
    });
    return db;
  }

  it('is rejected for its line alone: the updates are rolled back to the savepoint, the key taken out, counted and updated again', async () => {
    const db = refusingUpdates(new Set(['K3']));
    const engine = createOracleEngineWith(db, constants, BATCH_TABLE);
    const result = await engine.transaction((tx) => tx.stageBatch(3, [row(2), row(3), row(4), row(5)]));
    expect(result.refused).toEqual([
      {
        lineNo: 3,
        sourceKey: 'K3',
        code: 'ORA-02290',
        message: 'ORA-02290: check constraint (LOADER.CK_SITE_AMOUNT) violated',
      },
    ]);
    // the counts taken again without K3: two updated, not three, and K5 inserted
    expect(result).toMatchObject({ inserted: 1, updated: 2 });
    expect(db.trace()).toEqual([
      '1:executeMany:INSERT INTO order_stage_batch',
      '1:execute:DECLARE CURSOR staged',
      '1:execute:SELECT COUNT(CASE WHEN',
      '1:execute:SAVEPOINT stage_batch_update',
      '1:executeMany:MERGE /*+ USE_NL(s)',
      '1:execute:ROLLBACK TO SAVEPOINT',
      '1:executeMany:DELETE FROM order_stage_batch',
      '1:execute:SELECT COUNT(CASE WHEN',
      '1:execute:SAVEPOINT stage_batch_update',
      '1:executeMany:MERGE /*+ USE_NL(s)',
      '1:executeMany:INSERT INTO order_stage',
      '1:commit',
    ]);
    const updates = db.executeManyCalls().filter((c) => c.sql === oracleQuery('stage_batch_update'));
    expect(updates.map((c) => c.binds.map((b) => b.source_key))).toEqual([
      ['K2', 'K3', 'K4', 'K5'],
      ['K2', 'K4', 'K5'],
    ]);
    expect(updates[0]?.options).toMatchObject({ batchErrors: true, autoCommit: false });
    const dropped = db.executeManyCalls().find((c) => c.sql === oracleQuery('stage_batch_drop_key'));
    expect(dropped?.binds).toEqual([{ source_key: 'K3' }]);
    // the new-key insert no longer binds the refused key
    const fresh = db.executeManyCalls().find((c) => c.sql === oracleQuery('stage_batch_new'));
    expect(fresh?.binds.map((b) => b.source_key)).toEqual(['K2', 'K4', 'K5']);
  });

  it('every update refused: nothing more is sent after the keys are taken out, and the batch commits its (empty) work', async () => {
    const db = refusingUpdates(new Set(['K2']));
    const engine = createOracleEngineWith(db, constants, BATCH_TABLE);
    const result = await engine.transaction((tx) => tx.stageBatch(3, [row(2)]));
    expect(result).toMatchObject({ inserted: 0, updated: 0, refused: [expect.objectContaining({ lineNo: 2, code: 'ORA-02290' })] });
    expect(db.trace().slice(-3)).toEqual(['1:execute:ROLLBACK TO SAVEPOINT', '1:executeMany:DELETE FROM order_stage_batch', '1:commit']);
  });

  it('a transient code in an update batch error fails the whole batch (rolled back, retried)', async () => {
    const db = new RecordingDatabase({
      execute: (sql) => (sql === oracleQuery('stage_batch_counts') ? COUNTS : { rows: [] }),
      executeMany: (sql, binds) =>
        sql === oracleQuery('stage_batch_update')
          ? { rowsAffected: binds.length - 1, batchErrors: [batchError(0, "ORA-08177: can't serialize access for this transaction")] }
          : { rowsAffected: binds.length, batchErrors: [] },
    });
    const engine = createOracleEngineWith(db, constants, BATCH_TABLE);
    const error = await engine.transaction((tx) => tx.stageBatch(3, [row(2)])).catch((e: unknown) => e);
    expect(engine.classifyError(error)).toBe('transient');
    expect(db.trace()).not.toContain('1:commit');
  });

  it('through the pipeline: the refused update is logged as a PARSE error-log row with its raw line, the rest of the batch commits', async () => {
    const db = refusingUpdates(new Set(['B']), new Set(['A', 'B', 'C']));
    const engine = createOracleEngineWith(db, constants, BATCH_TABLE);
    const lines = ['A,1,2026-01-01,10,JPY', 'B,2,2026-01-01,20,JPY', 'C,3,2026-01-01,30,JPY'];
    const file = await openOrderFile(writeTestFile(`${HEADER}\n${lines.join('\n')}\n`), { encoding: 'utf-8', delimiter: ',' });
    const result = await stageFile(engine, 41, file, { loadId: 41, batchSize: 10, retry: DEFAULT_RETRY, logger: memoryLogger().logger });
    expect(result.counts).toMatchObject({ read: 3, updated: 2, rejected: 1 });
    const logged = db
      .executeManyCalls()
      .filter((c) => c.sql === oracleQuery('log_errors'))
      .flatMap((c) => c.binds);
    expect(logged.map((b) => [b.line_no, b.source_key, b.phase, b.error_code, b.raw_record])).toEqual([
      [3, 'B', 'PARSE', 'ORA-02290', lines[1]],
    ]);
    expect(db.trace().at(-1)).toBe('1:commit');
  });
});

describe('Oracle staging straight into order_stage (recording connection, the table model answering)', () => {
  /** The engine over the table model (test/oracle/table-model.ts): batch errors and counts computed from its tables. */
  function modelled(model = new TableModel()) {
    const db = new RecordingDatabase(model.script());
    return { model, db, engine: createOracleEngineWith(db, constants) };
  }
  const STAGE_DEFS = {
    source_key: { type: VARCHAR, maxSize: 400 },
    customer_id: { type: VARCHAR, maxSize: 64 },
    order_date: { type: VARCHAR, maxSize: 64 },
    amount: { type: VARCHAR, maxSize: 64 },
    currency: { type: VARCHAR, maxSize: 12 },
    line_no: { type: NUMBER },
    parse_code: { type: VARCHAR, maxSize: 120 },
    parse_message: { type: VARCHAR, maxSize: 4000 },
    // the rows' attributes (none here: migrations/008_attributes.sql)
    attributes: { type: VARCHAR, maxSize: 4000 },
  };
  const bindOf = (lineNo: number, key = `K${lineNo}`) => ({
    source_key: key,
    customer_id: '1',
    order_date: '2026-01-01',
    amount: '10',
    currency: 'JPY',
    line_no: lineNo,
    parse_code: null,
    parse_message: null,
    attributes: null,
  });

  it('new keys only: one array insert of stage_batch_direct.sql, every line bound with its load, nothing through the batch table', async () => {
    const { model, db, engine } = modelled();
    const result = await engine.transaction((tx) => tx.stageBatch(3, [row(2), row(3), row(4)]));
    expect(result).toEqual({
      inserted: 3,
      updated: 0,
      unchanged: 0,
      unchangedError: 0,
      repeatedInLoad: 0,
      refused: [],
      by: 'direct',
      fellBack: 0,
    });
    expect(db.trace()).toEqual(['1:executeMany:INSERT INTO order_stage', '1:commit']);
    const [direct] = db.executeManyCalls();
    expect(direct?.sql).toBe(oracleQuery('stage_batch_direct'));
    expect(direct?.options).toEqual({ autoCommit: false, batchErrors: true, bindDefs: { ...STAGE_DEFS, load_id: { type: NUMBER } } });
    expect(direct?.binds).toEqual([2, 3, 4].map((n) => ({ ...bindOf(n), load_id: 3 })));
    // the model's rowsAffected (the rows of the iterations that went through) agrees
    expect(model.answers).toEqual([{ statement: 'stage batch direct', rowsAffected: 3, batchErrors: [] }]);
    expect(model.stage.map((r) => [r.stage_id, r.source_key, r.process_status, r.load_id, r.line_no])).toEqual([
      [1, 'K2', 'READY', 3, 2],
      [2, 'K3', 'READY', 3, 3],
      [3, 'K4', 'READY', 3, 4],
    ]);
  });

  it('known keys only: each refused with ORA-00001 (23ai wording, two codes), then counted and updated through the batch table; no new-key insert', async () => {
    const { model, db, engine } = modelled();
    for (const n of [2, 3]) model.addStage({ source_key: `K${n}`, customer_id: '1', order_date: '2026-01-01', amount: 10, load_id: 1 });
    const result = await engine.transaction((tx) => tx.stageBatch(3, [row(2, { amount: '11' }), row(3)]));
    expect(result).toEqual({
      inserted: 0,
      updated: 1,
      unchanged: 1,
      unchangedError: 0,
      repeatedInLoad: 0,
      refused: [],
      by: 'direct',
      fellBack: 2,
    });
    expect(db.trace()).toEqual([
      '1:executeMany:INSERT INTO order_stage',
      '1:executeMany:INSERT INTO order_stage_batch',
      '1:execute:DECLARE CURSOR staged',
      '1:execute:SELECT COUNT(CASE WHEN',
      '1:execute:SAVEPOINT stage_batch_update',
      // K3's line is unchanged: its load recorded (stage_batch_unchanged.sql)
      '1:execute:MERGE INTO order_stage_unchanged',
      '1:executeMany:MERGE /*+ USE_NL(s)',
      '1:commit',
    ]);
    expect(model.answers.map((a) => [a.statement, a.rowsAffected, a.batchErrors])).toEqual([
      ['stage batch direct', 0, [0, 1]],
      ['stage batch insert', 2, []],
      ['stage batch unchanged', 1, []],
      ['stage batch update', 2, []],
    ]);
    expect(model.stage.map((r) => [r.stage_id, r.source_key, r.amount, r.load_id])).toEqual([
      [1, 'K2', 11, 3],
      [2, 'K3', 10, 3],
    ]);
  });

  it('mixed: the new keys inserted directly in line order, only the known ones sent on (their binds as the batch-table insert takes them)', async () => {
    const { model, db, engine } = modelled();
    model.addStage({ source_key: 'K3', customer_id: '1', order_date: '2026-01-01', amount: 10, load_id: 1, process_status: 'DONE' });
    const result = await engine.transaction((tx) => tx.stageBatch(3, [row(2), row(3, { amount: '12.50' }), row(4)]));
    expect(result).toEqual({
      inserted: 2,
      updated: 1,
      unchanged: 0,
      unchangedError: 0,
      repeatedInLoad: 0,
      refused: [],
      by: 'direct',
      fellBack: 1,
    });
    const calls = db.executeManyCalls();
    expect(calls.map((c) => c.sql)).toEqual([
      oracleQuery('stage_batch_direct'),
      oracleQuery('stage_batch_insert'),
      oracleQuery('stage_batch_update'),
    ]);
    expect(calls[1]?.binds).toEqual([{ ...bindOf(3), amount: '12.50' }]);
    expect(calls[1]?.options).toEqual({ autoCommit: false, batchErrors: true, bindDefs: STAGE_DEFS });
    expect(calls[2]?.binds).toEqual([{ source_key: 'K3', load_id: 3 }]);
    // K3 keeps its stage_id; K2 and K4 in line order; the identity value of K3's refused insert is a gap
    expect(model.stage.map((r) => [r.stage_id, r.source_key, r.process_status, r.amount])).toEqual([
      [1, 'K3', 'READY', 12.5],
      [2, 'K2', 'READY', 10],
      [4, 'K4', 'READY', 10],
    ]);
  });

  it('a refused value: the line goes through the batch table, which refuses it as it always did (ORA-01438 of its own insert); the rest commits', async () => {
    const { model, db, engine } = modelled();
    const result = await engine.transaction((tx) => tx.stageBatch(3, [row(2), row(3, { amount: '12345678901234567' }), row(4)]));
    expect(result).toEqual({
      inserted: 2,
      updated: 0,
      unchanged: 0,
      unchangedError: 0,
      repeatedInLoad: 0,
      refused: [
        {
          lineNo: 3,
          sourceKey: 'K3',
          code: 'ORA-01438',
          message: 'ORA-01438: value larger than specified precision allowed for this column',
        },
      ],
      by: 'direct',
      fellBack: 1,
    });
    expect(model.answers.map((a) => [a.statement, a.rowsAffected, a.batchErrors])).toEqual([
      ['stage batch direct', 2, [1]],
      ['stage batch insert', 0, [0]],
    ]);
    expect(db.trace().at(-1)).toBe('1:commit');
    expect(model.stage.map((r) => r.source_key)).toEqual(['K2', 'K4']);
  });

  it.each([
    ['transient', "ORA-08177: can't serialize access for this transaction", 'ORA-08177'],
    ['transient', 'ORA-00060: deadlock detected while waiting for resource', 'ORA-00060'],
    ['fatal', 'ORA-00604: error occurred at recursive SQL level 1\nORA-01653: unable to extend table LOADER.ORDER_STAGE', 'ORA-01653'],
  ] as const)(
    'a %s code in the direct insert (%s) fails the whole batch: rolled back, nothing sent after it',
    async (kind, message, code) => {
      const db = new RecordingDatabase({
        executeMany: (sql, binds) =>
          sql === oracleQuery('stage_batch_direct')
            ? { rowsAffected: binds.length - 1, batchErrors: [batchError(1, message)] }
            : { rowsAffected: binds.length, batchErrors: [] },
      });
      const engine = createOracleEngineWith(db, constants);
      const error = await engine.transaction((tx) => tx.stageBatch(3, [row(2), row(3), row(4)])).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OracleChunkError);
      expect((error as OracleChunkError).code).toBe(code);
      expect((error as Error).message).toContain('line 3');
      expect(engine.classifyError(error)).toBe(kind);
      // (a fatal code also closes the connection after the rollback: driver.ts)
      expect(db.trace().slice(0, 2)).toEqual(['1:executeMany:INSERT INTO order_stage', '1:rollback']);
      expect(db.trace()).not.toContain('1:commit');
    },
  );

  it('a batch larger than one executeMany (65,535 rows): each slice its own call, a batch error mapped to its line through the slice it is in', async () => {
    let directCalls = 0;
    const db = new RecordingDatabase({
      execute: (sql) =>
        sql === oracleQuery('stage_batch_counts')
          ? { rows: [{ UPDATED: '1', UNCHANGED: '0', UNCHANGED_ERROR: '0', REPEATED_IN_LOAD: '0' }] }
          : { rows: [] },
      executeMany: (sql, binds) => {
        if (sql !== oracleQuery('stage_batch_direct')) return { rowsAffected: binds.length, batchErrors: [] };
        // the second slice's second row: a key staged already
        const errors = directCalls++ === 1 ? [batchError(1, 'ORA-00001: unique constraint (LOADER.UQ_ORDER_STAGE_SOURCE) violated')] : [];
        return { rowsAffected: binds.length - errors.length, batchErrors: errors };
      },
    });
    const engine = createOracleEngineWith(db, constants);
    const rows = Array.from({ length: ORACLE_MAX_CHUNK + 2 }, (_, i) => row(i + 2));
    const result = await engine.transaction((tx) => tx.stageBatch(3, rows));
    expect(result).toMatchObject({ inserted: ORACLE_MAX_CHUNK + 1, updated: 1, by: 'direct', fellBack: 1 });
    const calls = db.executeManyCalls();
    expect(calls.map((c) => [c.sql === oracleQuery('stage_batch_direct'), c.binds.length])).toEqual([
      [true, ORACLE_MAX_CHUNK],
      [true, 2],
      [false, 1],
      [false, 1],
    ]);
    expect(calls[2]?.binds[0]?.line_no).toBe(ORACLE_MAX_CHUNK + 3);
  });

  it('ORDER_LOADER_STAGE_DIRECT=off, or a last batch with most keys known: the batch goes through the batch table alone', async () => {
    expect(stageDirectEnabled({ ORDER_LOADER_STAGE_DIRECT: 'off' })).toBe(false);
    expect(stageDirectEnabled({})).toBe(true);
    const policy = new DirectInsertPolicy(true);
    expect(policy.tryDirect()).toBe(true);
    policy.observe(3, 5);
    expect(policy.tryDirect()).toBe(false);
    policy.observe(0, 0); // a batch that staged nothing tells nothing
    expect(policy.tryDirect()).toBe(false);
    policy.observe(DIRECT_MAX_EXISTING_SHARE * 10, 10);
    expect(policy.tryDirect()).toBe(true);
    expect(new DirectInsertPolicy(false).tryDirect()).toBe(false);
    const db = new RecordingDatabase(new TableModel().script());
    const off = createOracleEngineWith(db, constants, { stageDirect: false });
    expect(await off.transaction((tx) => tx.stageBatch(3, [row(2)]))).toMatchObject({ inserted: 1, by: 'batch-table' });
    expect(db.executeManyCalls().map((c) => c.sql)).toEqual([
      oracleQuery('stage_batch_insert'),
      oracleQuery('stage_batch_update'),
      oracleQuery('stage_batch_new'),
    ]);
  });

  it('through the pipeline: a key repeated within a batch keeps its last line, one repeated across batches is counted once as repeated; a line the CHECK refuses logged as a parse reject', async () => {
    const { model, db, engine } = modelled();
    model.siteChecks.push((r) => (r.currency === 'XXX' ? 'ORA-02290: check constraint (LOADER.TEST_REFUSE_XXX) violated' : null));
    const lines = [
      'A,1,2026-01-01,10,JPY',
      'B,2,2026-01-01,20,JPY',
      'A,1,2026-01-01,11,JPY', // batch 1: A twice, its last line kept
      'C,3,2026-01-01,30,JPY',
      'X,4,2026-01-01,40,XXX', // refused by the site's CHECK (in the direct insert, then in the new-key insert)
      'B,2,2026-01-01,21,JPY', // batch 2: B staged by batch 1 of this load: counted repeated
    ];
    const file = await openOrderFile(writeTestFile(`${HEADER}\n${lines.join('\n')}\n`), { encoding: 'utf-8', delimiter: ',' });
    const result = await stageFile(engine, 41, file, { loadId: 41, batchSize: 3, retry: DEFAULT_RETRY, logger: memoryLogger().logger });
    expect(result.counts).toEqual({ read: 6, inserted: 3, updated: 0, unchanged: 0, unchangedError: 0, duplicates: 2, rejected: 1 });
    expect(model.stage.map((r) => [r.source_key, r.amount, r.line_no])).toEqual([
      ['B', 21, 7],
      ['A', 11, 4],
      ['C', 30, 5],
    ]);
    const direct = db.executeManyCalls().filter((c) => c.sql === oracleQuery('stage_batch_direct'));
    expect(direct.map((c) => c.binds.map((b) => b.source_key))).toEqual([
      ['B', 'A'],
      ['C', 'X', 'B'],
    ]);
    expect(model.errorLog.map((r) => [r.line_no, r.source_key, r.phase, r.error_code, r.raw_record])).toEqual([
      [6, 'X', 'PARSE', 'ORA-02290', lines[4]],
    ]);
  });
});

describe('Oracle error-log messages (recording connection): stored as the PostgreSQL path stores them', () => {
  it('a staging refusal keeps the first line only (no Help line), its quoted text blanked', async () => {
    const tooLong = 'ORA-12899: value too large for column "LOADER"."ORDER_STAGE"."CURRENCY" (actual: 4, maximum: 3)';
    const engine = createOracleEngineWith(
      refusing(`${tooLong}\nHelp: https://docs.oracle.com/error-help/db/ora-12899/`),
      constants,
      BATCH_TABLE,
    );
    const result = await engine.transaction((tx) => tx.stageBatch(3, [row(2), row(3, { sourceKey: 'X3' })]));
    expect(result.refused.map((r) => r.message)).toEqual(['ORA-12899: value too large for column "…"."…"."…" (actual: 4, maximum: 3)']);
    // 23ai names the refused text in quotes
    const quoted = createOracleEngineWith(
      refusing("ORA-01722: unable to convert string value containing 'x1' to a number"),
      constants,
      BATCH_TABLE,
    );
    const second = await quoted.transaction((tx) => tx.stageBatch(3, [row(3, { sourceKey: 'X3' })]));
    expect(second.refused.map((r) => r.message)).toEqual(["ORA-01722: unable to convert string value containing '…' to a number"]);
  });
});
