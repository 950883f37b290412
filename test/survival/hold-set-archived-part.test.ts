/**
 * A load of an inbox with --archive-dir killed after a.csv (b.csv not begun), then the operator
 * loads a.csv alone with the same --archive-dir (a part of the killed run's set), then the inbox
 * again. The part run says a.csv's rows stay HELD until the whole set is loaded again, exits 2,
 * and moves a.csv to the archive (a file's load that ended with exit 2 is archived) — as
 * `load1-a.csv`, a base name no longer of the set. The inbox's rerun then reads b.csv alone, a
 * part again: nothing is released, b.csv is archived too, and no run of the inbox (nor of the
 * archive's files, under other base names) ever completes the set. Every key stays out of
 * `orders` until the operator gives the set up with `recover --older-than`; the promise wants K1
 * = 5.00 (b.csv's line), A1 = 2.00, B1 = 6.00 after the inbox's rerun.
 *
 * KNOWN BUG (both engines): reproduce by hand with
 *   inbox/a.csv: K1 = 1.00, A1 twice; inbox/b.csv: B1 twice, K1 = 5.00
 *   ORDER_LOADER_TEST_HOLD_AFTER=staged_checkpoint:3 order-loader load inbox --archive-dir arch --batch-size 1 --settle 0, kill -9 at the hold
 *   order-loader load inbox/a.csv --archive-dir arch --settle 0   → exit 2, a.csv moved to arch/load1-a.csv
 *   order-loader load inbox --archive-dir arch --settle 0         → exit 2, b.csv archived, orders empty
 *
 * PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, loadKilledAtCheckpoint, runCli, survivalPath } from './harness.js';
import { SURVIVAL_TARGETS } from './targets.js';

const HEADER = 'source_key,customer_id,order_date,amount,currency';

describe('survival: a part of a killed set loaded alone with --archive-dir', () => {
  for (const target of SURVIVAL_TARGETS) {
    // KNOWN BUG: the part run archives a file whose rows the set holds; the set can never be loaded whole again
    it.skip(`${target.kind}: the inbox's rerun still releases the set's rows`, async () => {
      assertBuilt();
      const db = await target.create();
      try {
        const base = survivalPath(`archived-part-${target.kind}`);
        const inbox = join(base, 'inbox');
        const archive = join(base, 'archive');
        mkdirSync(inbox, { recursive: true });
        mkdirSync(archive, { recursive: true });
        writeFileSync(join(inbox, 'a.csv'), `${HEADER}\nK1,1,2026-11-01,1.00,JPY\nA1,1,2026-11-01,1.00,JPY\nA1,1,2026-11-01,2.00,JPY\n`);
        writeFileSync(join(inbox, 'b.csv'), `${HEADER}\nB1,1,2026-11-01,5.00,JPY\nB1,1,2026-11-01,6.00,JPY\nK1,1,2026-11-01,5.00,JPY\n`);
        // killed after a.csv's three lines (checkpoints 1-3), b.csv not begun
        await loadKilledAtCheckpoint([inbox, '--db', db.url, '--batch-size', '1', '--archive-dir', archive], 3);

        const part = await runCli(['load', join(inbox, 'a.csv'), '--archive-dir', archive, '--db', db.url, '--settle', '0']);
        expect(part.code, part.stderr).toBe(2);
        const rerun = await runCli(['load', inbox, '--archive-dir', archive, '--db', db.url, '--settle', '0']);
        expect(rerun.signal, rerun.stderr).toBeNull();
        const orders = await db.withSql((sql) => sql('SELECT source_key, amount::text AS amount FROM orders ORDER BY source_key'));
        expect(orders, part.stdout + rerun.stdout).toEqual([
          { source_key: 'A1', amount: '2.00' },
          { source_key: 'B1', amount: '6.00' },
          { source_key: 'K1', amount: '5.00' },
        ]);
      } finally {
        await db.dispose();
      }
    }, 300_000);
  }
});
