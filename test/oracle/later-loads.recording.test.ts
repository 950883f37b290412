/**
 * The later-load guard on Oracle against a RECORDING connection (recording-connection.ts): what
 * laterLoadKeys sends (later_load_keys.sql, one array execution of a PL/SQL block with two OUT
 * binds per key) and how it reads the answers, and where the staging batch records its unchanged
 * lines (stage_batch_unchanged.sql: after the savepoint, before the updates, only when the counts
 * found one); and a resumed load staged through the pipeline (stageFile) with the table model
 * answering. What the statements do to the tables is checked against the table model
 * (later-load-checks.ts), and on a server by test/oracle-server/later-load-keys.test.ts. Nothing
 * here runs on an Oracle Database.
 */
import oracledb from 'oracledb';
import { describe, expect, it } from 'vitest';
import { createOracleEngineWith } from '../../src/engine/oracle/index.js';
import type { OraBinds } from '../../src/engine/oracle/oracledb-types.js';
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import { openOrderFile } from '../../src/input/order-file.js';
import { DEFAULT_RETRY } from '../../src/pipeline/retry.js';
import { stageFile } from '../../src/pipeline/stage.js';
import { HEADER, writeTestFile } from '../support/files.js';
import { memoryLogger } from '../support/memory-logger.js';
import { line, modelled } from './model-engine.js';
import { constants, RecordingDatabase } from './recording-connection.js';
import { normalizeSql, splitTop } from './statement-shapes.js';
import { TableModel } from './table-model.js';

const NUMBER = (oracledb as unknown as { DB_TYPE_NUMBER: unknown }).DB_TYPE_NUMBER;
const VARCHAR = (oracledb as unknown as { DB_TYPE_VARCHAR: unknown }).DB_TYPE_VARCHAR;
const OUT = (oracledb as unknown as { BIND_OUT: unknown }).BIND_OUT;

/** A database whose guard answers each key's later loads from `loads` (none: NULL, NULL). */
function answering(loads: Record<string, { stage?: number; unchanged?: number }>) {
  return new RecordingDatabase({
    executeMany: (sql, binds: OraBinds[]) => {
      if (sql !== oracleQuery('later_load_keys')) return { rowsAffected: binds.length };
      return {
        outBinds: binds.map((b) => {
          const found = loads[String(b.source_key)] ?? {};
          return { stage_load: found.stage ?? null, unchanged_load: found.unchanged ?? null };
        }),
      };
    },
  });
}

const later = (db: RecordingDatabase, loadId: number, keys: string[], except?: number[]) =>
  createOracleEngineWith(db, constants).transaction(async (tx) => {
    if (tx.laterLoadKeys === undefined) throw new Error('the Oracle engine tells later loads apart');
    return tx.laterLoadKeys(loadId, keys, except);
  });

describe('Oracle laterLoadKeys (recording connection)', () => {
  it('asks every key in one array execution of later_load_keys.sql, its load bound per key, two OUT NUMBER binds', async () => {
    const db = answering({ B1: { stage: 7 }, C1: { unchanged: 8 }, D1: { stage: 9, unchanged: 7 } });
    expect(await later(db, 5, ['A1', 'B1', 'C1', 'D1', 'B1'])).toEqual(['B1', 'C1', 'D1']);
    const calls = db.executeManyCalls();
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call?.sql).toBe(oracleQuery('later_load_keys'));
    // each key once (the batch's keys are distinct; a repeat would only be asked twice)
    expect(call?.binds).toEqual(['A1', 'B1', 'C1', 'D1'].map((k) => ({ source_key: k, load_id: 5 })));
    expect(call?.options).toEqual({
      autoCommit: false,
      bindDefs: {
        source_key: { type: VARCHAR, maxSize: 400 },
        load_id: { type: NUMBER },
        stage_load: { dir: OUT, type: NUMBER },
        unchanged_load: { dir: OUT, type: NUMBER },
      },
    });
    // in the caller's transaction: committed with it, nothing else sent
    expect(db.trace()).toEqual(['1:executeMany:BEGIN SELECT (SELECT', '1:commit']);
  });

  it('leaves out the loads excepted, each way a later load has the key', async () => {
    const db = answering({ B1: { stage: 7 }, C1: { unchanged: 8 }, D1: { stage: 9, unchanged: 7 } });
    expect(await later(db, 5, ['A1', 'B1', 'C1', 'D1'], [7])).toEqual(['C1', 'D1']);
    expect(await later(db, 5, ['A1', 'B1', 'C1', 'D1'], [7, 9])).toEqual(['C1']);
    expect(await later(db, 5, ['A1', 'B1', 'C1', 'D1'], [8, 9])).toEqual(['B1', 'D1']);
    expect(await later(db, 5, ['A1', 'B1', 'C1', 'D1'], [7, 8, 9])).toEqual([]);
    // no load id is bound for them: the except list reaches no statement, whatever its length
    for (const call of db.executeManyCalls()) expect(Object.keys(call.options.bindDefs)).not.toContain('except');
  });

  it('sends nothing for no key, and does not ask a key longer than order_stage holds (it has no row)', async () => {
    const db = answering({});
    expect(await later(db, 5, [])).toEqual([]);
    expect(await later(db, 5, ['K'.repeat(101)])).toEqual([]);
    expect(db.executeManyCalls()).toEqual([]);
    expect(await later(db, 5, ['K'.repeat(101), '鍵'.repeat(100)])).toEqual([]);
    expect(db.executeManyCalls().map((c) => c.binds.map((b) => b.source_key))).toEqual([['鍵'.repeat(100)]]);
  });

  it('fails when the driver returns OUT binds for another number of keys', async () => {
    const db = new RecordingDatabase({ executeMany: () => ({ outBinds: [{ stage_load: null, unchanged_load: null }] }) });
    await expect(later(db, 5, ['A1', 'B1'])).rejects.toThrow('later load keys: 1 out binds for the 2 keys bound');
  });
});

describe('Oracle staging records its unchanged lines (recording connection)', () => {
  const stage = (unchanged: string) => {
    const db = new RecordingDatabase({
      execute: (sql) =>
        sql === oracleQuery('stage_batch_counts')
          ? { rows: [{ UPDATED: '0', UNCHANGED: unchanged, UNCHANGED_ERROR: '0', REPEATED_IN_LOAD: '0' }] }
          : { rows: [] },
    });
    const line = { sourceKey: 'K1', customerId: '1', orderDate: '2026-01-01', amount: '10', currency: 'JPY', lineNo: 2 };
    return { db, staged: createOracleEngineWith(db, constants, { stageDirect: false }).transaction((tx) => tx.stageBatch(9, [line])) };
  };
  const sent = (db: RecordingDatabase) =>
    db.calls.flatMap((c) => {
      if (c.kind !== 'execute' && c.kind !== 'executeMany') return [];
      return [
        Object.entries({ stage_batch_counts: 0, stage_batch_savepoint: 0, stage_batch_unchanged: 0, stage_batch_update: 0 }).find(
          ([name]) => c.sql === oracleQuery(name),
        )?.[0] ?? '-',
      ];
    });

  it('after the savepoint and before the updates, this load bound, when the counts found an unchanged line', async () => {
    const { db, staged } = stage('1');
    expect((await staged).unchanged).toBe(1);
    expect(sent(db).filter((s) => s !== '-')).toEqual([
      'stage_batch_counts',
      'stage_batch_savepoint',
      'stage_batch_unchanged',
      'stage_batch_update',
    ]);
    const call = db.calls.find((c) => c.kind === 'execute' && c.sql === oracleQuery('stage_batch_unchanged'));
    expect(call?.kind === 'execute' ? [call.binds, call.options] : undefined).toEqual([
      { load_id: { val: 9, type: NUMBER } },
      { autoCommit: false },
    ]);
  });

  it('not sent when the counts found none', async () => {
    const { db, staged } = stage('0');
    await staged;
    expect(sent(db)).not.toContain('stage_batch_unchanged');
    expect(sent(db)).toContain('stage_batch_update');
  });
});

describe('the unchanged record and the counts', () => {
  it('take the same lines: stage_batch_unchanged.sql tests identity as stage_batch_counts.sql does, and leaves out the same load', () => {
    const counts = normalizeSql(oracleQuery('stage_batch_counts'));
    const identical = /case when s\.stage_id is not null and (.*?) then 1 else 0 end as is_identical/.exec(counts)?.[1];
    const repeated = /, case when ([^,]*) then 1 else 0 end as is_repeated/.exec(counts)?.[1];
    const unchanged = normalizeSql(oracleQuery('stage_batch_unchanged'));
    const where = / join order_stage s on s\.source_key = i\.source_key where (.*)\) src on /.exec(unchanged)?.[1];
    expect(identical).toBeDefined();
    expect(repeated).toBe('s.load_id = :load_id');
    // written twice (two statements), tested once here: a line counted unchanged is a line recorded
    expect(splitTop(where ?? '', ' and ')).toEqual([...splitTop(identical ?? '', ' and '), 'decode(s.load_id, :load_id, 0, 1) = 1']);
  });
});

describe('a resumed load on Oracle, through the pipeline (the table model answering)', () => {
  it('leaves out its line of a key a later load repeated as it was (the DONE row kept its load): counted a duplicate, said in the log', async () => {
    const model = new TableModel();
    model.addStage({ source_key: 'K1', amount: 5, process_status: 'DONE', load_id: 1 }); // z.csv
    model.addStage({ source_key: 'B1', amount: 1, load_id: 2 }); // b.csv's first batch, before the kill
    const { engine } = modelled(model);
    // a.csv (load 3, begun after b.csv's): its K1 line as it is leaves the row with load 1 and records load 3
    await engine.transaction((tx) => tx.stageBatch(3, [line('K1', 2, { amount: '5.00' })]));
    expect(model.unchanged).toEqual([{ source_key: 'K1', load_id: 3 }]);

    // b.csv resumed after its first batch: load 2, its lines K1 (another amount) and B2
    const rest = ['K1,42,2024-04-01,1.00,JPY', 'B2,42,2024-04-01,1.00,JPY'];
    const file = await openOrderFile(writeTestFile(`${HEADER}\n${rest.join('\n')}\n`), { encoding: 'utf-8', delimiter: ',' });
    const log = memoryLogger('info');
    const result = await stageFile(engine, 4, file, {
      loadId: 2,
      batchSize: 10,
      retry: DEFAULT_RETRY,
      logger: log.logger,
      yieldToLaterLoads: { began: 2, except: [] },
    });
    expect(result.counts).toMatchObject({ read: 2, inserted: 1, updated: 0, duplicates: 1 });
    expect(model.stageRow('K1')).toMatchObject({ amount: 5, process_status: 'DONE', load_id: 1 });
    expect(model.stageRow('B2')).toMatchObject({ amount: 1, process_status: 'READY', load_id: 2 });
    expect(log.records.map((r) => r.msg)).toContain('1 line(s) of resumed load 2 not staged: a load begun after it staged their keys');
  });
});
