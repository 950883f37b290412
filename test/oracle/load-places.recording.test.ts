/**
 * Where loads stand in load order on Oracle (migrations/016_load_places.sql) against a RECORDING
 * connection (recording-connection.ts): what HoldSetsTx.recordLoadPlaces sends (load_place_record.sql,
 * one MERGE iteration per load, in load id order, NUMBER binds) and how loadPlaces reads
 * (load_places.sql); the table model (place-model.ts) keeps a place once recorded and refuses one
 * outside the CHECK, as PostgreSQL's test/integration/load-places.test.ts checks there; and a load
 * resumed after a set was staged again, through the pipeline (loadOrder, then stageFile) with the
 * table model answering, does not yield to the set's new loads. On a server:
 * test/oracle-server/load-places.test.ts. Nothing here runs on an Oracle Database.
 */
import oracledb from 'oracledb';
import { describe, expect, it } from 'vitest';
import type { HoldSetsTx } from '../../src/engine/contract.js';
import { createOracleEngineWith } from '../../src/engine/oracle/index.js';
import type { OraBinds } from '../../src/engine/oracle/oracledb-types.js';
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import type { LoadPlace } from '../../src/engine/types.js';
import { openOrderFile } from '../../src/input/order-file.js';
import { loadOrder } from '../../src/pipeline/load-places.js';
import { DEFAULT_RETRY } from '../../src/pipeline/retry.js';
import type { retried } from '../../src/pipeline/run-record.js';
import { stageFile } from '../../src/pipeline/stage.js';
import type { StagingPlan } from '../../src/pipeline/staging-plan.js';
import { HEADER, writeTestFile } from '../support/files.js';
import { memoryLogger } from '../support/memory-logger.js';
import { modelled } from './model-engine.js';
import { constants, driverError, RecordingDatabase, type Call } from './recording-connection.js';
import { normalizeSql } from './statement-shapes.js';
import { TableModel } from './table-model.js';

const NUMBER = (oracledb as unknown as { DB_TYPE_NUMBER: unknown }).DB_TYPE_NUMBER;

type ExecuteCall = Extract<Call, { kind: 'execute' }>;

function methods(tx: HoldSetsTx): Required<Pick<HoldSetsTx, 'recordLoadPlaces' | 'loadPlaces'>> {
  if (tx.recordLoadPlaces === undefined || tx.loadPlaces === undefined) throw new Error('the Oracle engine records where loads stand');
  return { recordLoadPlaces: tx.recordLoadPlaces.bind(tx), loadPlaces: tx.loadPlaces.bind(tx) };
}

describe('Oracle engine (recording database): where loads stand in load order', () => {
  it('records the places in one array MERGE, in load id order, three NUMBER binds; nothing for none', async () => {
    const db = new RecordingDatabase({ executeMany: (_sql, binds: OraBinds[]) => ({ rowsAffected: binds.length }) });
    const engine = createOracleEngineWith(db, constants);
    await engine.transaction((tx) =>
      methods(tx).recordLoadPlaces([
        { loadId: 9, began: 1, place: 3 },
        { loadId: 7, began: 1, place: 1 },
        { loadId: 3, began: 1, place: 3 },
      ]),
    );
    await engine.transaction((tx) => methods(tx).recordLoadPlaces([]));
    const calls = db.executeManyCalls();
    expect(calls.map((c) => c.sql)).toEqual([oracleQuery('load_place_record')]);
    expect(calls[0]?.binds).toEqual([
      { load_id: 3, began_at: 1, place: 3 },
      { load_id: 7, began_at: 1, place: 1 },
      { load_id: 9, began_at: 1, place: 3 },
    ]);
    const defs = (calls[0]?.options as { bindDefs?: Record<string, { type: unknown }> }).bindDefs ?? {};
    expect(Object.fromEntries(Object.entries(defs).map(([k, d]) => [k, d.type === NUMBER]))).toEqual({
      load_id: true,
      began_at: true,
      place: true,
    });
    // inserts only a load without a place (a place once recorded is kept), no batch errors asked
    expect(normalizeSql(oracleQuery('load_place_record'))).toMatch(/ on \(p\.load_id = src\.load_id\) when not matched then insert /);
    expect(normalizeSql(oracleQuery('load_place_record'))).not.toMatch(/when matched/);
    expect((calls[0]?.options as { batchErrors?: boolean }).batchErrors).toBeUndefined();
  });

  it('sends the MERGE again when another session inserted a load meanwhile (ORA-00001), at most once per row; other errors at once', async () => {
    const failing = (codes: string[]) => {
      const db = new RecordingDatabase({
        executeMany: (_sql, binds: OraBinds[]) => {
          const code = codes.shift();
          if (code !== undefined) throw driverError(code, 'refused');
          return { rowsAffected: binds.length };
        },
      });
      const run = createOracleEngineWith(db, constants).transaction((tx) =>
        methods(tx).recordLoadPlaces([
          { loadId: 7, began: 1, place: 1 },
          { loadId: 8, began: 1, place: 2 },
        ]),
      );
      return { db, run };
    };
    const raced = failing(['ORA-00001']);
    await raced.run;
    expect(raced.db.executeManyCalls().map((c) => c.binds)).toEqual([
      [
        { load_id: 7, began_at: 1, place: 1 },
        { load_id: 8, began_at: 1, place: 2 },
      ],
      [
        { load_id: 7, began_at: 1, place: 1 },
        { load_id: 8, began_at: 1, place: 2 },
      ],
    ]);
    const endless = failing(['ORA-00001', 'ORA-00001', 'ORA-00001', 'ORA-00001']);
    await expect(endless.run).rejects.toThrow(/ORA-00001/);
    expect(endless.db.executeManyCalls()).toHaveLength(3);
    const refused = failing(['ORA-02290']);
    await expect(refused.run).rejects.toThrow(/ORA-02290/);
    expect(refused.db.executeManyCalls()).toHaveLength(1);
  });

  it('reads the places from a load on, its load bound, each column a number', async () => {
    const db = new RecordingDatabase({
      execute: (sql) =>
        sql === oracleQuery('load_places')
          ? {
              rows: [
                { LOAD_ID: '3', BEGAN_AT: '3', PLACE: '0' },
                { LOAD_ID: '7', BEGAN_AT: '1', PLACE: '1' },
              ],
            }
          : { rows: [] },
    });
    const places = await createOracleEngineWith(db, constants).transaction((tx) => methods(tx).loadPlaces(2));
    expect(places).toEqual([
      { loadId: 3, began: 3, place: 0 },
      { loadId: 7, began: 1, place: 1 },
    ]);
    const read = db.calls.find((c): c is ExecuteCall => c.kind === 'execute' && c.sql === oracleQuery('load_places'));
    expect(read?.binds).toEqual({ from_load: { val: 2, type: NUMBER } });
  });
});

describe('load_place on Oracle (the table model answering)', () => {
  it('a place once recorded is kept; the places from a load on, in load id order; the CHECK refuses the call', async () => {
    const { model, engine } = modelled();
    const record = (list: LoadPlace[]) => engine.transaction((tx) => methods(tx).recordLoadPlaces(list));
    const places = (from: number) => engine.transaction((tx) => methods(tx).loadPlaces(from));
    // a part's load 3 at itself, then the set of load 1 staged again: 7, 8, 9, and its load 3 at m2's place
    await record([{ loadId: 3, began: 3, place: 0 }]);
    await record([
      { loadId: 9, began: 1, place: 3 },
      { loadId: 7, began: 1, place: 1 },
      { loadId: 8, began: 1, place: 2 },
      { loadId: 3, began: 1, place: 3 },
    ]);
    await record([]);
    const all = [
      { loadId: 3, began: 3, place: 0 },
      { loadId: 7, began: 1, place: 1 },
      { loadId: 8, began: 1, place: 2 },
      { loadId: 9, began: 1, place: 3 },
    ];
    expect(await places(1)).toEqual(all);
    expect((await places(8)).map((p) => p.loadId)).toEqual([8, 9]);
    expect(await places(10)).toEqual([]);
    // no load stands after a load with a greater id, nor at a negative place: the call fails, its transaction rolled back
    await expect(
      record([
        { loadId: 2, began: 1, place: 1 },
        { loadId: 4, began: 5, place: 1 },
      ]),
    ).rejects.toThrow(/ORA-02290/);
    await expect(record([{ loadId: 5, began: 1, place: -1 }])).rejects.toThrow(/ORA-02290/);
    expect(await places(1)).toEqual(all);
    expect(model.places).toHaveLength(4);
  });
});

/** A run that begins no load of a set (a command after the set was staged again): the places its engine records only. */
function laterRun(engine: ReturnType<typeof modelled>['engine']) {
  const db: ReturnType<typeof retried> = (_what, work) => work();
  return { engine, db, restaging: [], places: [], restagedNames: new Map<string, number>() };
}

describe('a load resumed after a set was staged again, on Oracle through the pipeline (the table model answering)', () => {
  it("does not yield to the set's new loads, which stand before it; still yields to a load begun after it", async () => {
    const model = new TableModel();
    const { engine } = modelled(model);
    // load 1 began the set (m0.csv, m1.csv); load 2 (b.csv) began after it and was killed after its
    // first batch; a later run staged the set again as loads 5 and 6, at (1, 1) and (1, 2)
    // (what that run's recordLoadPlaces left in load_place, set here so that only the read is under test)
    model.places.push({ load_id: 5, began_at: 1, place: 1 }, { load_id: 6, began_at: 1, place: 2 });
    model.addStage({ source_key: 'K1', amount: 9, load_id: 6 }); // m1.csv staged again
    model.addStage({ source_key: 'Z1', amount: 9, load_id: 7 }); // z.csv, begun after load 2
    const resume: StagingPlan = { action: 'resume', loadId: 2, from: { line: 2, byte: null }, counts: null };
    const yieldTo = await loadOrder(laterRun(engine), '/in/b.csv', resume, resume, 2);
    expect(yieldTo).toEqual({ began: 2, except: expect.arrayContaining([2, 5, 6]) as unknown });
    expect(yieldTo?.except).not.toContain(7);

    const rest = ['K1,42,2024-04-01,1.00,JPY', 'Z1,42,2024-04-01,1.00,JPY'];
    const file = await openOrderFile(writeTestFile(`${HEADER}\n${rest.join('\n')}\n`), { encoding: 'utf-8', delimiter: ',' });
    const log = memoryLogger('info');
    const result = await stageFile(engine, 8, file, {
      loadId: 2,
      batchSize: 10,
      retry: DEFAULT_RETRY,
      logger: log.logger,
      yieldToLaterLoads: yieldTo,
    });
    expect(result.counts).toMatchObject({ read: 2, updated: 1, duplicates: 1 });
    expect(model.stageRow('K1')).toMatchObject({ amount: 1, load_id: 2 });
    expect(model.stageRow('Z1')).toMatchObject({ amount: 9, load_id: 7 });
  });
});
