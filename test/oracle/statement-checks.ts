/**
 * The checks of issue 25 §4, shared by statements.recording.test.ts (which runs them on the SQL
 * of sql/oracle) and mutants.recording.test.ts (which runs them on mutated copies of it and
 * expects them to fail):
 *  - literal checks: each statement that decides which rows are staged, claimed, merged and
 *    finalized has the predicates and SET columns written in statement-shapes.ts;
 *  - model checks: the engine against the recording connection answered by the table model
 *    (table-model.ts): the counts, the rows claimed and the rows' final states are computed from
 *    the model's tables by what the statements say, and compared with what they must be.
 * Each check throws (a vitest expect) when it fails.
 */
import { expect } from 'vitest';
import { createOracleEngineWith } from '../../src/engine/oracle/index.js';
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import type { ClaimQuery, StageInput } from '../../src/engine/types.js';
import { constants, RecordingDatabase } from './recording-connection.js';
import { SHAPES, shapeProblems } from './statement-shapes.js';
import { TableModel } from './table-model.js';

export interface Check {
  name: string;
  run(): Promise<void>;
}

export const literalChecks: Check[] = Object.keys(SHAPES).map((name) => ({
  name: `queries/${name}.sql has the predicates and SET columns it must have`,
  async run() {
    expect(shapeProblems(name, oracleQuery(name))).toEqual([]);
  },
}));

function modelled(model = new TableModel()) {
  const db = new RecordingDatabase(model.script());
  const engine = createOracleEngineWith(db, constants);
  return { model, db, engine };
}

const HOUR = 3_600_000;

function line(sourceKey: string, lineNo: number, over: Partial<StageInput> = {}): StageInput {
  return { sourceKey, customerId: '42', orderDate: '2024-04-01', amount: '1200.00', currency: 'JPY', lineNo, ...over };
}

function answered(model: TableModel, statement: string): number[] {
  return model.answers.filter((a) => a.statement === statement).map((a) => a.rowsAffected);
}

export const modelChecks: Check[] = [
  {
    name: 'staging: new keys inserted in line order, a known key updated, not inserted again; counts from the model',
    async run() {
      const { model, engine } = modelled();
      const first = await engine.transaction((tx) => tx.stageBatch(1, [line('A', 2), line('B', 3)]));
      expect(first).toEqual({ inserted: 2, updated: 0, unchanged: 0, unchangedError: 0, repeatedInLoad: 0, refused: [] });
      expect(model.stage.map((r) => [r.stage_id, r.source_key, r.process_status, r.load_id])).toEqual([
        [1, 'A', 'READY', 1],
        [2, 'B', 'READY', 1],
      ]);
      const second = await engine.transaction((tx) => tx.stageBatch(2, [line('A', 2, { amount: '99.50' }), line('B', 3), line('C', 4)]));
      expect(second).toEqual({ inserted: 1, updated: 1, unchanged: 1, unchangedError: 0, repeatedInLoad: 0, refused: [] });
      expect(answered(model, 'stage batch new')).toEqual([2, 1]);
      expect(model.stage.map((r) => [r.stage_id, r.source_key, r.amount, r.load_id])).toEqual([
        [1, 'A', 99.5, 2],
        [2, 'B', 1200, 2], // unchanged and not DONE: moved to this load (stage_batch_update.sql)
        [3, 'C', 1200, 2],
      ]);
    },
  },
  {
    name: 'claim: READY rows, and RETRY_WAIT rows whose time has come, of the loads asked for, after the position, in stage_id order',
    async run() {
      const model = new TableModel();
      model.addStage({ stage_id: 1, source_key: 'ready' });
      model.addStage({ stage_id: 2, source_key: 'due', process_status: 'RETRY_WAIT', next_attempt_at: model.now - HOUR });
      model.addStage({ stage_id: 3, source_key: 'not-due', process_status: 'RETRY_WAIT', next_attempt_at: model.now + HOUR });
      model.addStage({ stage_id: 4, source_key: 'done', process_status: 'DONE' });
      model.addStage({ stage_id: 5, source_key: 'error', process_status: 'ERROR', next_attempt_at: model.now - HOUR });
      model.addStage({ stage_id: 6, source_key: 'held', process_status: 'HELD' });
      model.addStage({ stage_id: 7, source_key: 'other-load', load_id: 2 });
      model.addStage({ stage_id: 8, source_key: 'ready-2' });
      const { engine } = modelled(model);
      const claim = (q: ClaimQuery) => engine.transaction(async (tx) => (await tx.claimChunk(q)).map((r) => r.stageId));
      expect(await claim({ afterStageId: 0, limit: 10, loadIds: [1] })).toEqual([1, 2, 8]);
      expect(await claim({ afterStageId: 0, limit: 10 })).toEqual([1, 2, 7, 8]);
      expect(await claim({ afterStageId: 1, limit: 10, loadIds: [1] })).toEqual([2, 8]);
      expect(await claim({ afterStageId: 0, limit: 2 })).toEqual([1, 2]);
    },
  },
  {
    name: 'finalize: the merged rows DONE by their ids, each failed row to its own status and error, no other row touched',
    async run() {
      const model = new TableModel();
      for (const id of [1, 2, 3, 4, 5]) model.addStage({ stage_id: id, source_key: `K${id}` });
      const { engine } = modelled(model);
      const next = new Date(model.now + HOUR);
      await engine.transaction(async (tx) => {
        const rows = await tx.claimChunk({ afterStageId: 0, limit: 4 });
        expect(rows.map((r) => r.stageId)).toEqual([1, 2, 3, 4]);
        const failure = (stageId: number, status: 'ERROR' | 'RETRY_WAIT', code: string) => ({
          stageId,
          sourceKey: `K${stageId}`,
          status,
          attemptNo: 1,
          transientFailures: status === 'RETRY_WAIT' ? 1 : 0,
          loadId: 1,
          lineNo: 2,
          error: { phase: 'MERGE' as const, code, message: `${code}: refused` },
          ...(status === 'RETRY_WAIT' ? { nextAttemptAt: next } : {}),
        });
        await tx.finalizeChunk({
          batchId: 'b1',
          done: [1, 3],
          failed: [failure(2, 'ERROR', 'ORA-01438'), failure(4, 'RETRY_WAIT', 'ORA-00060')],
        });
      });
      expect(model.stage.map((r) => [r.stage_id, r.process_status, r.attempt_count, r.batch_id, r.error_code, r.next_attempt_at])).toEqual([
        [1, 'DONE', 1, 'b1', null, null],
        [2, 'ERROR', 1, 'b1', 'ORA-01438', null],
        [3, 'DONE', 1, 'b1', null, null],
        [4, 'RETRY_WAIT', 1, 'b1', 'ORA-00060', next.getTime()],
        [5, 'READY', 0, null, null, null],
      ]);
      expect(answered(model, 'update order_stage')).toEqual([2, 2]);
      expect(model.errorLog.map((r) => r.stage_id)).toEqual([2, 4]);
    },
  },
  {
    name: 'merge: a new key inserted, an identical row left as it is (updated_at kept), a row with any value changed updated',
    async run() {
      const model = new TableModel();
      const then = model.now - HOUR;
      model.addStage({ stage_id: 1, source_key: 'new' });
      model.addStage({ stage_id: 2, source_key: 'same' });
      model.addStage({ stage_id: 3, source_key: 'amount', amount: 99.5 });
      model.addStage({ stage_id: 4, source_key: 'currency', currency: 'EUR' });
      for (const key of ['same', 'amount', 'currency'])
        model.orders.push({
          source_key: key,
          customer_id: '42',
          order_date: '2024-04-01',
          amount: 1200,
          currency: 'JPY',
          updated_at: then,
        });
      const { engine } = modelled(model);
      const failures = await engine.transaction(async (tx) =>
        tx.mergeOrders(await tx.claimChunk({ afterStageId: 0, limit: 10 }), { isolationBlock: 10 }),
      );
      expect(failures).toEqual([]);
      expect(answered(model, 'merge orders')).toEqual([3]);
      const order = (key: string) => model.order(key);
      expect(order('new')).toMatchObject({ customer_id: '42', amount: 1200, currency: 'JPY' });
      expect(order('same')?.updated_at).toBe(then);
      expect(order('amount')).toMatchObject({ amount: 99.5 });
      expect(order('amount')?.updated_at).toBeGreaterThan(then);
      expect(order('currency')).toMatchObject({ currency: 'EUR' });
      // merged again: nothing differs, nothing is updated
      const before = structuredClone(model.orders);
      await engine.transaction(async (tx) => tx.mergeOrders(await tx.claimChunk({ afterStageId: 0, limit: 10 }), { isolationBlock: 10 }));
      expect(answered(model, 'merge orders')).toEqual([3, 0]);
      expect(model.orders).toEqual(before);
    },
  },
  {
    name: 'hold and release: only the claimable rows of the key and load HELD; released to READY, or RETRY_WAIT when waiting',
    async run() {
      const model = new TableModel();
      model.addStage({ stage_id: 1, source_key: 'A', load_id: 5 });
      model.addStage({ stage_id: 2, source_key: 'B', load_id: 5, process_status: 'RETRY_WAIT', next_attempt_at: model.now + HOUR });
      model.addStage({ stage_id: 3, source_key: 'C', load_id: 4 });
      model.addStage({ stage_id: 4, source_key: 'D', load_id: 5, process_status: 'DONE' });
      model.addStage({ stage_id: 5, source_key: 'E', load_id: 5 });
      const { engine } = modelled(model);
      const status = () => model.stage.map((r) => r.process_status);
      await engine.transaction((tx) => tx.holdRows(5, ['A', 'B', 'C', 'D']));
      expect(status()).toEqual(['HELD', 'HELD', 'READY', 'DONE', 'READY']);
      expect(await engine.transaction((tx) => tx.releaseHeld([4]))).toBe(0);
      expect(await engine.transaction((tx) => tx.releaseHeld([5]))).toBe(2);
      expect(status()).toEqual(['READY', 'RETRY_WAIT', 'READY', 'DONE', 'READY']);
    },
  },
  {
    name: 'the whole way: staged, claimed, merged, finalized; the same file again changes nothing and leaves nothing to claim',
    async run() {
      const { model, engine } = modelled();
      const file = [line('A', 2), line('B', 3, { amount: '5.25' })];
      await engine.transaction((tx) => tx.stageBatch(1, file));
      await engine.transaction(async (tx) => {
        const rows = await tx.claimChunk({ afterStageId: 0, limit: 10 });
        const failures = await tx.mergeOrders(rows, { isolationBlock: 10 });
        expect(failures).toEqual([]);
        await tx.finalizeChunk({ batchId: 'b1', done: rows.map((r) => r.stageId), failed: [] });
      });
      expect(model.stage.map((r) => [r.source_key, r.process_status, r.attempt_count])).toEqual([
        ['A', 'DONE', 1],
        ['B', 'DONE', 1],
      ]);
      const stage = structuredClone(model.stage);
      const orders = structuredClone(model.orders);
      const again = await engine.transaction((tx) => tx.stageBatch(2, file));
      expect(again).toEqual({ inserted: 0, updated: 0, unchanged: 2, unchangedError: 0, repeatedInLoad: 0, refused: [] });
      expect(await engine.transaction((tx) => tx.claimChunk({ afterStageId: 0, limit: 10 }))).toEqual([]);
      expect(model.stage).toEqual(stage);
      expect(model.orders).toEqual(orders);
    },
  },
];
