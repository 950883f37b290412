/**
 * Exit 0 means every row of the given files ended DONE. On a server, a run of a.csv alone while
 * another run of a.csv and b.csv (a key on a line of each) stages b.csv: the first run's row of
 * that key in a.csv is HELD until that run's staging ends, so the run of a.csv alone (it skips
 * a.csv, staged already) cannot end with every row DONE: it exits 2, and the row stays out of
 * orders until the other run staged b.csv, whose line then wins.
 *
 * Server PostgreSQL only (ORDER_LOADER_TEST_PG): an embedded database's folder is one process's
 * at a time, so two runs never meet there.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, runCli, startCli, survivalPath } from './harness.js';
import { SURVIVAL_TARGETS } from './targets.js';

const HEADER = 'source_key,customer_id,order_date,amount,currency';

describe('survival: a run whose file has rows another running run holds', () => {
  for (const target of SURVIVAL_TARGETS.filter((t) => t.kind === 'postgres')) {
    it(`${target.kind}: exits 2 while that row is HELD, and the other run's later line wins`, async () => {
      assertBuilt();
      const db = await target.create();
      try {
        const dir = survivalPath(`held-by-running-run-${target.kind}`);
        mkdirSync(dir, { recursive: true });
        const a = join(dir, 'a.csv');
        const b = join(dir, 'b.csv');
        writeFileSync(a, `${HEADER}\nK1,1,2026-11-01,1.00,JPY\nA2,1,2026-11-01,2.00,JPY\n`);
        writeFileSync(b, `${HEADER}\nB1,1,2026-11-01,5.00,JPY\nK1,1,2026-11-01,9.00,JPY\n`);
        const go = join(dir, 'go');
        // a.csv staged (checkpoints 1 and 2), then b.csv's first line: the run waits there
        const first = startCli(['load', a, b, '--db', db.url, '--batch-size', '1'], {
          env: { ORDER_LOADER_TEST_HOLD_AFTER: 'staged_checkpoint:3', ORDER_LOADER_TEST_HOLD_UNTIL: go },
        });
        expect(await first.waitFor(/holding after staged_checkpoint #3/)).toBe(true);

        const alone = await runCli(['load', a, '--db', db.url]);
        const orders = () =>
          db.withSql((sql) =>
            sql<{ source_key: string; amount: string }>('SELECT source_key, amount::text AS amount FROM orders ORDER BY 1'),
          );
        // processing beside the first run's staging may have merged B1 by now: never K1
        expect(
          (await orders()).map((r) => r.source_key),
          alone.stdout,
        ).not.toContain('K1');
        expect(alone.code, `${alone.stdout}\n${alone.stderr}`).toBe(2);

        writeFileSync(go, '');
        const ended = await first.done;
        expect(ended.code, ended.stderr).toBe(0);
        expect(await orders()).toEqual([
          { source_key: 'A2', amount: '2.00' },
          { source_key: 'B1', amount: '5.00' },
          { source_key: 'K1', amount: '9.00' },
        ]);
      } finally {
        await db.dispose();
      }
    }, 300_000);
  }
});
