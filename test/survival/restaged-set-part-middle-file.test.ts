/**
 * Adversary: a part of a killed set loaded alone is a middle file of the set, not its last. A load
 * of the inbox (m0.csv: B1, R1 = 1.00; m1.csv: C1, R1 = 2.00, K2 = 1.00; m2.csv: D1, K2 = 2.00) is
 * killed after m0.csv's B1 (load 1, the set). `load inbox/m1.csv` (a part: load 2, which takes
 * m1.csv's place in the set, the set's run never began it), then the inbox's rerun stages the set
 * again (m0.csv, m1.csv, m2.csv as new loads at load 1, places 1 to 3). Load 2 began after the
 * set's first load: a load of its own at its own place, later than every file of the set staged
 * again (docs/operations.md, "a file set staged again counts as begun where the set began").
 * So m2.csv's K2 = 2.00 yields to load 2's K2 = 1.00: K2 must end 1.00.
 * Before the fix, on PGlite and PostgreSQL: 2.00. The set's m1.csv staged again did not yield to
 * load 2 (its "own earlier load of the same file", excepted in load-places.ts loadOrder), wrote
 * the row over under its own load id at (1, 2), and m2.csv at (1, 3) found no later load on the
 * key. Excepting that load was right only for a part that carries the set on in its order
 * (hold-set-subset-resume.test.ts: a.csv resumed, then b.csv): such a load is recorded at the
 * set's place when it begins (restaged-sets.ts, partPlace), so one rule serves both.
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

describe('survival: a middle file of a killed set loaded alone, then the rerun', () => {
  for (const target of SURVIVAL_TARGETS) {
    it(`${target.kind}: K2 ends with the alone load's line of m1.csv`, async () => {
      assertBuilt();
      const db = await target.create();
      try {
        const dir = survivalPath(`restaged-set-part-middle-file-${target.kind}`);
        const inbox = join(dir, 'in');
        mkdirSync(inbox, { recursive: true });
        const write = (name: string, lines: string[]) => writeFileSync(join(inbox, name), `${HEADER}\n${lines.join('\n')}\n`);
        write('m0.csv', [line('B1', '1.00'), line('R1', '1.00')]);
        write('m1.csv', [line('C1', '1.00'), line('R1', '2.00'), line('K2', '1.00')]);
        write('m2.csv', [line('D1', '1.00'), line('K2', '2.00')]);
        await loadKilledAtCheckpoint([inbox, '--db', db.url, '--batch-size', '1'], 1);
        const part = await runCli(['load', join(inbox, 'm1.csv'), '--db', db.url, '--settle', '0']);
        const rerun = await runCli(['load', inbox, '--db', db.url, '--settle', '0']);
        const processed = await runCli(['process', '--db', db.url]);
        expect(processed.code, processed.stderr).toBe(0);
        const places = await db.withSql((sql) =>
          sql('SELECT load_id::int AS load_id, began_at::int AS began_at, place FROM load_place ORDER BY load_id'),
        );
        const rows = await db.withSql((sql) =>
          sql("SELECT source_key, amount::text AS amount FROM orders WHERE source_key IN ('K2', 'R1') ORDER BY 1"),
        );
        const said = [part, rerun].map((r) => `exit ${String(r.code)}\n${r.stdout}\n${r.stderr.slice(-1500)}`).join('\n---\n');
        expect(rows, `${JSON.stringify(places)}\n${said}`).toEqual([
          { source_key: 'K2', amount: '1.00' },
          { source_key: 'R1', amount: '2.00' },
        ]);
      } finally {
        await db.dispose();
      }
    }, 300_000);
  }
});
