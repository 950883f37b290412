/**
 * Oracle staging against a RECORDING connection (test/oracle/recording-connection.ts): a row
 * the database refuses while staging comes back in the staging insert's batchErrors (thin mode:
 * an Error with `offset` and `message`, no errorNum) and is rejected alone, like a parse
 * reject; fatal and transient codes fail the batch. The refusals here are scripted: nothing
 * runs on an Oracle Database.
 */
import { describe, expect, it } from 'vitest';
import { createOracleEngineWith, OracleChunkError } from '../../src/engine/oracle/index.js';
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import type { StageInput } from '../../src/engine/types.js';
import { openOrderFile } from '../../src/input/order-file.js';
import { DEFAULT_RETRY } from '../../src/pipeline/retry.js';
import { stageFile } from '../../src/pipeline/stage.js';
import { HEADER, writeTestFile } from '../support/files.js';
import { memoryLogger } from '../support/memory-logger.js';
import { batchError, constants, RecordingDatabase } from './recording-connection.js';
import type { OraBinds } from '../../src/engine/oracle/oracledb-types.js';

const COUNTS = { rows: [{ UPDATED: '0', UNCHANGED: '0', UNCHANGED_ERROR: '0', REPEATED_IN_LOAD: '0' }] };

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

describe('Oracle staging (recording connection): rows refused by the database', () => {
  it('maps each batch error offset to its line; the other rows are counted and inserted in line order', async () => {
    const db = refusing('ORA-01438: value larger than specified precision allowed for this column');
    const engine = createOracleEngineWith(db, constants);
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
    const engine = createOracleEngineWith(db, constants);
    const result = await engine.transaction((tx) => tx.stageBatch(3, [row(2, { sourceKey: 'X2' })]));
    expect(result).toMatchObject({ inserted: 0, updated: 0, refused: [expect.objectContaining({ lineNo: 2 })] });
    expect(db.trace()).toEqual(['1:execute:SET TRANSACTION ISOLATION', '1:executeMany:INSERT INTO order_stage_batch', '1:commit']);
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
    const engine = createOracleEngineWith(db, constants);
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
    const engine = createOracleEngineWith(db, constants);
    const result = await engine.transaction((tx) => tx.stageBatch(3, [row(7), row(8)]));
    expect(result.inserted).toBe(1);
    expect(result.refused).toEqual([expect.objectContaining({ lineNo: 7, code: 'ORA-02290' })]);
  });

  it('through the pipeline: the refused line is logged and counted exactly as a parse reject', async () => {
    const db = refusing('ORA-01438: value larger than specified precision allowed for this column');
    const engine = createOracleEngineWith(db, constants);
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

describe('Oracle staging (recording connection): an update of a staged key refused by the database', () => {
  /**
   * Keys K2..K5 are staged already; the site's CHECK constraint refuses the update of the keys
   * named in `refuse` (a batch error of stage_batch_update.sql at that key's offset). The counts
   * answer what the batch then holds: each key counted as updated.
   */
  function refusingUpdates(refuse: ReadonlySet<string>) {
    let batch: string[] = [];
    const db = new RecordingDatabase({
      execute: (sql) => {
        if (sql !== oracleQuery('stage_batch_counts')) return { rows: [] };
        return { rows: [{ UPDATED: String(batch.length), UNCHANGED: '0', UNCHANGED_ERROR: '0', REPEATED_IN_LOAD: '0' }] };
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
        if (sql === oracleQuery('stage_batch_new')) return { rowsAffected: 0, batchErrors: [] };
        return { rowsAffected: keys.length, batchErrors: [] };
      },
    });
    return db;
  }

  it('is rejected for its line alone: the updates are rolled back to the savepoint, the key taken out, counted and updated again', async () => {
    const db = refusingUpdates(new Set(['K3']));
    const engine = createOracleEngineWith(db, constants);
    const result = await engine.transaction((tx) => tx.stageBatch(3, [row(2), row(3), row(4), row(5)]));
    expect(result.refused).toEqual([
      {
        lineNo: 3,
        sourceKey: 'K3',
        code: 'ORA-02290',
        message: 'ORA-02290: check constraint (LOADER.CK_SITE_AMOUNT) violated',
      },
    ]);
    // the counts taken again without K3: three updated, not four
    expect(result).toMatchObject({ inserted: 0, updated: 3 });
    expect(db.trace()).toEqual([
      '1:execute:SET TRANSACTION ISOLATION',
      '1:executeMany:INSERT INTO order_stage_batch',
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
    const engine = createOracleEngineWith(db, constants);
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
    const engine = createOracleEngineWith(db, constants);
    const error = await engine.transaction((tx) => tx.stageBatch(3, [row(2)])).catch((e: unknown) => e);
    expect(engine.classifyError(error)).toBe('transient');
    expect(db.trace()).not.toContain('1:commit');
  });

  it('through the pipeline: the refused update is logged as a PARSE error-log row with its raw line, the rest of the batch commits', async () => {
    const db = refusingUpdates(new Set(['B']));
    const engine = createOracleEngineWith(db, constants);
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
