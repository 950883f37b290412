/**
 * A line identical to the stage row of an earlier load (PostgreSQL migration 020): staging leaves
 * a DONE row as it is — not even a new row version: values, status, attempt_count, load_id,
 * line_no, updated_at, not processed again, counted unchanged — and records the load in
 * order_stage_unchanged, so that a resumed load begun before it yields the key to it
 * (later_load_keys.sql; the kill-and-rerun case is
 * test/survival/resumed-load-identical-done.test.ts). Both staging paths (COPY on and off), a
 * site's CHECK that the DONE row no longer meets, and a database migrated from 019 with rows in it.
 */
import { expect } from 'vitest';
import { sqlQuery } from '../../src/engine/postgres/rows.js';
import { listMigrations } from '../../src/sql-files.js';
import { testTargets, type TestDatabase } from '../support/databases.js';
import { withEngineSwitch } from '../support/engine-switch.js';
import { HEADER, writeTestFile } from '../support/files.js';
import { forEachTarget, targetTest } from '../support/target-test.js';

/** K1's stage row, its row version (xmin) included. */
async function k1Row(db: TestDatabase): Promise<Record<string, unknown>> {
  const [r] = await db.sql("SELECT s.*, s.xmin::text AS xmin FROM order_stage s WHERE source_key = 'K1'");
  if (r === undefined) throw new Error('no stage row for K1');
  return r;
}

async function recorded(db: TestDatabase): Promise<Array<{ source_key: string; load_id: number }>> {
  return db.sql('SELECT source_key, load_id::int AS load_id FROM order_stage_unchanged ORDER BY source_key');
}

async function laterLoadKeys(db: TestDatabase, loadId: number): Promise<string[]> {
  // no load excepted ($3: the loads that count as begun no later, restaged-sets.ts)
  const rows = await db.sql<{ source_key: string }>(sqlQuery('later_load_keys'), [['K1', 'A1', 'NEW', 'E1'], loadId, []]);
  return rows.map((r) => r.source_key).sort();
}

const K1 = 'K1,1,2026-11-01,5.00,JPY';

forEachTarget(
  'a line identical to the stage row of an earlier load, on $kind',
  () => {
    for (const copy of [true, false]) {
      targetTest(`leaves a DONE row as it was and records the load (COPY staging ${copy ? 'on' : 'off'})`, async ({ db }) => {
        const loader = await withEngineSwitch('ORDER_LOADER_STAGE_COPY', copy, async () => (await db.open()).loader);
        const first = await loader.load([writeTestFile(`${HEADER}\n${K1}\nA1,1,2026-11-01,7.00,JPY\n`)]);
        const firstLoad = first.files[0]!.loadId;
        const before = await k1Row(db);
        expect(before).toMatchObject({ process_status: 'DONE', attempt_count: 1 });
        expect(Number(before.load_id)).toBe(firstLoad);
        expect(await recorded(db)).toEqual([]);
        const ordersBefore = await db.sql('SELECT * FROM orders ORDER BY source_key');

        const second = await loader.load([writeTestFile(`${HEADER}\nNEW,2,2026-11-02,9.00,JPY\n${K1}\n`)], { batchSize: 1 });
        const secondLoad = second.files[0]!.loadId;
        expect(await k1Row(db)).toEqual(before); // not written: the same row version
        expect(await recorded(db)).toEqual([{ source_key: 'K1', load_id: secondLoad }]);
        expect(second.files[0]!.counts).toMatchObject({ inserted: 1, updated: 0, unchanged: 1 });
        expect(second.files[0]!.tally).toEqual({ DONE: 2 }); // NEW, and K1 as an unchanged DONE row (load.ts), as before
        expect(await db.sql("SELECT * FROM orders WHERE source_key <> 'NEW' ORDER BY source_key")).toEqual(ordersBefore);
        expect(await db.sql('SELECT count(*)::int AS n FROM order_bulk_error')).toEqual([{ n: 0 }]);
        // a resumed first load would yield K1 (and NEW) to the second; the second yields nothing
        expect(await laterLoadKeys(db, firstLoad)).toEqual(['K1', 'NEW']);
        expect(await laterLoadKeys(db, secondLoad)).toEqual([]);

        // the same line again from a load no later than the one recorded: nothing written
        const [record] = await db.sql<{ xmin: string }>("SELECT xmin::text AS xmin FROM order_stage_unchanged WHERE source_key = 'K1'");
        await db.sql(
          `SELECT * FROM order_loader_stage_batch('{K1}', '{1}', '{2026-11-01}', '{5.00}', '{JPY}', '{9}', '{NULL}', '{NULL}', '{NULL}', $1)`,
          [secondLoad],
        );
        expect(await db.sql("SELECT xmin::text AS xmin FROM order_stage_unchanged WHERE source_key = 'K1'")).toEqual([record]);

        // a third load's identical line moves the record on, the row still untouched
        const third = await loader.load([writeTestFile(`${HEADER}\n${K1}\n`)]);
        const thirdLoad = third.files[0]!.loadId;
        expect(await k1Row(db)).toEqual(before);
        expect(await recorded(db)).toEqual([{ source_key: 'K1', load_id: thirdLoad }]);
        expect(await laterLoadKeys(db, secondLoad)).toEqual(['K1']);
      });
    }

    targetTest('a row that is not DONE moves to the new load as before, and is recorded too', async ({ db }) => {
      const { loader } = await db.open();
      const first = await loader.load([writeTestFile(`${HEADER}\nE1,1,2026-11-01,,JPY\n`)]);
      const second = await loader.load([writeTestFile(`${HEADER}\nX,1,2026-11-01,1.00,JPY\nE1,1,2026-11-01,,JPY\n`)]);
      const [firstLoad, secondLoad] = [first.files[0]!.loadId, second.files[0]!.loadId];
      expect(
        await db.sql("SELECT process_status, load_id::int AS load_id, line_no::int AS line_no FROM order_stage WHERE source_key = 'E1'"),
      ).toEqual([{ process_status: 'ERROR', load_id: secondLoad, line_no: 3 }]);
      expect(await recorded(db)).toEqual([{ source_key: 'E1', load_id: secondLoad }]);
      expect(await laterLoadKeys(db, firstLoad)).toEqual(['E1']);
    });

    targetTest("a DONE row a site's CHECK added since would refuse: the identical line is still unchanged, not refused", async ({ db }) => {
      const { loader } = await db.open();
      await loader.load([writeTestFile(`${HEADER}\n${K1}\n`)]);
      const before = await k1Row(db);
      await db.sql("ALTER TABLE order_stage ADD CONSTRAINT site_no_jpy CHECK (currency <> 'JPY') NOT VALID");
      try {
        // another file (the same one again is skipped), its other line meeting the CHECK
        const second = await loader.load([writeTestFile(`${HEADER}\n${K1}\nU1,1,2026-11-01,1.00,USD\n`)]);
        expect(second.files[0]!.counts).toMatchObject({ inserted: 1, unchanged: 1, rejected: 0 });
        expect(await k1Row(db)).toEqual(before);
        expect(await recorded(db)).toEqual([{ source_key: 'K1', load_id: second.files[0]!.loadId }]);
      } finally {
        await db.sql('ALTER TABLE order_stage DROP CONSTRAINT site_no_jpy');
      }
    });

    targetTest('a database of migration 019 with rows in it is migrated: the rows kept, then recorded', async ({ db }) => {
      const { loader } = await db.open();
      const first = await loader.load([writeTestFile(`${HEADER}\n${K1}\nA1,1,2026-11-01,7.00,JPY\n`)]);
      const firstLoad = first.files[0]!.loadId;
      // back to 019: no table, the stage function of 013, 020 not recorded
      const m013 = listMigrations('postgres').find((m) => m.version === 13)!.sql;
      const stageFunction = m013.slice(m013.indexOf('CREATE OR REPLACE FUNCTION order_loader_stage_batch('), m013.indexOf('$$;') + 3);
      await db.sql('DROP TABLE order_stage_unchanged');
      await db.sql(stageFunction);
      await db.sql('DELETE FROM order_loader_migration WHERE version = 20');
      const rowsBefore = await db.sql('SELECT s.*, s.xmin::text AS xmin FROM order_stage s ORDER BY stage_id');

      const { loader: upgraded } = await db.open();
      expect(await upgraded.init()).toEqual(['020_unchanged_loads']);
      expect(await db.sql('SELECT s.*, s.xmin::text AS xmin FROM order_stage s ORDER BY stage_id')).toEqual(rowsBefore);
      expect(await recorded(db)).toEqual([]);
      expect(await upgraded.init()).toEqual([]);

      const second = await upgraded.load([writeTestFile(`${HEADER}\n${K1}\nA1,1,2026-11-01,8.00,JPY\n`)]);
      const secondLoad = second.files[0]!.loadId;
      expect(await db.sql('SELECT source_key, load_id::int AS load_id FROM order_stage ORDER BY source_key')).toEqual([
        { source_key: 'A1', load_id: secondLoad },
        { source_key: 'K1', load_id: firstLoad },
      ]);
      expect(await recorded(db)).toEqual([{ source_key: 'K1', load_id: secondLoad }]);
    });
  },
  // PostgreSQL and PGlite: the table and the guard that reads it are theirs (Oracle has neither)
  testTargets().filter((t) => t.kind === 'pglite' || t.kind === 'postgres'),
);
