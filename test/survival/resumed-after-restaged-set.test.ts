/**
 * Adversary: a load begun after a killed set, itself killed, resumed after the set was staged again.
 * A load of the inbox (m0.csv: B1, K1 = 1.00, R1 = 1.00, B2; m1.csv: C1; m2.csv: D1, R1 = 2.00)
 * is killed after m0.csv's B1 (load 1, K1 not staged). Then other/x.csv (X0, X1, K1 = 7.00) is
 * loaded and killed after X0: its load began after load 1, so K1 must end 7.00. `load inbox/m2.csv`
 * (a part of the set), then the inbox's rerun stages the set again as new loads, which count as
 * begun at load 1 (restaged-sets.ts) but carry greater ids than x.csv's load. The rerun of x.csv
 * resumes its load: a restaged load's row of K1 is not a later load's, so x.csv's K1 is staged.
 * Where each restaged load stands is recorded (load_place, migration 021; load-places.ts) and read
 * by the later run: comparing raw load ids, x.csv yielded K1 to the restaged m0.csv (K1 1.00).
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

describe('survival: a load begun after a killed set, resumed after the set is staged again', () => {
  for (const target of SURVIVAL_TARGETS) {
    it(`${target.kind}: K1 ends with x.csv's line`, async () => {
      assertBuilt();
      const db = await target.create();
      try {
        const dir = survivalPath(`resumed-after-restaged-set-${target.kind}`);
        const inbox = join(dir, 'in');
        mkdirSync(inbox, { recursive: true });
        mkdirSync(join(dir, 'other'));
        const write = (name: string, lines: string[]) => writeFileSync(join(inbox, name), `${HEADER}\n${lines.join('\n')}\n`);
        write('m0.csv', [line('B1', '1.00'), line('K1', '1.00'), line('R1', '1.00'), line('B2', '1.00')]);
        write('m1.csv', [line('C1', '1.00')]);
        write('m2.csv', [line('D1', '1.00'), line('R1', '2.00')]);
        const x = join(dir, 'other', 'x.csv');
        writeFileSync(x, `${HEADER}\n${[line('X0', '1.00'), line('X1', '1.00'), line('K1', '7.00')].join('\n')}\n`);
        await loadKilledAtCheckpoint([inbox, '--db', db.url, '--batch-size', '1'], 1);
        await loadKilledAtCheckpoint([x, '--db', db.url, '--batch-size', '1'], 1);
        const part = await runCli(['load', join(inbox, 'm2.csv'), '--db', db.url, '--settle', '0']);
        const rerun = await runCli(['load', inbox, '--db', db.url, '--settle', '0']);
        const resumed = await runCli(['load', x, '--db', db.url, '--settle', '0']);
        const processed = await runCli(['process', '--db', db.url]);
        expect(processed.code, processed.stderr).toBe(0);
        const rows = await db.withSql((sql) =>
          sql("SELECT source_key, amount::text AS amount FROM orders WHERE source_key IN ('K1', 'R1') ORDER BY 1"),
        );
        const said = [part, rerun, resumed].map((r) => `exit ${String(r.code)}\n${r.stdout}\n${r.stderr.slice(-1500)}`).join('\n---\n');
        expect(rows, said).toEqual([
          { source_key: 'K1', amount: '7.00' },
          { source_key: 'R1', amount: '2.00' },
        ]);
      } finally {
        await db.dispose();
      }
    }, 300_000);
  }
});
