/**
 * A load of an inbox killed inside its third file, its holds given up by `recover --older-than`
 * (the operator's audited abandonment), then the whole inbox again: the rerun must hold the
 * given-up rows again before processing can take them (docs/operations.md: a rerun dates them
 * again; holds-between-runs.test.ts checks it for a first file). On a server, where `load`
 * processes beside staging, the rows of the second file (skipped: already staged) are merged
 * before the rerun reaches that file, so b.csv's lines win over d.csv's later (invalid) lines.
 * a.csv and b.csv: K0..K299 valid; c.csv: 3,000 other keys; d.csv: K0..K299 with no amount, so
 * no K may reach orders.
 *
 * PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, runCli, sleep, startCli, survivalPath } from './harness.js';
import { SURVIVAL_TARGETS } from './targets.js';

const HEADER = 'source_key,customer_id,order_date,amount,currency';

function writeInbox(base: string): string {
  const inbox = join(base, 'inbox');
  mkdirSync(inbox, { recursive: true });
  const lines = (n: number, f: (i: number) => string) => `${HEADER}\n${Array.from({ length: n }, (_, i) => f(i)).join('\n')}\n`;
  writeFileSync(
    join(inbox, 'a.csv'),
    lines(300, (i) => `K${i},1,2026-11-01,${100 + i}.00,JPY`),
  );
  writeFileSync(
    join(inbox, 'b.csv'),
    lines(300, (i) => `K${i},1,2026-11-01,${200 + i}.00,JPY`),
  );
  writeFileSync(
    join(inbox, 'c.csv'),
    lines(3000, (i) => `C${i},1,2026-11-02,1.00,JPY`),
  );
  writeFileSync(
    join(inbox, 'd.csv'),
    lines(300, (i) => `K${i},1,2026-11-03,,JPY`),
  );
  return inbox;
}

// On a server the rerun holds the loads it will skip or resume before its processing starts
// (holdBeforeProcessing in src/pipeline/load-file.ts).
describe('survival: recover gives a killed run’s holds up, then the set is loaded again', () => {
  for (const target of SURVIVAL_TARGETS) {
    it(`${target.kind}: the rerun holds the given-up rows of a skipped second file again before processing merges them`, async () => {
      assertBuilt();
      const db = await target.create();
      try {
        const inbox = writeInbox(survivalPath(`recover-then-rerun-${target.kind}`));
        // a.csv (3 batches), b.csv (3) and 2 batches of c.csv committed
        const run = startCli(['load', inbox, '--db', db.url, '--settle', '0', '--batch-size', '100'], {
          env: { ORDER_LOADER_TEST_HOLD_AFTER: 'staged_checkpoint:8' },
        });
        expect(await run.waitFor(/holding after staged_checkpoint #8/)).toBe(true);
        run.child.kill('SIGKILL');
        await run.done;
        await sleep(1500);
        const recovered = await runCli(['recover', '--older-than', '1s', '--db', db.url]);
        expect(recovered.stdout, recovered.stderr).toMatch(/changed 300 rows/);

        const rerun = await runCli(['load', inbox, '--db', db.url, '--settle', '0', '--batch-size', '100']);
        expect(rerun.code, rerun.stderr).toBe(2);
        const merged = await db.withSql((sql) => sql("SELECT count(*)::int AS n FROM orders WHERE source_key LIKE 'K%'"));
        expect(merged, `keys whose last line (d.csv) is invalid in orders\n${rerun.stdout}`).toEqual([{ n: 0 }]);
      } finally {
        await db.dispose();
      }
    }, 300_000);
  }
});
