/**
 * Adversary (found by bench/arrival-fuzz.ts's model oracle and a hand adversary): a part of a
 * killed set is itself killed, then the rerun stages the set again. A load of the inbox (m0.csv:
 * B1, R1; m1.csv: C1, K1 = 1.00, K2 = 1.00; m2.csv: D1, K1 = 2.00, K2 = 2.00) is killed after
 * m0.csv's B1 (load 1, the set). `load inbox/m1.csv` (a part: load 2, a load of its own begun after
 * the set's first load) is killed after C1 and K1 = 1.00 (batch size 1). The inbox's rerun stages
 * the set again (m0.csv, m1.csv, m2.csv as new loads at load 1, in the set's order). Load 2 began
 * after load 1: its lines stand after every file of the set staged again, and a run first finishes
 * what an earlier run began (docs/operations.md, "Load order is the order in which loads begin"),
 * so which line of a key wins must not depend on where the part was killed: killed or not, m1.csv's
 * lines win over m2.csv's. K1 and K2 must end 1.00: the rerun resumes load 2 at its own place
 * (file-holds.ts, partOwnLoad) rather than stage m1.csv again at the set's place.
 *
 * PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, loadKilledAtCheckpoint, runCli, survivalPath } from './harness.js';
import { SURVIVAL_TARGETS } from './targets.js';

const HEADER = 'source_key,customer_id,order_date,amount,currency';
const line = (key: string, amount: string) => `${key},1,2026-11-01,${amount},JPY`;

describe('survival: a killed part of a killed set, then the rerun', () => {
  for (const target of SURVIVAL_TARGETS) {
    it(`${target.kind}: K1 and K2 end with m1.csv's lines`, async () => {
      assertBuilt();
      const inbox = join(survivalPath(`restaged-set-killed-part-${target.kind}`), 'in');
      mkdirSync(inbox, { recursive: true });
      const files = {
        'm0.csv': [line('B1', '1.00'), line('R1', '1.00')],
        'm1.csv': [line('C1', '1.00'), line('K1', '1.00'), line('K2', '1.00')],
        'm2.csv': [line('D1', '1.00'), line('K1', '2.00'), line('K2', '2.00')],
      };
      for (const [name, lines] of Object.entries(files)) writeFileSync(join(inbox, name), `${HEADER}\n${lines.join('\n')}\n`);
      const db = await target.create();
      try {
        await loadKilledAtCheckpoint([inbox, '--db', db.url, '--batch-size', '1'], 1);
        await loadKilledAtCheckpoint([join(inbox, 'm1.csv'), '--db', db.url, '--batch-size', '1'], 2);
        const rerun = await runCli(['load', inbox, '--db', db.url, '--settle', '0']);
        const processed = await runCli(['process', '--db', db.url]);
        expect(processed.code, processed.stderr).toBe(0);
        const rows = await db.withSql((sql) => sql("SELECT source_key, amount::text AS amount FROM orders WHERE source_key LIKE 'K%'"));
        const amounts = Object.fromEntries(rows.map((r) => [String(r.source_key), String(r.amount)]));
        // killed after K1 or not killed at all, the part's m1.csv stands after the set staged again
        expect(amounts, `rerun exit ${String(rerun.code)}\n${rerun.stderr.slice(-1500)}`).toEqual({ K1: '1.00', K2: '1.00' });
      } finally {
        await db.dispose();
      }
    }, 300_000);
  }
});
