/**
 * A load of an inbox killed after its file set was recorded and a.csv's run started (its load
 * recorded) but before a.csv's first batch committed: the set holds a load with no row. Then a.csv
 * alone (a part of the set), then the inbox again. The part's history says nothing of a.csv was
 * committed, so it stages a.csv as a new load: that load is the set's a.csv now, and its rows are
 * HELD (exit 2) until the inbox's rerun stages the set whole. Merged by the part, K1 = 1.00 would
 * stay in orders for good: b.csv's K1 line (the last one) is invalid. K2 = 2.00, b.csv's line.
 *
 * PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, runCli, startCli, survivalPath } from './harness.js';
import { SURVIVAL_TARGETS } from './targets.js';

const HEADER = 'source_key,customer_id,order_date,amount,currency';

/** `load <args>` killed (-9) right after its first file's run recorded its load (`invoked`), before any batch. */
async function loadKilledAtFirstLoad(args: string[]): Promise<void> {
  const run = startCli(['load', ...args, '--settle', '0'], { env: { ORDER_LOADER_TEST_HOLD_AFTER: 'invoked:1' } });
  if (!(await run.waitFor(/holding after invoked #1/))) {
    const end = await run.done;
    throw new Error(`the load ended before its first file's load was recorded: ${end.stderr.slice(-2000)}`);
  }
  run.child.kill('SIGKILL');
  await run.done;
}

describe('survival: a part of a set killed before its first batch', () => {
  for (const target of SURVIVAL_TARGETS) {
    it(`${target.kind}: the part's new load is HELD and joins the set, whose rerun releases it`, async () => {
      assertBuilt();
      const db = await target.create();
      try {
        const inbox = join(survivalPath(`empty-load-part-${target.kind}`), 'inbox');
        mkdirSync(inbox, { recursive: true });
        writeFileSync(join(inbox, 'a.csv'), `${HEADER}\nK1,1,2026-11-01,1.00,JPY\nK2,1,2026-11-01,1.00,JPY\n`);
        writeFileSync(join(inbox, 'b.csv'), `${HEADER}\nK1,1,2026-11-01,,JPY\nK2,1,2026-11-01,2.00,JPY\n`);
        await loadKilledAtFirstLoad([inbox, '--db', db.url]);
        const state = await db.withSql((sql) =>
          sql<{ n: string }>(
            "SELECT (SELECT count(*) FROM load_hold_set WHERE file_name = 'a.csv' AND load_id IS NOT NULL)::text || '/' || (SELECT count(*) FROM order_stage)::text AS n",
          ),
        );
        // the set holds a.csv's load, which staged nothing
        expect(state).toEqual([{ n: '1/0' }]);

        const part = await runCli(['load', join(inbox, 'a.csv'), '--db', db.url, '--settle', '0']);
        expect(part.signal, part.stderr).toBeNull();
        const orders = async () =>
          db.withSql((sql) =>
            sql<{ source_key: string; amount: string }>('SELECT source_key, amount::text AS amount FROM orders ORDER BY 1'),
          );
        expect(await orders(), part.stdout).toEqual([]);
        expect(part.code, part.stdout).toBe(2);

        const rerun = await runCli(['load', inbox, '--db', db.url, '--settle', '0']);
        expect(rerun.signal, rerun.stderr).toBeNull();
        expect(await orders(), rerun.stdout).toEqual([{ source_key: 'K2', amount: '2.00' }]);
        const held = await db.withSql((sql) =>
          sql<{ n: string }>("SELECT count(*)::text AS n FROM order_stage WHERE process_status = 'HELD'"),
        );
        expect(held, rerun.stdout).toEqual([{ n: '0' }]);
      } finally {
        await db.dispose();
      }
    }, 300_000);
  }
});
