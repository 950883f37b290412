/**
 * Two loads of the same named files at once on a server database (no inbox, so no inbox lock:
 * two cron entries, or an operator rerunning by hand while the night's run is still going).
 * a.csv gives 300 keys a valid amount, b.csv 300 other keys, c.csv repeats the 300 keys of
 * a.csv with no amount: every key's last line is invalid, so no key of a.csv may reach orders.
 * The first run stages one line per batch; once it is inside a.csv, the second (one batch per
 * file) runs the set to its end. The slow run, still in a.csv, then writes a.csv's lines over
 * c.csv's in the stage, finds c.csv already staged by the other run (skipped), and releases its
 * holds: a.csv's values were merged (204 of the 300 keys on a first try).
 *
 * Server PostgreSQL only (ORDER_LOADER_TEST_PG): a PGlite folder is one process's at a time.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PG_ADMIN_URL, PG_SKIP_REASON, assertBuilt, freshServerDb, runCli, startCli, survivalPath } from './harness.js';

const HEADER = 'source_key,customer_id,order_date,amount,currency';
const KEYS = 300;

function writeSet(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const lines = (f: (i: number) => string) => `${HEADER}\n${Array.from({ length: KEYS }, (_, i) => f(i)).join('\n')}\n`;
  writeFileSync(
    join(dir, 'a.csv'),
    lines((i) => `K${i},${i + 1},2026-11-01,${100 + i}.00,JPY`),
  );
  writeFileSync(
    join(dir, 'b.csv'),
    lines((i) => `B${i},${i + 1},2026-11-02,1.00,JPY`),
  );
  writeFileSync(
    join(dir, 'c.csv'),
    lines((i) => `K${i},${i + 1},2026-11-03,,JPY`),
  );
  return ['a.csv', 'b.csv', 'c.csv'].map((n) => join(dir, n));
}

// A KNOWN BUG today (server PostgreSQL; failed 2 of 2 runs when found): two loads of the same
// named files at once can merge an overridden line. Named files take no inbox lock, so nothing
// keeps two runs from staging one file's load at the same time. Skipped until fixed (a lock per
// file identity while it is staged); docs/operations.md tells users to load such files from an
// inbox, whose lock serializes runs.
describe.skip(`survival: two loads of the same files at once${PG_ADMIN_URL === null ? ` (${PG_SKIP_REASON})` : ''}`, () => {
  it('postgres: a slow run still in the first file when a faster one ends the set never merges a line the set overrides', async () => {
    assertBuilt();
    const db = await freshServerDb();
    try {
      const files = writeSet(survivalPath('overlapping-named-loads'));
      expect((await runCli(['init', '--db', db.url])).code).toBe(0);
      const slow = startCli(['load', ...files, '--db', db.url, '--settle', '0', '--batch-size', '1', '--log-level', 'debug']);
      // inside a.csv: some of its lines committed, most not yet
      expect(await slow.waitFor(/"line":20,.*"msg":"staging batch committed"/), 'the slow run reached a.csv').toBe(true);
      const fast = await runCli(['load', ...files, '--db', db.url, '--settle', '0', '--batch-size', '5000']);
      expect(fast.code, fast.stderr).toBe(2);
      const slowEnd = await slow.done;
      expect(slowEnd.code, slowEnd.stderr.slice(-2000)).toBe(2);
      const merged = await db.sql<{ source_key: string; amount: string }>(
        "SELECT source_key, amount::text AS amount FROM orders WHERE source_key LIKE 'K%' ORDER BY source_key LIMIT 5",
      );
      expect(merged, 'keys of a.csv in orders although their last line (c.csv) is invalid').toEqual([]);
      const stage = await db.sql<{ process_status: string; n: number }>(
        "SELECT process_status, count(*)::int AS n FROM order_stage WHERE source_key LIKE 'K%' GROUP BY 1",
      );
      expect(stage).toEqual([{ process_status: 'ERROR', n: KEYS }]);
    } finally {
      await db.dispose();
    }
  }, 300_000);
});
