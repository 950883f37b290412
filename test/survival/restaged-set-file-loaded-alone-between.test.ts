/**
 * Adversary (minimised from bench/arrival-fuzz.js postgres seed 3859, FIRST=1). A load of the inbox
 * (m0.csv: B1, K1 = 1.00, R1 = 1.00, B2; m1.csv: C1, K1 = 3.00; m2.csv: D1, R1 = 2.00, K1 = 2.00)
 * is killed twice (after its first file's load began, then after m0.csv's B1: load 1 / the set).
 * `load inbox/m2.csv` (a part of the set, load 3), a rerun killed before its first batch, then
 * z.csv (K1 = 5.00) arrives in the inbox and is loaded alone (load 5, staged whole), and two reruns
 * are killed after their first batch. The last rerun stages the set again (m0, m1, m2 as loads 8-10;
 * z.csv skipped, staged). A set staged again counts as begun where the set began (load 1), its files
 * in the set's order: also m1.csv, which it never began, and m2.csv, loaded alone meanwhile (that
 * alone load, 3, stands at its own place). z.csv's load began after load 1 and after load 3: K1 must
 * end 5.00. Counting m1.csv at its new load and m2.csv at load 3 (the guard before load_place,
 * migration 021), m1.csv staged its K1 over z.csv's and m2.csv K1 = 2.00 over it: 2.00, an order no
 * reading gives.
 *
 * PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, loadKilledAtCheckpoint, runCli, startCli, survivalPath } from './harness.js';
import { SURVIVAL_TARGETS } from './targets.js';

const HEADER = 'source_key,customer_id,order_date,amount,currency';
const line = (key: string, amount: string) => `${key},1,2026-11-01,${amount},JPY`;

describe('survival: a killed set, a part and a new file loaded alone between kills, then the rerun', () => {
  for (const target of SURVIVAL_TARGETS) {
    it(`${target.kind}: K1 ends with z.csv's line`, async () => {
      assertBuilt();
      const db = await target.create();
      try {
        const dir = survivalPath(`restaged-set-file-alone-between-${target.kind}`);
        const inbox = join(dir, 'in');
        mkdirSync(inbox, { recursive: true });
        mkdirSync(join(dir, 'other'));
        const write = (name: string, lines: string[]) => writeFileSync(join(inbox, name), `${HEADER}\n${lines.join('\n')}\n`);
        write('m0.csv', [line('B1', '1.00'), line('K1', '1.00'), line('R1', '1.00'), line('B2', '1.00')]);
        write('m1.csv', [line('C1', '1.00'), line('K1', '3.00')]);
        write('m2.csv', [line('D1', '1.00'), line('R1', '2.00'), line('K1', '2.00')]);
        const first = startCli(['load', inbox, '--db', db.url, '--batch-size', '1', '--settle', '0'], {
          env: { ORDER_LOADER_TEST_HOLD_AFTER: 'invoked:1' },
        });
        expect(await first.waitFor(/holding after invoked #1/)).toBe(true);
        first.child.kill('SIGKILL');
        await first.done;
        await loadKilledAtCheckpoint([inbox, '--db', db.url, '--batch-size', '1'], 1);
        const part = await runCli(['load', join(inbox, 'm2.csv'), '--db', db.url, '--settle', '0']);
        const second = startCli(['load', inbox, '--db', db.url, '--batch-size', '1', '--settle', '0'], {
          env: { ORDER_LOADER_TEST_HOLD_AFTER: 'invoked:1' },
        });
        expect(await second.waitFor(/holding after invoked #1/)).toBe(true);
        second.child.kill('SIGKILL');
        await second.done;
        write('z.csv', [line('K1', '5.00')]);
        const alone = await runCli(['load', join(inbox, 'z.csv'), '--db', db.url, '--settle', '0']);
        await loadKilledAtCheckpoint([inbox, '--db', db.url, '--batch-size', '1'], 1);
        await loadKilledAtCheckpoint([inbox, '--db', db.url, '--batch-size', '1'], 1);
        const rerun = await runCli(['load', inbox, '--db', db.url, '--settle', '0']);
        const processed = await runCli(['process', '--db', db.url]);
        expect(processed.code, processed.stderr).toBe(0);
        const rows = await db.withSql((sql) =>
          sql("SELECT source_key, amount::text AS amount FROM orders WHERE source_key IN ('K1', 'R1') ORDER BY 1"),
        );
        const said = [part, alone, rerun].map((r) => `exit ${String(r.code)}\n${r.stdout}\n${r.stderr.slice(-1500)}`).join('\n---\n');
        expect(rows, said).toEqual([
          { source_key: 'K1', amount: '5.00' },
          { source_key: 'R1', amount: '2.00' },
        ]);
      } finally {
        await db.dispose();
      }
    }, 300_000);
  }
});
