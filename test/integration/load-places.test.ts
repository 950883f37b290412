/**
 * Where loads stand in load order (PostgreSQL migration 021, table load_place;
 * HoldSetsTx.recordLoadPlaces and loadPlaces, read by src/pipeline/load-places.ts): a place once
 * recorded is kept (a part's load at itself is not moved to its set's place by the run that stages
 * the set again), and a later run reads the places of the loads from a given one on. A database of
 * migration 020 with rows in it is migrated: the rows kept, no place recorded. The runs that record
 * and read them: test/survival/resumed-after-restaged-set.test.ts and its neighbours.
 */
import { expect } from 'vitest';
import type { LoadPlace } from '../../src/engine/types.js';
import { testTargets } from '../support/databases.js';
import { HEADER, writeTestFile } from '../support/files.js';
import { forEachTarget, targetTest } from '../support/target-test.js';

forEachTarget(
  'where loads stand in load order, on $kind',
  () => {
    targetTest('a place once recorded is kept; the places from a load on, in load id order', async ({ db }) => {
      const { loader } = await db.open();
      const places = (from: number) =>
        loader.engine.transaction(async (tx) => {
          if (tx.loadPlaces === undefined) throw new Error('this engine records where loads stand');
          return tx.loadPlaces(from);
        });
      const record = (list: LoadPlace[]) =>
        loader.engine.transaction(async (tx) => {
          if (tx.recordLoadPlaces === undefined) throw new Error('this engine records where loads stand');
          await tx.recordLoadPlaces(list);
        });
      // a part's load 3 at itself, then the set of load 1 staged again: 7, 8, 9, and its load 3 at m2's place
      await record([{ loadId: 3, began: 3, place: 0 }]);
      await record([
        { loadId: 9, began: 1, place: 3 },
        { loadId: 7, began: 1, place: 1 },
        { loadId: 8, began: 1, place: 2 },
        { loadId: 3, began: 1, place: 3 },
      ]);
      await record([]);
      expect(await places(1)).toEqual([
        { loadId: 3, began: 3, place: 0 },
        { loadId: 7, began: 1, place: 1 },
        { loadId: 8, began: 1, place: 2 },
        { loadId: 9, began: 1, place: 3 },
      ]);
      expect((await places(8)).map((p) => p.loadId)).toEqual([8, 9]);
      expect(await places(10)).toEqual([]);
      // no load stands after a load with a greater id, nor at a negative place
      await expect(record([{ loadId: 4, began: 5, place: 1 }])).rejects.toThrow();
      await expect(record([{ loadId: 5, began: 1, place: -1 }])).rejects.toThrow();
    });

    targetTest('a database of migration 020 with rows in it is migrated: the rows kept, no place recorded', async ({ db }) => {
      const { loader } = await db.open();
      await loader.load([writeTestFile(`${HEADER}\nK1,1,2026-11-01,5.00,JPY\n`)]);
      // back to 020: no table, 021 not recorded
      await db.sql('DROP TABLE load_place');
      await db.sql('DELETE FROM order_loader_migration WHERE version = 21');
      const rowsBefore = await db.sql('SELECT s.*, s.xmin::text AS xmin FROM order_stage s ORDER BY stage_id');

      const { loader: upgraded } = await db.open();
      expect(await upgraded.init()).toEqual(['021_load_places']);
      expect(await db.sql('SELECT s.*, s.xmin::text AS xmin FROM order_stage s ORDER BY stage_id')).toEqual(rowsBefore);
      expect(await db.sql('SELECT * FROM load_place')).toEqual([]);
      expect(await upgraded.init()).toEqual([]);
      const second = await upgraded.load([writeTestFile(`${HEADER}\nK1,1,2026-11-01,6.00,JPY\n`)]);
      expect(second.files[0]?.counts).toMatchObject({ updated: 1 });
    });
  },
  // PostgreSQL and PGlite: xmin and migration 021 are theirs (Oracle's: test/oracle-server/load-places.test.ts)
  testTargets().filter((t) => t.kind === 'pglite' || t.kind === 'postgres'),
);
