/**
 * A killed load of an inbox (b.csv, c.csv), then a new file a.csv that sorts before them arrives,
 * then the inbox's rerun. Load order is the order in which loads begin: b.csv's load began in the
 * killed run, before a.csv's, so a.csv's line of K1 (5.00) comes after b.csv's (1.00) and K1 must
 * end 5.00 wherever the first run was killed. The rerun first finishes what the killed run began
 * (it resumes b.csv), then stages a.csv and c.csv (src/pipeline/set-order.ts, resumesFirst).
 * Staged in name order instead (a.csv, then b.csv resumed), K1 ended 1.00 when the kill came
 * before b.csv's K1 line committed (the resume staged it over a.csv's) and 5.00 after it.
 * b.csv: B1, K1 = 1.00, B2; c.csv: C1; a.csv (new): K1 = 5.00.
 *
 * Also with a.csv loaded by a command of its own between the kill and the inbox's rerun (`load
 * inbox/a.csv`, or a.csv in another folder): a.csv's load begins after b.csv's there too.
 *
 * PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, loadKilledAtCheckpoint, runCli, survivalPath } from './harness.js';
import { SURVIVAL_TARGETS } from './targets.js';

const HEADER = 'source_key,customer_id,order_date,amount,currency';

/** Where a.csv arrives and what loads it before the inbox's rerun. */
type Arrival = 'inbox' | 'named' | 'other-folder';

describe('survival: a killed set, then a new file that sorts before it, then the rerun', () => {
  for (const target of SURVIVAL_TARGETS) {
    for (const arrival of ['inbox', 'named', 'other-folder'] as const satisfies readonly Arrival[]) {
      // checkpoint 1: b.csv's B1 committed, K1 not; 2: b.csv's K1 committed
      for (const checkpoint of [1, 2]) {
        it(`${target.kind}, a.csv ${arrival}: killed at checkpoint ${checkpoint}, K1 ends with a.csv's line`, async () => {
          assertBuilt();
          const db = await target.create();
          try {
            const dir = survivalPath(`new-file-before-${target.kind}-${arrival}-${checkpoint}`);
            const inbox = join(dir, 'in');
            mkdirSync(inbox, { recursive: true });
            writeFileSync(
              join(inbox, 'b.csv'),
              `${HEADER}\nB1,1,2026-11-01,1.00,JPY\nK1,1,2026-11-01,1.00,JPY\nB2,1,2026-11-01,1.00,JPY\n`,
            );
            writeFileSync(join(inbox, 'c.csv'), `${HEADER}\nC1,1,2026-11-01,1.00,JPY\n`);
            await loadKilledAtCheckpoint([inbox, '--db', db.url, '--batch-size', '1'], checkpoint);

            const a = join(arrival === 'other-folder' ? join(dir, 'other') : inbox, 'a.csv');
            mkdirSync(join(a, '..'), { recursive: true });
            writeFileSync(a, `${HEADER}\nK1,1,2026-11-01,5.00,JPY\n`);
            const between = arrival === 'inbox' ? null : await runCli(['load', a, '--db', db.url, '--settle', '0']);
            expect(between?.signal ?? null, between?.stderr).toBeNull();
            const rerun = await runCli(['load', inbox, '--db', db.url, '--settle', '0']);
            expect(rerun.signal, rerun.stderr).toBeNull();
            const k1 = await db.withSql((sql) => sql("SELECT amount::text AS amount FROM orders WHERE source_key = 'K1'"));
            expect(k1, `${between?.stdout ?? ''}\n${rerun.stdout}`).toEqual([{ amount: '5.00' }]);
          } finally {
            await db.dispose();
          }
        }, 300_000);
      }
    }
  }
});
