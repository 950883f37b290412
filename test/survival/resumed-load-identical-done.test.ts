/**
 * Load order is the order in which loads begin, and a resumed load never stages its line of a key
 * over the line of a load begun after it (src/pipeline/stage.ts, yieldToLaterLoads). Here the
 * later load's line is identical to the key's DONE row: staging leaves such a row untouched, load
 * id included (it keeps the load that made it DONE), so nothing in order_stage says that a load
 * begun after the resumed one has the key: order_stage_unchanged (migration 020) does. z.csv loads K1 = 5.00 (DONE); a load of the inbox
 * (b.csv: B1, K1 = 1.00, B2; c.csv: C1) is killed; `load a.csv` (K1 = 5.00 and A1, from another folder)
 * runs; then the inbox's rerun resumes b.csv. a.csv's load began after b.csv's, so K1 must end
 * 5.00 wherever the first run was killed.
 *
 * Checkpoint 1: killed before b.csv's K1 line committed, K1's row is still z.csv's (older than
 * b.csv's load); a.csv's identical line leaves it so and records a.csv's load for K1 in
 * order_stage_unchanged, and the resume leaves its K1 line out (later_load_keys.sql), said in the log.
 * Without that record the resume staged 1.00 over the row. Checkpoint 2: killed after it
 * committed, a.csv's line changed the row (load id a.csv's) and the resume passes over K1.
 *
 * PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, loadKilledAtCheckpoint, runCli, survivalPath } from './harness.js';
import { SURVIVAL_TARGETS } from './targets.js';

const HEADER = 'source_key,customer_id,order_date,amount,currency';

describe('survival: a resumed load and a later load whose line equals the DONE row', () => {
  for (const target of SURVIVAL_TARGETS) {
    // checkpoint 1: b.csv's B1 committed, K1 not; 2: b.csv's K1 committed
    for (const checkpoint of [1, 2]) {
      it(`${target.kind}: killed at checkpoint ${checkpoint}, K1 ends with a.csv's line`, async () => {
        assertBuilt();
        const db = await target.create();
        try {
          const dir = survivalPath(`identical-done-${target.kind}-${checkpoint}`);
          const inbox = join(dir, 'in');
          const other = join(dir, 'other');
          mkdirSync(inbox, { recursive: true });
          mkdirSync(other, { recursive: true });
          writeFileSync(join(other, 'z.csv'), `${HEADER}\nK1,1,2026-11-01,5.00,JPY\n`);
          const first = await runCli(['load', join(other, 'z.csv'), '--db', db.url, '--settle', '0']);
          expect(first.code, first.stderr).toBe(0);
          writeFileSync(join(inbox, 'b.csv'), `${HEADER}\nB1,1,2026-11-01,1.00,JPY\nK1,1,2026-11-01,1.00,JPY\nB2,1,2026-11-01,1.00,JPY\n`);
          writeFileSync(join(inbox, 'c.csv'), `${HEADER}\nC1,1,2026-11-01,1.00,JPY\n`);
          await loadKilledAtCheckpoint([inbox, '--db', db.url, '--batch-size', '1'], checkpoint);

          // another file than z.csv (a line of its own): a new load, whose K1 line equals K1's DONE row
          writeFileSync(join(other, 'a.csv'), `${HEADER}\nK1,1,2026-11-01,5.00,JPY\nA1,1,2026-11-01,7.00,JPY\n`);
          const between = await runCli(['load', join(other, 'a.csv'), '--db', db.url, '--settle', '0']);
          expect(between.signal, between.stderr).toBeNull();
          const rerun = await runCli(['load', inbox, '--db', db.url, '--settle', '0']);
          expect(rerun.signal, rerun.stderr).toBeNull();
          const k1 = await db.withSql((sql) => sql("SELECT amount::text AS amount FROM orders WHERE source_key = 'K1'"));
          expect(k1, `${between.stdout}\n${rerun.stdout}`).toEqual([{ amount: '5.00' }]);
          if (checkpoint === 1) expect(rerun.stdout + rerun.stderr).toContain('1 line(s) of resumed load');
        } finally {
          await db.dispose();
        }
      }, 300_000);
    }
  }
});
