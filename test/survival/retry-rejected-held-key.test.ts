/**
 * A load of an inbox killed after a.csv, whose line of K1 was rejected (ERROR, not HELD, though
 * K1 is repeated by b.csv, a file of the set not staged yet), then the operator's `retry` of K1,
 * then the rerun. The promise (docs/operations.md "Processing beside staging"): whatever runs
 * before the rerun — `retry` named — leaves the key out of `orders`, an earlier line never wins
 * over a later line in a file not staged yet; and when that later line is rejected, `orders`
 * keeps what it had before the run. The retry makes a.csv's row READY and merges it at once
 * (orders K1 = 3 while b.csv is not staged), and when b.csv's K1 is rejected too K1 stays 3 for
 * good — what only `recover --older-than` (the operator giving the set up) may allow. So retry
 * leaves the ERROR rows of a load an unfinished set holds as they are (lock_error_rows.sql), says
 * so, and retries them once the set's rerun staged it whole.
 * By hand:
 *   a.csv: K1,1,2026-11-01,abc,JPY / A1 twice; b.csv: K1,1,2026-11-01,5.00,JPY (or no amount)
 *   ORDER_LOADER_TEST_HOLD_AFTER=staged_checkpoint:3 order-loader load inbox --batch-size 1 --settle 0, kill -9 at the hold
 *   order-loader retry --source-key K1 --set amount=3 --reason x   → left as it is, exit 0 (was: orders K1 = 3.00)
 *   order-loader load inbox --settle 0                              → K1 = b.csv's line, or none when it is invalid
 *
 * PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, loadKilledAtCheckpoint, runCli, survivalPath } from './harness.js';
import { SURVIVAL_TARGETS } from './targets.js';

const HEADER = 'source_key,customer_id,order_date,amount,currency';

describe('survival: retry of a rejected row of a key a killed set holds', () => {
  for (const target of SURVIVAL_TARGETS) {
    for (const [k1InB, expected] of [
      ['5.00', [{ amount: '5.00' }]],
      ['', []],
    ] as const) {
      // retry leaves the ERROR rows of a load an unfinished set holds (lock_error_rows.sql)
      it(`${target.kind}: a retry of a.csv's K1 before the rerun never wins over b.csv's K1 (${k1InB === '' ? 'invalid' : k1InB})`, async () => {
        assertBuilt();
        const db = await target.create();
        try {
          const inbox = join(survivalPath(`retry-rejected-held-${target.kind}`), 'inbox');
          mkdirSync(inbox, { recursive: true });
          writeFileSync(join(inbox, 'a.csv'), `${HEADER}\nK1,1,2026-11-01,abc,JPY\nA1,1,2026-11-01,1.00,JPY\nA1,1,2026-11-01,2.00,JPY\n`);
          writeFileSync(join(inbox, 'b.csv'), `${HEADER}\nK1,1,2026-11-01,${k1InB},JPY\n`);
          // killed after a.csv's three lines (checkpoints 1-3), b.csv not begun
          await loadKilledAtCheckpoint([inbox, '--db', db.url, '--batch-size', '1'], 3);

          const retry = await runCli(['retry', '--source-key', 'K1', '--set', 'amount=3', '--reason', 'between', '--db', db.url]);
          expect(retry.signal, retry.stderr).toBeNull();
          // left ERROR and said, as a control-held load's rows are: not a failure of the retry
          expect(retry.code, retry.stderr).toBe(0);
          expect(retry.stdout).toMatch(/retry: changed 0 rows/);
          expect(retry.stdout).toMatch(
            /left 1 ERROR row of load \d+ as they are: the load is held by an unfinished set: rerun the set's files/,
          );
          const between = await db.withSql((sql) => sql("SELECT amount::text AS amount FROM orders WHERE source_key = 'K1'"));
          // b.csv's line of K1 is not staged yet: a.csv's earlier line must not be in orders
          expect(between, retry.stdout).toEqual([]);

          const rerun = await runCli(['load', inbox, '--db', db.url, '--settle', '0']);
          expect(rerun.signal, rerun.stderr).toBeNull();
          const k1 = await db.withSql((sql) => sql("SELECT amount::text AS amount FROM orders WHERE source_key = 'K1'"));
          expect(k1, rerun.stdout).toEqual(expected);
        } finally {
          await db.dispose();
        }
      }, 300_000);
    }
  }
});
