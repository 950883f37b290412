/**
 * Where loads stand in load order on a real Oracle server (npm run test:oracle; see vitest.config.ts
 * here): Oracle's twin of PostgreSQL's test/integration/load-places.test.ts. HoldSetsTx.recordLoadPlaces
 * (queries/load_place_record.sql, a MERGE per load that inserts only an absent load) keeps a place
 * once recorded, loadPlaces (queries/load_places.sql) reads the places from a load on, and
 * migrations/016_load_places.sql's CHECK refuses a load placed after a greater one or at a negative
 * place; a database migrated before 016 is migrated with its rows kept.
 *
 * NOT RUN where it was written (no Oracle server there): test/oracle/load-places.recording.test.ts
 * checks what is sent and models what Oracle answers (place-model.ts); this file is what checks
 * the answers.
 */
import { describe, expect, it } from 'vitest';
import type { OrderLoader } from '../../src/index.js';
import type { LoadPlace } from '../../src/engine/types.js';
import { testTargets, type TestDatabase } from '../support/databases.js';
import { HEADER, writeTestFile } from '../support/files.js';

const oracle = testTargets().find((t) => t.kind === 'oracle');
const underOracleConfig = process.env.ORDER_LOADER_TEST_ORACLE_SUITE === '1';

function places(loader: OrderLoader, from: number): Promise<LoadPlace[]> {
  return loader.engine.transaction(async (tx) => {
    if (tx.loadPlaces === undefined) throw new Error('the Oracle engine records where loads stand');
    return tx.loadPlaces(from);
  });
}

function record(loader: OrderLoader, list: LoadPlace[]): Promise<void> {
  return loader.engine.transaction(async (tx) => {
    if (tx.recordLoadPlaces === undefined) throw new Error('the Oracle engine records where loads stand');
    await tx.recordLoadPlaces(list);
  });
}

/** The stage rows, with the columns a write would change (updated_at to the microsecond). */
function stageRows(db: TestDatabase): Promise<Record<string, unknown>[]> {
  return db.sql(
    `SELECT stage_id, source_key, process_status, load_id, line_no, amount,
            TO_CHAR(SYS_EXTRACT_UTC(updated_at), 'YYYY-MM-DD HH24:MI:SS.FF6') AS updated_at
       FROM order_stage ORDER BY stage_id`,
  );
}

describe.skipIf(oracle === undefined || !underOracleConfig)(
  'where loads stand in load order on oracle (a real server: npm run test:oracle)',
  () => {
    it('a place once recorded is kept; the places from a load on, in load id order; the CHECK refuses', async () => {
      if (oracle === undefined) throw new Error('ORDER_LOADER_TEST_ORACLE is not set');
      const db = await oracle.create();
      try {
        const { loader } = await db.open();
        // a part's load 3 at itself, then the set of load 1 staged again: 7, 8, 9, and its load 3 at m2's place
        await record(loader, [{ loadId: 3, began: 3, place: 0 }]);
        await record(loader, [
          { loadId: 9, began: 1, place: 3 },
          { loadId: 7, began: 1, place: 1 },
          { loadId: 8, began: 1, place: 2 },
          { loadId: 3, began: 1, place: 3 },
        ]);
        await record(loader, []);
        const all = [
          { loadId: 3, began: 3, place: 0 },
          { loadId: 7, began: 1, place: 1 },
          { loadId: 8, began: 1, place: 2 },
          { loadId: 9, began: 1, place: 3 },
        ];
        expect(await places(loader, 1)).toEqual(all);
        expect((await places(loader, 8)).map((p) => p.loadId)).toEqual([8, 9]);
        expect(await places(loader, 10)).toEqual([]);
        // no load stands after a load with a greater id, nor at a negative place
        await expect(record(loader, [{ loadId: 4, began: 5, place: 1 }])).rejects.toThrow(/ORA-02290/);
        await expect(record(loader, [{ loadId: 5, began: 1, place: -1 }])).rejects.toThrow(/ORA-02290/);
        expect(await places(loader, 1)).toEqual(all);
      } finally {
        await db.dispose();
      }
    });

    it('a database migrated before 016 with rows in it is migrated: the rows kept, no place recorded', async () => {
      if (oracle === undefined) throw new Error('ORDER_LOADER_TEST_ORACLE is not set');
      const db = await oracle.create();
      try {
        const { loader } = await db.open();
        await loader.load([writeTestFile(`${HEADER}\nK1,1,2026-11-01,5.00,JPY\n`)]);
        // back to 015: no table, 016 not recorded
        await db.sql('DROP TABLE load_place PURGE');
        await db.sql('DELETE FROM order_loader_migration WHERE version = 16');
        const rowsBefore = await stageRows(db);

        const { loader: upgraded } = await db.open();
        expect(await upgraded.init()).toEqual(['016_load_places']);
        expect(await stageRows(db)).toEqual(rowsBefore);
        expect(await db.sql('SELECT count(*) AS n FROM load_place')).toEqual([{ n: 0 }]);
        expect(await upgraded.init()).toEqual([]);
        const second = await upgraded.load([writeTestFile(`${HEADER}\nK1,1,2026-11-01,6.00,JPY\n`)]);
        expect(second.files[0]?.counts).toMatchObject({ updated: 1 });
      } finally {
        await db.dispose();
      }
    });
  },
);
