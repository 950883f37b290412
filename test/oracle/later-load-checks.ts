/**
 * Model checks (statement-checks.ts says what they are) of the later-load guard on Oracle: the
 * staging batch records the load of a line identical to another load's row in
 * order_stage_unchanged (stage_batch_unchanged.sql, migration 015), and laterLoadKeys
 * (later_load_keys.sql) answers from order_stage.load_id and that record, less the loads excepted.
 * What PostgreSQL's test/integration/identical-done-row.test.ts and later-load-keys.test.ts check
 * there, here against the table model (test/oracle-server/later-load-keys.test.ts on a server).
 */
import { expect } from 'vitest';
import type { Check } from './statement-checks.js';
import { line, modelled } from './model-engine.js';
import type { TableModel } from './table-model.js';

/** The records of order_stage_unchanged, by key. */
function records(model: TableModel): [string, number][] {
  return model.unchanged.map((u): [string, number] => [u.source_key, u.load_id]).sort(([a], [b]) => a.localeCompare(b));
}

const COUNTS = { inserted: 0, updated: 0, unchanged: 0, unchangedError: 0, repeatedInLoad: 0, refused: [] };

export const laterLoadChecks: Check[] = [
  {
    name: 'staging records the load of a line identical to the row of another load (and no other line); a record moves to a later load only; a refused update takes its record back',
    async run() {
      const { model, engine } = modelled();
      model.addStage({ source_key: 'K1', process_status: 'DONE', load_id: 1 });
      model.addStage({ source_key: 'E1', process_status: 'READY', load_id: 1 });
      model.addStage({ source_key: 'C1', process_status: 'DONE', load_id: 1 });
      model.addStage({ source_key: 'P1', process_status: 'ERROR', error_code: 'PARSE_AMOUNT', load_id: 1 });
      const stage = (loadId: number, rows: Parameters<typeof line>[]) =>
        engine.transaction(async (tx) => {
          const {
            by: _by,
            fellBack: _fellBack,
            ...counts
          } = await tx.stageBatch(
            loadId,
            rows.map((r) => line(...r)),
          );
          return counts;
        });
      // K1 (DONE) and E1 (READY) identical: recorded; C1 changed, P1 re-parsed, NEW new: not
      expect(
        await stage(3, [
          ['K1', 2],
          ['E1', 3],
          ['C1', 4, { amount: '5.00' }],
          ['P1', 5],
          ['NEW', 6],
        ]),
      ).toEqual({
        ...COUNTS,
        inserted: 1,
        updated: 2,
        unchanged: 2,
      });
      expect(records(model)).toEqual([
        ['E1', 3],
        ['K1', 3],
      ]);
      expect(model.stageRow('K1')).toMatchObject({ process_status: 'DONE', load_id: 1 }); // the row keeps its load
      expect(model.stageRow('E1')).toMatchObject({ process_status: 'READY', load_id: 3 });
      // a later batch of the same load: its own rows are repeated, not unchanged, and not recorded
      expect(
        await stage(3, [
          ['NEW', 7],
          ['C1', 8, { amount: '5.00' }],
          ['K1', 9],
        ]),
      ).toEqual({ ...COUNTS, unchanged: 1, repeatedInLoad: 2 });
      expect(records(model)).toEqual([
        ['E1', 3],
        ['K1', 3],
      ]);
      // an earlier load's identical line: counted unchanged, the record stays with the later load
      expect(await stage(2, [['K1', 2]])).toEqual({ ...COUNTS, unchanged: 1 });
      expect(records(model)).toEqual([
        ['E1', 3],
        ['K1', 3],
      ]);
      // nothing unchanged (a new key only): the statement is not sent
      const sent = model.answers.filter((a) => a.statement === 'stage batch unchanged').length;
      expect(await stage(4, [['N2', 2]])).toEqual({ ...COUNTS, inserted: 1 });
      expect(model.answers.filter((a) => a.statement === 'stage batch unchanged')).toHaveLength(sent);
      // a site's CHECK refuses the update of R1's identical line (its load moves): the rollback to
      // the savepoint takes R1's record back, the batch is counted and recorded again without it
      model.addStage({ source_key: 'R1', process_status: 'READY', load_id: 1 });
      model.siteChecks.push((r) =>
        r.source_key === 'R1' && r.load_id === 5 ? 'ORA-02290: check constraint (LOADER.TEST_R1) violated' : null,
      );
      const refused = await engine.transaction((tx) => tx.stageBatch(5, [line('R1', 2), line('K1', 3)]));
      expect(refused.refused.map((r) => [r.sourceKey, r.code])).toEqual([['R1', 'ORA-02290']]);
      expect(refused.unchanged).toBe(1);
      expect(records(model)).toEqual([
        ['E1', 3],
        ['K1', 5],
      ]);
      expect(model.answers.filter((a) => a.statement === 'stage batch unchanged').slice(-2)).toEqual([
        { statement: 'stage batch unchanged', rowsAffected: 2, batchErrors: [] },
        { statement: 'stage batch unchanged', rowsAffected: 1, batchErrors: [] },
      ]);
    },
  },
  {
    name: 'the later-load guard: the keys whose stage row or unchanged record a later load has, less the loads excepted, in one array execution',
    async run() {
      const { model, db, engine } = modelled();
      for (const [key, loadId] of [
        ['A1', 1],
        ['B1', 2],
        ['C1', 3],
      ] as const)
        await engine.transaction((tx) => tx.stageBatch(loadId, [line(key, 2)]));
      // A1 processed (DONE), then load 3 repeats its line as it is: the row keeps load 1, the record names load 3
      model.stageRow('A1')!.process_status = 'DONE';
      await engine.transaction((tx) => tx.stageBatch(3, [line('A1', 3)]));
      expect(model.stageRow('A1')?.load_id).toBe(1);
      expect(records(model)).toEqual([['A1', 3]]);
      const later = (loadId: number, except?: number[]) =>
        engine.transaction(async (tx) => {
          if (tx.laterLoadKeys === undefined) throw new Error('the Oracle engine tells later loads apart');
          return (await tx.laterLoadKeys(loadId, ['A1', 'B1', 'C1', 'NONE'], except)).sort();
        });
      const calls = db.executeManyCalls().length;
      expect(await later(1)).toEqual(['A1', 'B1', 'C1']);
      expect(db.executeManyCalls()).toHaveLength(calls + 1); // the four keys in one call
      expect(await later(1, [])).toEqual(['A1', 'B1', 'C1']);
      expect(await later(1, [2])).toEqual(['A1', 'C1']);
      expect(await later(1, [3])).toEqual(['B1']);
      expect(await later(1, [2, 3, 1])).toEqual([]);
      expect(await later(2)).toEqual(['A1', 'C1']); // A1 by its record only
      expect(await later(2, [1])).toEqual(['A1', 'C1']);
      expect(await later(3)).toEqual([]);
    },
  },
];
