/**
 * A load of an inbox with --archive-dir killed after a.csv (b.csv not begun), then the operator
 * loads a.csv alone with the same --archive-dir (a part of the killed run's set), then the inbox
 * again. Archived by the part run (as `load1-a.csv`, a base name no longer of the set), a.csv
 * would leave the inbox's rerun with b.csv alone, a part again, and no run could complete the set:
 * every key out of `orders` until `recover --older-than`. The part run leaves a.csv where it is
 * and says why (exit 2: its rows stay HELD); the inbox's rerun stages the set whole, releases it
 * (K1 = 5.00, b.csv's line; A1 = 2.00; B1 = 6.00) and archives both files.
 *
 * PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, loadKilledAtCheckpoint, runCli, survivalPath } from './harness.js';
import { SURVIVAL_TARGETS } from './targets.js';

const HEADER = 'source_key,customer_id,order_date,amount,currency';

describe('survival: a part of a killed set loaded alone with --archive-dir', () => {
  for (const target of SURVIVAL_TARGETS) {
    it(`${target.kind}: the inbox's rerun still releases the set's rows`, async () => {
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
        expect(part.stdout).toContain(
          'a.csv: left where it is, not archived: load 1 is held by the file set of a run stopped before it staged them all',
        );
        expect(readdirSync(inbox).sort()).toEqual(['a.csv', 'b.csv']);
        const rerun = await runCli(['load', inbox, '--archive-dir', archive, '--db', db.url, '--settle', '0']);
        expect(rerun.signal, rerun.stderr).toBeNull();
        const orders = await db.withSql((sql) => sql('SELECT source_key, amount::text AS amount FROM orders ORDER BY source_key'));
        expect(orders, part.stdout + rerun.stdout).toEqual([
          { source_key: 'A1', amount: '2.00' },
          { source_key: 'B1', amount: '6.00' },
          { source_key: 'K1', amount: '5.00' },
        ]);
        expect(rerun.code, rerun.stdout).toBe(0);
        expect(readdirSync(inbox).filter((f) => f.endsWith('.csv'))).toEqual([]);
      } finally {
        await db.dispose();
      }
    }, 300_000);
  }
});
