/**
 * Adversary: the run that stages a killed set again also stages another file of the same base
 * name that the set never had. A load of the inbox (m0.csv: B1, K1 = 1.00, R1 = 1.00; m1.csv: C1,
 * R1 = 2.00) is killed after m0.csv's B1 (load 1, the set). other/x.csv (P1 = 7.00) is loaded
 * (load 2), then `load inbox/m1.csv` (a part: the set is marked to be staged again), then
 * `load inbox o2/m1.csv`: inbox/m0.csv and inbox/m1.csv are the set's files staged again (at load
 * 1, places 1 and 2); o2/m1.csv (P1 = 9.00) is a second m1.csv the set never had (the set has one
 * file of that name, taken by inbox/m1.csv, staged before it): a new load begun now, later than
 * x.csv's. P1 must end 9.00.
 * Before the fix (load-places.ts, restaged-sets.ts), on PGlite and PostgreSQL: 7.00. restagedPlace gives the n-th file of
 * a name the last place of that name in the set when the set has fewer (Math.min): o2/m1.csv is
 * recorded at (1, 2) and yields P1 to x.csv's load ("it stages again a file its set's load 1
 * began", which it does not).
 *
 * PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, loadKilledAtCheckpoint, runCli, survivalPath } from './harness.js';
import { SURVIVAL_TARGETS } from './targets.js';

const HEADER = 'source_key,customer_id,order_date,amount,currency';
const line = (key: string, amount: string) => `${key},1,2026-11-01,${amount},JPY`;

describe('survival: a killed set staged again beside another file of one of its names', () => {
  for (const target of SURVIVAL_TARGETS) {
    it(`${target.kind}: P1 ends with the other m1.csv's line`, async () => {
      assertBuilt();
      const db = await target.create();
      try {
        const dir = survivalPath(`restaged-set-extra-same-name-${target.kind}`);
        const inbox = join(dir, 'in');
        for (const d of [inbox, join(dir, 'other'), join(dir, 'o2')]) mkdirSync(d, { recursive: true });
        const write = (path: string, lines: string[]) => writeFileSync(path, `${HEADER}\n${lines.join('\n')}\n`);
        write(join(inbox, 'm0.csv'), [line('B1', '1.00'), line('K1', '1.00'), line('R1', '1.00')]);
        write(join(inbox, 'm1.csv'), [line('C1', '1.00'), line('R1', '2.00')]);
        write(join(dir, 'other', 'x.csv'), [line('P1', '7.00')]);
        write(join(dir, 'o2', 'm1.csv'), [line('P1', '9.00')]);
        await loadKilledAtCheckpoint([inbox, '--db', db.url, '--batch-size', '1'], 1);
        const x = await runCli(['load', join(dir, 'other', 'x.csv'), '--db', db.url, '--settle', '0']);
        const part = await runCli(['load', join(inbox, 'm1.csv'), '--db', db.url, '--settle', '0']);
        const rerun = await runCli(['load', inbox, join(dir, 'o2', 'm1.csv'), '--db', db.url, '--settle', '0']);
        const processed = await runCli(['process', '--db', db.url]);
        expect(processed.code, processed.stderr).toBe(0);
        const places = await db.withSql((sql) =>
          sql('SELECT load_id::int AS load_id, began_at::int AS began_at, place FROM load_place ORDER BY load_id'),
        );
        const rows = await db.withSql((sql) =>
          sql("SELECT source_key, amount::text AS amount FROM orders WHERE source_key IN ('P1', 'R1') ORDER BY 1"),
        );
        const said = [x, part, rerun].map((r) => `exit ${String(r.code)}\n${r.stdout}\n${r.stderr.slice(-1500)}`).join('\n---\n');
        expect(rows, `${JSON.stringify(places)}\n${said}`).toEqual([
          { source_key: 'P1', amount: '9.00' },
          { source_key: 'R1', amount: '2.00' },
        ]);
      } finally {
        await db.dispose();
      }
    }, 300_000);
  }
});
