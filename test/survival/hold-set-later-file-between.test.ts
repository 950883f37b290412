/**
 * A load of an inbox killed inside b.csv, then a later file of the same inbox (c.csv) loaded
 * alone, then the whole inbox again. Uninterrupted, the inbox run ends with c.csv's line of K1
 * (c.csv follows b.csv) and the load of c.csv alone afterwards skips it (already staged): the
 * outcome must not depend on where the first run was killed. But the rerun resumes b.csv after
 * c.csv was staged, so b.csv's earlier line of K1 is staged over c.csv's and merged.
 * a.csv: A1 twice; b.csv: B1 twice, then K1 = 100; c.csv: K1 = 300 (valid: K1 must end 300) or
 * no amount (invalid: K1 must not reach orders). A1 and B1 repeat in their file so that the
 * killed run holds a row of each of its loads (all of which `recover` then gives up). Also with `recover --older-than` between the load of c.csv
 * and the rerun: the operator gives the holds up, yet the rerun still stages the set in order.
 *
 * PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, loadKilledAtCheckpoint, runCli, sleep, survivalPath } from './harness.js';
import { SURVIVAL_TARGETS } from './targets.js';

const HEADER = 'source_key,customer_id,order_date,amount,currency';

function writeInbox(base: string, k1InC: string): string {
  const inbox = join(base, 'inbox');
  mkdirSync(inbox, { recursive: true });
  writeFileSync(join(inbox, 'a.csv'), `${HEADER}\nA1,1,2026-11-01,1.00,JPY\nA1,1,2026-11-01,2.00,JPY\n`);
  writeFileSync(join(inbox, 'b.csv'), `${HEADER}\nB1,1,2026-11-01,5.00,JPY\nB1,1,2026-11-01,6.00,JPY\nK1,1,2026-11-01,100.00,JPY\n`);
  writeFileSync(join(inbox, 'c.csv'), `${HEADER}\nK1,1,2026-11-01,${k1InC},JPY\n`);
  return inbox;
}

// The part's c.csv joins the killed run's set (every row HELD) and marks it to be staged again:
// the rerun stages a.csv, b.csv and c.csv again as new loads, in order (src/pipeline/load-holds.ts).
describe('survival: a later file of a killed set loaded alone before the rerun', () => {
  for (const target of SURVIVAL_TARGETS) {
    for (const [k1InC, expected, giveUp] of [
      ['300.00', [{ amount: '300.00' }], false],
      ['', [], false],
      ['300.00', [{ amount: '300.00' }], true],
    ] as const) {
      it(`${target.kind}: c.csv's K1 (${k1InC === '' ? 'invalid' : k1InC}) stays the last line of K1 when b.csv is resumed after it${giveUp ? ', also once recover gave the holds up' : ''}`, async () => {
        assertBuilt();
        const db = await target.create();
        try {
          const inbox = writeInbox(survivalPath(`later-file-between-${target.kind}`), k1InC);
          // killed inside b.csv: a.csv's lines (checkpoints 1 and 2) and b.csv's first B1 (3) committed, K1 not yet
          await loadKilledAtCheckpoint([inbox, '--db', db.url, '--batch-size', '1'], 3);

          const part = await runCli(['load', join(inbox, 'c.csv'), '--db', db.url, '--settle', '0']);
          expect(part.signal, part.stderr).toBeNull();
          if (giveUp) {
            // the operator gives the set's holds up: the set's files are still staged again in order by the rerun
            await sleep(1500);
            const recovered = await runCli(['recover', '--older-than', '1s', '--db', db.url]);
            expect(recovered.code, recovered.stderr).toBe(0);
          }
          const rerun = await runCli(['load', inbox, '--db', db.url, '--settle', '0']);
          expect(rerun.signal, rerun.stderr).toBeNull();
          const k1 = await db.withSql((sql) => sql("SELECT amount::text AS amount FROM orders WHERE source_key = 'K1'"));
          expect(k1, part.stdout + rerun.stdout).toEqual(expected);
        } finally {
          await db.dispose();
        }
      }, 300_000);
    }
  }
});
