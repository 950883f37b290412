/**
 * A part of a killed set loaded alone stands at its own place, also when the set's file comes back
 * changed before the rerun. A load of the inbox (m0.csv: B1, K1 = 1.00, B2; m1.csv: C1; m2.csv: D1,
 * K1 = 2.00) is killed after m0.csv's B1 (load 1, the set). `load inbox/m2.csv` (a part: load 2,
 * which takes m2.csv's place in the set, the set's run never began it). Then m2.csv is sent again,
 * corrected (D1, K1 = 9.00), and the inbox is rerun: it stages the set again (m0.csv, m1.csv and
 * the new m2.csv as new loads), at the set's first load, in the set's order. Load 2 began after
 * load 1 and is a load of its own at its own place (migration 021 records it so when it joins the
 * set, src/pipeline/file-holds.ts foreignPlan): the set's files yield K1 to it, the new m2.csv too.
 * Its rows stay HELD (an earlier load of m2.csv that the rerun did not stage again, said as
 * stranded) until `recover` gives them up: K1 ends 2.00. Moved to the set's place of m2.csv (the
 * place the set's own loads take when it is staged again), load 2 stood where the new m2.csv does,
 * which then staged K1 = 9.00 over it.
 *
 * PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, loadKilledAtCheckpoint, runCli, sleep, survivalPath } from './harness.js';
import { SURVIVAL_TARGETS } from './targets.js';

const HEADER = 'source_key,customer_id,order_date,amount,currency';
const line = (key: string, amount: string) => `${key},1,2026-11-01,${amount},JPY`;

describe('survival: a part of a killed set loaded alone, the file sent again changed, then the rerun', () => {
  for (const target of SURVIVAL_TARGETS) {
    it(`${target.kind}: K1 ends with the part's line`, async () => {
      assertBuilt();
      const db = await target.create();
      try {
        const dir = survivalPath(`restaged-set-part-resent-${target.kind}`);
        const inbox = join(dir, 'in');
        mkdirSync(inbox, { recursive: true });
        const write = (name: string, lines: string[]) => writeFileSync(join(inbox, name), `${HEADER}\n${lines.join('\n')}\n`);
        write('m0.csv', [line('B1', '1.00'), line('K1', '1.00'), line('B2', '1.00')]);
        write('m1.csv', [line('C1', '1.00')]);
        write('m2.csv', [line('D1', '1.00'), line('K1', '2.00')]);
        await loadKilledAtCheckpoint([inbox, '--db', db.url, '--batch-size', '1'], 1);
        const part = await runCli(['load', join(inbox, 'm2.csv'), '--db', db.url, '--settle', '0']);
        write('m2.csv', [line('D1', '1.00'), line('K1', '9.00')]);
        const rerun = await runCli(['load', inbox, '--db', db.url, '--settle', '0']);
        await sleep(1100);
        const recovered = await runCli(['recover', '--older-than', '1s', '--db', db.url]);
        const processed = await runCli(['process', '--db', db.url]);
        expect(processed.code, processed.stderr).toBe(0);
        const places = await db.withSql((sql) =>
          sql('SELECT load_id::int AS load_id, began_at::int AS began_at, place FROM load_place ORDER BY load_id'),
        );
        const rows = await db.withSql((sql) =>
          sql("SELECT source_key, amount::text AS amount FROM orders WHERE source_key IN ('B2', 'K1') ORDER BY 1"),
        );
        const said = [part, rerun, recovered].map((r) => `exit ${String(r.code)}\n${r.stdout}\n${r.stderr.slice(-1500)}`).join('\n---\n');
        expect(rows, `${JSON.stringify(places)}\n${said}`).toEqual([
          { source_key: 'B2', amount: '1.00' },
          { source_key: 'K1', amount: '2.00' },
        ]);
      } finally {
        await db.dispose();
      }
    }, 300_000);
  }
});
