/**
 * Load order is the order in which loads begin, whatever runs between a kill and the rerun. A load
 * of the inbox (m0.csv: B1, K1 = 1.00, R1 = 1.00, B2; m1.csv: C1; m2.csv: D1, R1 = 2.00 — R1 on
 * two files, so the run records its file set and holds R1) is killed inside m0.csv. A new a.csv
 * (K1 = 5.00), sorting before the others, arrives. m0.csv's load began before a.csv's, so K1 must
 * end 5.00: it does when the inbox is simply rerun (m0.csv resumes first, set-order.ts).
 *
 * With `load inbox/m2.csv` between the kill and the rerun (a part of the set, staging a file the
 * killed run had not begun), the rerun stages the set again as new loads, in the set's order
 * (restage). Those files go before the files new to the run, at the set's first load, as resumed
 * loads do (set-order.ts, resumesFirst; restaged-sets.ts): m0.csv, m1.csv, m2.csv, then a.csv,
 * and the run says so. Left where the command line put them (a.csv first), m0.csv's K1 = 1.00 won.
 *
 * The same with a.csv loaded from another folder before `load inbox/m2.csv` (its load begun after
 * m0.csv's, so without the part the resume leaves K1 out, stage.ts yieldToLaterLoads): m0.csv is
 * staged again as a new load, which stands where the set began (load 1) and yields to the loads
 * begun after that one (restaged-sets.ts, notLaterLoads): K1 to a.csv's, and R1 to the part's load
 * of m2.csv, which stands at its own place (the same line as the set's m2.csv). Without that it
 * yielded to none, and K1 ended 1.00.
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

describe('survival: a killed set, a new file that sorts before it, a part of the set loaded between, then the rerun', () => {
  for (const target of SURVIVAL_TARGETS) {
    for (const arrival of ['inbox', 'other-folder'] as const) {
      // checkpoint 1: m0.csv's B1 committed, K1 not; 2: m0.csv's K1 committed
      for (const checkpoint of [1, 2]) {
        it(`${target.kind}, a.csv ${arrival}: killed at checkpoint ${checkpoint}, K1 ends with a.csv's line`, async () => {
          assertBuilt();
          const db = await target.create();
          try {
            const dir = survivalPath(`restaged-set-new-file-${target.kind}-${arrival}-${checkpoint}`);
            const inbox = join(dir, 'in');
            mkdirSync(inbox, { recursive: true });
            const write = (name: string, lines: string[]) => writeFileSync(join(inbox, name), `${HEADER}\n${lines.join('\n')}\n`);
            write('m0.csv', [line('B1', '1.00'), line('K1', '1.00'), line('R1', '1.00'), line('B2', '1.00')]);
            write('m1.csv', [line('C1', '1.00')]);
            write('m2.csv', [line('D1', '1.00'), line('R1', '2.00')]);
            await loadKilledAtCheckpoint([inbox, '--db', db.url, '--batch-size', '1'], checkpoint);

            if (arrival === 'inbox') write('a.csv', [line('K1', '5.00')]);
            else {
              mkdirSync(join(dir, 'other'));
              writeFileSync(join(dir, 'other', 'a.csv'), `${HEADER}\n${line('K1', '5.00')}\n`);
              const alone = await runCli(['load', join(dir, 'other', 'a.csv'), '--db', db.url, '--settle', '0']);
              expect(alone.code, alone.stderr).toBe(0);
            }
            const between = await runCli(['load', join(inbox, 'm2.csv'), '--db', db.url, '--settle', '0']);
            expect(between.code, between.stderr).toBe(2);
            const rerun = await runCli(['load', inbox, '--db', db.url, '--settle', '0']);
            expect(rerun.code, rerun.stderr).toBe(0);
            if (arrival === 'inbox')
              expect(rerun.stdout).toMatch(
                /staging the files in the order m0\.csv, m1\.csv, m2\.csv, a\.csv: the file set of run \d+ \(m0\.csv, m1\.csv, m2\.csv\) is staged again in its order at its load \d+, begun by a run stopped before its staging ended/,
              );
            else expect(rerun.stderr).toMatch(/2 line\(s\) of load \d+ not staged: it stages again a file its set's load \d+ began/);
            const rows = await db.withSql((sql) =>
              sql("SELECT source_key, amount::text AS amount FROM orders WHERE source_key IN ('K1', 'R1') ORDER BY 1"),
            );
            expect(rows, `${between.stdout}\n${rerun.stdout}`).toEqual([
              { source_key: 'K1', amount: '5.00' },
              { source_key: 'R1', amount: '2.00' },
            ]);
          } finally {
            await db.dispose();
          }
        }, 300_000);
      }
    }
  }
});
