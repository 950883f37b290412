/**
 * `load a.csv b.csv` killed, then the set's rerun naming the same files in the other order
 * (`load b.csv a.csv`). The outcome must not depend on where the first run was killed: killed
 * once a.csv was staged whole, the rerun skips a.csv and stages b.csv; killed inside a.csv,
 * before its later line of K1, resuming a.csv after b.csv would merge a.csv's later line (2.00)
 * over b.csv's. A run that stages an unfinished set whole stages its files in the set's order
 * and says so (src/pipeline/set-order.ts): K1 ends with b.csv's line (5.00) either way.
 * a.csv: K1 = 1.00, A1 twice (held: the set's load holds a row), K1 = 2.00; b.csv: K1 = 5.00.
 *
 * PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, loadKilledAtCheckpoint, runCli, survivalPath } from './harness.js';
import { SURVIVAL_TARGETS } from './targets.js';

const HEADER = 'source_key,customer_id,order_date,amount,currency';

describe('survival: a killed set rerun with its files named in another order', () => {
  for (const target of SURVIVAL_TARGETS) {
    // checkpoint 2: inside a.csv, before its later K1; 4: a.csv staged whole, b.csv not begun
    for (const checkpoint of [2, 4]) {
      it(`${target.kind}: killed at checkpoint ${checkpoint}, K1 ends with b.csv's line`, async () => {
        assertBuilt();
        const db = await target.create();
        try {
          const dir = join(survivalPath(`rerun-other-order-${target.kind}-${checkpoint}`), 'in');
          mkdirSync(dir, { recursive: true });
          const a = join(dir, 'a.csv');
          const b = join(dir, 'b.csv');
          writeFileSync(
            a,
            `${HEADER}\nK1,1,2026-11-01,1.00,JPY\nA1,1,2026-11-01,1.00,JPY\nA1,1,2026-11-01,2.00,JPY\nK1,1,2026-11-01,2.00,JPY\n`,
          );
          writeFileSync(b, `${HEADER}\nK1,1,2026-11-01,5.00,JPY\n`);
          await loadKilledAtCheckpoint([a, b, '--db', db.url, '--batch-size', '1'], checkpoint);

          const rerun = await runCli(['load', b, a, '--db', db.url, '--settle', '0']);
          expect(rerun.signal, rerun.stderr).toBeNull();
          const k1 = await db.withSql((sql) => sql("SELECT amount::text AS amount FROM orders WHERE source_key = 'K1'"));
          expect(k1, rerun.stdout).toEqual([{ amount: '5.00' }]);
          expect(rerun.stdout).toContain('staging the files in the order a.csv, b.csv: the file set of run');
        } finally {
          await db.dispose();
        }
      }, 300_000);
    }
  }
});
