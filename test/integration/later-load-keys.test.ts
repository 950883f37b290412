/**
 * The keys a batch of a load begun before the run yields (StagingTx.laterLoadKeys:
 * later_load_keys.sql of sql/postgres and of sql/oracle): those whose stage row a load with a
 * greater id wrote, except the loads the caller names (restaged-sets.ts, notLaterLoads: loads that
 * count as begun no later). Every engine; the record of an unchanged line, which the guard reads
 * too, is identical-done-row.test.ts (PostgreSQL and PGlite) and
 * test/oracle-server/later-load-keys.test.ts (Oracle).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { HEADER, tempDir } from '../support/files.js';
import { forEachTarget, targetTest } from '../support/target-test.js';

forEachTarget('the keys of later loads on $kind', () => {
  targetTest('greater load ids only, less the loads excepted', async ({ db }) => {
    const { loader } = await db.open();
    const dir = tempDir();
    const loads: number[] = [];
    for (const key of ['A1', 'B1', 'C1']) {
      const file = join(dir, `${key}.csv`);
      writeFileSync(file, `${HEADER}\n${key},1,2026-11-01,1.00,JPY\n`);
      const report = await loader.load([file]);
      loads.push(report.files[0]?.loadId ?? 0);
    }
    const [a = 0, b = 0, c = 0] = loads;
    const later = (loadId: number, except?: number[]) =>
      loader.engine.transaction(async (tx) => {
        if (tx.laterLoadKeys === undefined) throw new Error('this engine tells later loads apart');
        return (await tx.laterLoadKeys(loadId, ['A1', 'B1', 'C1', 'NONE'], except)).sort();
      });
    expect(await later(a)).toEqual(['B1', 'C1']);
    expect(await later(a, [])).toEqual(['B1', 'C1']);
    expect(await later(a, [b])).toEqual(['C1']);
    expect(await later(a, [b, c, a])).toEqual([]);
    expect(await later(b, [a])).toEqual(['C1']);
    expect(await later(c)).toEqual([]);
  });
});
