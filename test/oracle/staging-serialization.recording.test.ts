/**
 * A staging batch beside processing: processing commits chunks of READY rows (DONE) while a later
 * load stages new values for the same keys (a reload, a correction file, a second load of an
 * earlier load's keys). Against the RECORDING connection with the table model, which raises
 * ORA-08177 where Oracle does: a SERIALIZABLE transaction writing a row another session committed
 * after the transaction began (table-model.ts, otherSessionCommits).
 *
 * The retry budget's margin, measured here: with a processing commit landing on one of the batch's
 * keys inside each attempt's transaction (processing takes those keys' rows at its chunk rate, a
 * batch takes longer than a chunk), a SERIALIZABLE batch failed every attempt with ORA-08177 and
 * the sixth (DEFAULT_RETRY.attempts) stopped the run: margin 0 of 6, and no budget is wide enough,
 * since each retry meets the next chunk. Staging is READ COMMITTED now, the rows it counts and
 * updates locked first (stage_batch_lock.sql): the same scenario commits on its first attempt.
 */
import { describe, expect, it } from 'vitest';
import { createOracleEngineWith } from '../../src/engine/oracle/index.js';
import { openOrderFile } from '../../src/input/order-file.js';
import { DEFAULT_RETRY } from '../../src/pipeline/retry.js';
import { stageFile } from '../../src/pipeline/stage.js';
import { HEADER, writeTestFile } from '../support/files.js';
import { memoryLogger } from '../support/memory-logger.js';
import { constants, RecordingDatabase } from './recording-connection.js';
import { TableModel } from './table-model.js';

const KEYS = Array.from({ length: 20 }, (_, i) => `K${i + 1}`);

describe('staging beside processing: ORA-08177 and the retry budget', () => {
  it('a batch whose keys processing commits during its transaction stages on its first attempt, the counts exact', async () => {
    const model = new TableModel();
    for (const key of KEYS) model.addStage({ source_key: key, load_id: 1, amount: 10 });
    const db = new RecordingDatabase(model.script());
    const engine = createOracleEngineWith(db, constants);
    // processing's chunk commits one READY row of the batch's keys inside every attempt's
    // transaction, after its first statement (the direct insert) and before its rows are counted
    let attempt = 0;
    model.beforeStatement = (text) => {
      if (!text.startsWith('insert into order_stage_batch ')) return;
      const key = KEYS[attempt++ % KEYS.length] ?? 'K1';
      model.otherSessionCommits([key], (row) => {
        row.process_status = 'DONE';
        row.attempt_count += 1;
      });
    };
    const lines = KEYS.map((key, i) => `${key},${i + 1},2026-01-01,20,JPY`);
    const file = await openOrderFile(writeTestFile(`${HEADER}\n${lines.join('\n')}\n`), { encoding: 'utf-8', delimiter: ',' });
    const logs = memoryLogger();
    const result = await stageFile(engine, 2, file, {
      loadId: 2,
      batchSize: KEYS.length,
      retry: { ...DEFAULT_RETRY, baseDelayMs: 1, maxDelayMs: 1 },
      logger: logs.logger,
    });
    // margin: the whole budget (DEFAULT_RETRY.attempts) left; no ORA-08177, no retry
    expect(attempt).toBe(1);
    expect(db.trace().filter((t) => t.endsWith(':rollback'))).toEqual([]);
    expect(logs.records.filter((r) => /ORA-08177/.test(JSON.stringify(r)))).toEqual([]);
    expect(result.counts).toMatchObject({ inserted: 0, updated: KEYS.length, unchanged: 0 });
    // the row processing made DONE meanwhile has the new values, READY to be merged again
    expect(model.stageRow('K1')).toMatchObject({ amount: 20, load_id: 2, process_status: 'READY', attempt_count: 1 });
    expect(model.stage.every((r) => r.amount === 20 && r.process_status === 'READY')).toBe(true);
  });

  it('the lock comes before the counts, after the batch table is filled, and bounds its wait as the transaction asks', async () => {
    const model = new TableModel();
    model.addStage({ source_key: 'K1', load_id: 1 });
    const db = new RecordingDatabase(model.script());
    const engine = createOracleEngineWith(db, constants, { stageDirect: false });
    const input = { sourceKey: 'K1', customerId: '1', orderDate: '2026-01-01', amount: '20', currency: 'JPY', lineNo: 2 };
    await engine.transaction((tx) => tx.stageBatch(2, [input]), { lockWaitMs: 1500 });
    await engine.transaction((tx) => tx.stageBatch(2, [{ ...input, amount: '30' }]));
    const locks = db.calls.flatMap((c) => (c.kind === 'execute' && /FOR UPDATE OF s\.stage_id/.test(c.sql) ? [c.sql] : []));
    expect(locks.map((sql) => /FOR UPDATE OF s\.stage_id( WAIT \d+)?;/.exec(sql)?.[1] ?? '')).toEqual([' WAIT 2', '']);
    expect(db.trace().slice(0, 4)).toEqual([
      '1:executeMany:INSERT INTO order_stage_batch',
      '1:execute:DECLARE CURSOR staged',
      '1:execute:SELECT COUNT(CASE WHEN',
      '1:execute:SAVEPOINT stage_batch_update',
    ]);
  });

  it('a key counted as new that another session commits before the new-key insert fails the batch as transient, not left out', async () => {
    const model = new TableModel();
    const db = new RecordingDatabase(model.script());
    const engine = createOracleEngineWith(db, constants, { stageDirect: false });
    model.beforeStatement = (text) => {
      // the new-key insert (INSERT ... SELECT): another session's K2 is committed just before it
      if (text.startsWith('insert into order_stage (') && !text.includes(' values (') && model.stageRow('K2') === undefined)
        model.addStage({ source_key: 'K2', load_id: 9 });
    };
    const input = (key: string, lineNo: number) => ({
      sourceKey: key,
      customerId: '1',
      orderDate: '2026-01-01',
      amount: '5',
      currency: 'JPY',
      lineNo,
    });
    const error = await engine.transaction((tx) => tx.stageBatch(2, [input('K1', 2), input('K2', 3)])).catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe('ORA-08177');
    expect((error as Error).message).toMatch(/another session staged keys of this batch meanwhile \(1 of its 2 new keys inserted\)/);
    expect(engine.classifyError(error)).toBe('transient');
    expect(db.trace().at(-1)).toBe('1:rollback');
  });

  it('--row-lock-wait bounds a staging batch’s wait for the rows it updates (stageFile passes it to the batch’s transaction)', async () => {
    const model = new TableModel();
    model.addStage({ source_key: 'K1', load_id: 1 });
    const db = new RecordingDatabase(model.script());
    const engine = createOracleEngineWith(db, constants);
    const file = await openOrderFile(writeTestFile(`${HEADER}\nK1,1,2026-01-01,30,JPY\n`), { encoding: 'utf-8', delimiter: ',' });
    await stageFile(engine, 2, file, { loadId: 2, batchSize: 10, retry: DEFAULT_RETRY, logger: memoryLogger().logger, lockWaitMs: 1_500 });
    const locks = db.calls.flatMap((c) => (c.kind === 'execute' && /FOR UPDATE OF s\.stage_id/.test(c.sql) ? [c.sql] : []));
    expect(locks).toHaveLength(1);
    expect(locks[0]).toMatch(/FOR UPDATE OF s\.stage_id WAIT 2;/);
  });
});
