/**
 * The checks of the Oracle statements that decide which rows move, shared by statements.recording.test.ts (which runs them on the SQL
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
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import type { ClaimQuery, StageInput } from '../../src/engine/types.js';
import { laterLoadChecks } from './later-load-checks.js';
import { line, modelled } from './model-engine.js';
import { SHAPES, shapeProblems } from './statement-shapes.js';
import { type StageRow, TableModel } from './table-model.js';

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

const HOUR = 3_600_000;

function answered(model: TableModel, statement: string): number[] {
  return model.answers.filter((a) => a.statement === statement).map((a) => a.rowsAffected);
}

export const modelChecks: Check[] = [
  {
    name: 'staging: new keys straight into order_stage in line order; known keys only, and a mixed batch, send only their known keys through the batch table; counts from the model',
    async run() {
      const { model, engine } = modelled();
      const counts = { inserted: 0, updated: 0, unchanged: 0, unchangedError: 0, repeatedInLoad: 0, refused: [] };
      const parseError = { code: 'PARSE_AMOUNT', message: 'amount: not a number' };
      // new keys only: one array insert, nothing through the batch table
      const first = await engine.transaction((tx) =>
        tx.stageBatch(1, [line('A', 2), line('B', 3), line('P', 4, { amount: null, parseError })]),
      );
      expect(first).toEqual({ ...counts, inserted: 3, by: 'direct', fellBack: 0 });
      expect(answered(model, 'stage batch direct')).toEqual([3]);
      expect(answered(model, 'stage batch insert')).toEqual([]);
      expect(model.stage.map((r) => [r.stage_id, r.source_key, r.process_status, r.error_code, r.load_id, r.line_no])).toEqual([
        [1, 'A', 'READY', null, 1, 2],
        [2, 'B', 'READY', null, 1, 3],
        [3, 'P', 'ERROR', 'PARSE_AMOUNT', 1, 4],
      ]);
      // known keys only: both refused by the unique index (ORA-00001), then updated / counted
      // unchanged through the batch table; no new key, so no new-key insert
      const second = await engine.transaction((tx) => tx.stageBatch(2, [line('A', 2, { amount: '99.50' }), line('B', 3)]));
      expect(second).toEqual({ ...counts, updated: 1, unchanged: 1, by: 'direct', fellBack: 2 });
      expect(model.answers.filter((a) => a.statement === 'stage batch direct').map((a) => a.batchErrors)).toEqual([[], [0, 1]]);
      expect(answered(model, 'stage batch direct')).toEqual([3, 0]);
      expect(answered(model, 'stage batch insert')).toEqual([2]);
      expect(answered(model, 'stage batch new')).toEqual([]);
      // every key of that batch was known: the next one goes through the batch table alone
      const third = await engine.transaction((tx) => tx.stageBatch(2, [line('C', 5), line('A', 6, { amount: '99.50' })]));
      expect(third).toEqual({ ...counts, inserted: 1, repeatedInLoad: 1, by: 'batch-table' });
      expect(answered(model, 'stage batch new')).toEqual([1]);
      // half of that batch's keys were known: the next one goes direct again
      const fourth = await engine.transaction((tx) => tx.stageBatch(3, [line('D', 2), line('C', 3), line('E', 4)]));
      expect(fourth).toEqual({ ...counts, inserted: 2, unchanged: 1, by: 'direct', fellBack: 1 });
      // stage_id in line order; the identity values the refused inserts took are gaps (4, 5, 8)
      expect(model.stage.map((r) => [r.stage_id, r.source_key, r.amount, r.load_id, r.line_no])).toEqual([
        [1, 'A', 99.5, 2, 6], // repeated in load 2 with the same values: only its line moves, to the later one
        [2, 'B', 1200, 2, 3], // unchanged and not DONE: moved to this load (stage_batch_update.sql)
        [3, 'P', null, 1, 4],
        [6, 'C', 1200, 3, 3],
        [7, 'D', 1200, 3, 2],
        [9, 'E', 1200, 3, 4],
      ]);
    },
  },
  {
    name: 'staging: the direct insert leaves the same order_stage and counts as the batch table alone, over new, known, repeated, parse-failed and refused lines',
    async run() {
      const refuseXxx = (r: StageRow) => (r.currency === 'XXX' ? 'ORA-02290: check constraint (LOADER.TEST_REFUSE_XXX) violated' : null);
      const batches: [number, StageInput[]][] = [
        [1, [line('A', 2), line('B', 3), line('X', 4, { currency: 'XXX' }), line('H', 5, { amount: '99999999999999999' })]],
        [
          1,
          [
            line('C', 6),
            line('A', 7, { amount: '5.00' }),
            line('P', 8, { amount: null, parseError: { code: 'PARSE_AMOUNT', message: 'x' } }),
          ],
        ],
        [2, [line('B', 2, { currency: 'XXX' }), line('P', 3), line('D', 4), line('A', 5, { amount: '5.00' }), line('Q', 6), line('R', 7)]],
        [2, [line('E', 8), line('F', 9), line('OLD', 10, { currency: 'XXX' })]],
        [3, [line('G', 2), line('D', 3, { amount: '7.00' }), line('C', 4), line('B', 5)]],
      ];
      const run = async (stageDirect: boolean) => {
        const model = new TableModel();
        // a DONE row the site's CHECK would refuse now (added NOVALIDATE after it was staged):
        // staged again with the same values it is unchanged, whichever way it goes
        model.addStage({ stage_id: 100, source_key: 'OLD', currency: 'XXX', customer_id: '42', amount: 1200, process_status: 'DONE' });
        model.siteChecks.push(refuseXxx);
        const { engine } = modelled(model, { stageDirect });
        const results = [];
        for (const [loadId, rows] of batches) {
          const { by: _by, fellBack: _fellBack, ...result } = await engine.transaction((tx) => tx.stageBatch(loadId, rows));
          results.push(result);
        }
        const stage = [...model.stage].sort((a, b) => a.stage_id - b.stage_id).map(({ stage_id: _id, updated_at: _at, ...row }) => row);
        return { results, stage, answers: model.answers.map((a) => a.statement) };
      };
      const direct = await run(true);
      const alone = await run(false);
      expect(direct.results).toEqual(alone.results);
      expect(direct.stage).toEqual(alone.stage);
      expect(alone.answers).not.toContain('stage batch direct');
      // each batch had at most half of its keys known: each went direct first
      expect(direct.answers.filter((a) => a === 'stage batch direct')).toHaveLength(batches.length);
      // what the rule says, beyond being equal
      expect(direct.results.map((r) => r.refused.map((x) => [x.lineNo, x.sourceKey, x.code]))).toEqual([
        [
          [4, 'X', 'ORA-02290'],
          [5, 'H', 'ORA-01438'],
        ],
        [],
        [[2, 'B', 'ORA-02290']],
        [],
        [],
      ]);
      expect(direct.results.map(({ refused: _refused, ...c }) => c)).toEqual([
        { inserted: 2, updated: 0, unchanged: 0, unchangedError: 0, repeatedInLoad: 0 },
        { inserted: 2, updated: 0, unchanged: 0, unchangedError: 0, repeatedInLoad: 1 },
        { inserted: 3, updated: 1, unchanged: 1, unchangedError: 0, repeatedInLoad: 0 },
        // OLD: refused by the CHECK in the direct insert, unchanged through the batch table
        { inserted: 2, updated: 0, unchanged: 1, unchangedError: 0, repeatedInLoad: 0 },
        { inserted: 1, updated: 1, unchanged: 2, unchangedError: 0, repeatedInLoad: 0 },
      ]);
      expect(direct.stage.map((r) => [r.source_key, r.process_status, r.load_id, r.line_no])).toEqual([
        ['OLD', 'DONE', 1, 2],
        ['A', 'READY', 2, 5],
        ['B', 'READY', 3, 5],
        ['C', 'READY', 3, 4],
        ['P', 'READY', 2, 3],
        ['D', 'READY', 3, 3],
        ['Q', 'READY', 2, 6],
        ['R', 'READY', 2, 7],
        ['E', 'READY', 2, 8],
        ['F', 'READY', 2, 9],
        ['G', 'READY', 3, 2],
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
    name: 'attributes: staged with the row and merged; an identical reload unchanged, a changed attribute alone updates stage and order',
    async run() {
      const { model, engine } = modelled();
      const process = () =>
        engine.transaction(async (tx) => {
          const rows = await tx.claimChunk({ afterStageId: 0, limit: 10 });
          expect(await tx.mergeOrders(rows, { isolationBlock: 10 })).toEqual([]);
          await tx.finalizeChunk({ batchId: 'b', done: rows.map((r) => r.stageId), failed: [] });
          return rows.length;
        });
      const file = [line('A', 2, { attributes: '{"Region":"EU"}' }), line('B', 3)];
      await engine.transaction((tx) => tx.stageBatch(1, file));
      expect(model.stage.map((r) => [r.source_key, r.attributes])).toEqual([
        ['A', '{"Region":"EU"}'],
        ['B', null],
      ]);
      expect(await process()).toBe(2);
      expect(model.orders.map((o) => [o.source_key, o.attributes])).toEqual([
        ['A', '{"Region":"EU"}'],
        ['B', null],
      ]);
      const again = await engine.transaction((tx) => tx.stageBatch(2, file));
      expect(again).toMatchObject({ inserted: 0, updated: 0, unchanged: 2 });
      const changed = await engine.transaction((tx) =>
        tx.stageBatch(3, [line('A', 2, { attributes: '{"Region":"US"}' }), line('B', 3, { attributes: '{"Note":"new"}' })]),
      );
      expect(changed).toMatchObject({ inserted: 0, updated: 2, unchanged: 0 });
      const before = model.order('A')?.updated_at ?? 0;
      expect(await process()).toBe(2);
      expect(model.orders.map((o) => [o.source_key, o.attributes])).toEqual([
        ['A', '{"Region":"US"}'],
        ['B', '{"Note":"new"}'],
      ]);
      expect(model.order('A')?.updated_at).toBeGreaterThan(before);
      expect(answered(model, 'merge orders')).toEqual([2, 2]);
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
    name: 'processing beside staging with the hold rule: a key on several lines is HELD in each batch that stages it, never claimed until released; a last line refused keeps it out of orders',
    async run() {
      const { model, engine } = modelled();
      // load processes while it stages on a server database (load-processing.ts), Oracle included
      expect(engine.capabilities.concurrentConnections).toBe(true);
      const processChunk = () =>
        engine.transaction(async (tx) => {
          const rows = await tx.claimChunk({ afterStageId: 0, limit: 10 });
          expect(await tx.mergeOrders(rows, { isolationBlock: 10 })).toEqual([]);
          await tx.finalizeChunk({ batchId: 'b', done: rows.map((r) => r.stageId), failed: [] });
          return rows.map((r) => r.sourceKey);
        });
      const held = ['DUP', 'TWICE'];
      // a batch's transaction as stage.ts runs it: stageBatch, then holdRows for its repeated keys
      const stage = (rows: StageInput[]) =>
        engine.transaction(async (tx) => {
          const result = await tx.stageBatch(5, rows);
          await tx.holdRows(
            5,
            rows.filter((r) => held.includes(r.sourceKey)).map((r) => r.sourceKey),
          );
          return result;
        });
      const first = await stage([line('DUP', 2, { amount: '100.00' }), line('TWICE', 3, { amount: '100.00' }), line('K1', 4)]);
      expect(first).toMatchObject({ by: 'direct', inserted: 3 });
      expect(model.stage.map((r) => [r.source_key, r.process_status])).toEqual([
        ['DUP', 'HELD'],
        ['TWICE', 'HELD'],
        ['K1', 'READY'],
      ]);
      expect(await processChunk()).toEqual(['K1']);
      // DUP's last line does not parse: staged ERROR through the batch table (its key is staged), not held
      const second = await stage([
        line('K2', 5),
        line('DUP', 6, {
          customerId: null,
          orderDate: null,
          amount: null,
          currency: null,
          parseError: { code: 'PARSE_AMOUNT', message: 'x' },
        }),
        line('TWICE', 7, { amount: '200.00' }),
      ]);
      expect(second).toMatchObject({ by: 'direct', inserted: 1, repeatedInLoad: 2, fellBack: 2 });
      expect(await processChunk()).toEqual(['K2']);
      // the end of the run's staging releases what is still HELD
      expect(await engine.transaction((tx) => tx.releaseHeld([5]))).toBe(1);
      expect(await processChunk()).toEqual(['TWICE']);
      expect(await processChunk()).toEqual([]);
      expect(model.stageRow('DUP')).toMatchObject({ process_status: 'ERROR', error_code: 'PARSE_AMOUNT', line_no: 6 });
      expect(model.order('DUP')).toBeUndefined();
      expect(model.order('TWICE')).toMatchObject({ amount: 200 });
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
      expect(again).toEqual({
        inserted: 0,
        updated: 0,
        unchanged: 2,
        unchangedError: 0,
        repeatedInLoad: 0,
        refused: [],
        by: 'direct',
        fellBack: 2,
      });
      expect(await engine.transaction((tx) => tx.claimChunk({ afterStageId: 0, limit: 10 }))).toEqual([]);
      expect(model.stage).toEqual(stage);
      expect(model.orders).toEqual(orders);
    },
  },
  ...laterLoadChecks,
];
