/**
 * A part of a killed set loaded alone stands at its own place, also when the set's file comes back
 * changed before the rerun. A load of the inbox (m0.csv: B1, K1 = 1.00, B2; m1.csv: C1; m2.csv: D1,
 * K1 = 2.00) is killed after m0.csv's B1 (load 1, the set). `load inbox/m2.csv` (a part: load 2,
 * which takes m2.csv's place in the set, the set's run never began it). Then m2.csv is sent again,
 * corrected (D1, K1 = 9.00), and the inbox is rerun: it stages the set again (m0.csv, m1.csv and
 * the new m2.csv as new loads), at the set's first load, in the set's order. Load 2 began after
 * load 1 and is a load of its own at its own place (migration 021 records it so when it joins the
 * set, src/pipeline/file-holds.ts foreignPlan): the set's files yield K1 to it, the new m2.csv too.
 * Its rows stay HELD (an earlier load of m2.csv that the rerun did not stage again, said as
 * stranded) until `recover` gives them up: K1 ends 2.00. Moved to the set's place of m2.csv (the
 * place the set's own loads take when it is staged again), load 2 stood where the new m2.csv does,
 * which then staged K1 = 9.00 over it.
 *
 * And with a second killed run between (it resumed load 1 and began m1.csv: load L, R1 = 3.00),
 * the part joining both sets and the new m2.csv (D1, K1 = 2.00, R1 = 9.00): the rerun stages both
 * sets again at load 1 (the first set's places). m1.csv staged again stands for load L too (the
 * second set's load of that place, recorded at the set's place): the new m2.csv, after it in the
 * set's order, stages R1 = 9.00 over L's row. Left at its id, L was later than the set's files and
 * R1 ended 3.00.
 *
 * PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, loadKilledAtCheckpoint, runCli, sleep, survivalPath } from './harness.js';
import { SURVIVAL_TARGETS } from './targets.js';

const HEADER = 'source_key,customer_id,order_date,amount,currency';
const line = (key: string, amount: string) => `${key},1,2026-11-01,${amount},JPY`;

/** The inbox's set killed (once, or twice: `rerunKilled`), m2.csv loaded alone, sent again as `resent`, the rerun, recover, process: B2, K1, R1 in orders. */
async function scenario(
  target: (typeof SURVIVAL_TARGETS)[number],
  name: string,
  files: { m0: string[]; m1: string[]; m2: string[]; resent: string[] },
  rerunKilled: boolean,
): Promise<{ rows: unknown[]; said: string }> {
  const db = await target.create();
  try {
    const dir = survivalPath(`${name}-${target.kind}`);
    const inbox = join(dir, 'in');
    mkdirSync(inbox, { recursive: true });
    const write = (file: string, lines: string[]) => writeFileSync(join(inbox, file), `${HEADER}\n${lines.join('\n')}\n`);
    write('m0.csv', files.m0);
    write('m1.csv', files.m1);
    write('m2.csv', files.m2);
    await loadKilledAtCheckpoint([inbox, '--db', db.url, '--batch-size', '1'], 1);
    // resumes m0.csv (K1, B2: checkpoints 1, 2), then begins m1.csv (C1, R1: 3, 4)
    if (rerunKilled) await loadKilledAtCheckpoint([inbox, '--db', db.url, '--batch-size', '1'], 4);
    const part = await runCli(['load', join(inbox, 'm2.csv'), '--db', db.url, '--settle', '0']);
    write('m2.csv', files.resent);
    const rerun = await runCli(['load', inbox, '--db', db.url, '--settle', '0']);
    await sleep(1100);
    const recovered = await runCli(['recover', '--older-than', '1s', '--db', db.url]);
    const processed = await runCli(['process', '--db', db.url]);
    expect(processed.code, processed.stderr).toBe(0);
    const places = await db.withSql((sql) =>
      sql('SELECT load_id::int AS load_id, began_at::int AS began_at, place FROM load_place ORDER BY load_id'),
    );
    const rows = await db.withSql((sql) =>
      sql("SELECT source_key, amount::text AS amount FROM orders WHERE source_key IN ('B2', 'K1', 'R1') ORDER BY 1"),
    );
    const said = [part, rerun, recovered].map((r) => `exit ${String(r.code)}\n${r.stdout}\n${r.stderr.slice(-1500)}`).join('\n---\n');
    return { rows, said: `${JSON.stringify(places)}\n${said}` };
  } finally {
    await db.dispose();
  }
}

describe('survival: a part of a killed set loaded alone, the file sent again changed, then the rerun', () => {
  for (const target of SURVIVAL_TARGETS) {
    it(`${target.kind}: K1 ends with the part's line`, async () => {
      assertBuilt();
      const m0 = [line('B1', '1.00'), line('K1', '1.00'), line('B2', '1.00')];
      const m2 = [line('D1', '1.00'), line('K1', '2.00')];
      const { rows, said } = await scenario(
        target,
        'restaged-set-part-resent',
        { m0, m1: [line('C1', '1.00')], m2, resent: [line('D1', '1.00'), line('K1', '9.00')] },
        false,
      );
      expect(rows, said).toEqual([
        { source_key: 'B2', amount: '1.00' },
        { source_key: 'K1', amount: '2.00' },
      ]);
    }, 300_000);

    it(`${target.kind}, a rerun killed inside m1.csv before the part: R1 ends with the new m2.csv's line`, async () => {
      assertBuilt();
      const m0 = [line('B1', '1.00'), line('K1', '1.00'), line('B2', '1.00')];
      const m2 = [line('D1', '1.00'), line('K1', '2.00')];
      const resent = [line('D1', '1.00'), line('K1', '2.00'), line('R1', '9.00')];
      const { rows, said } = await scenario(
        target,
        'restaged-set-part-resent-rerun',
        { m0, m1: [line('C1', '1.00'), line('R1', '3.00')], m2, resent },
        true,
      );
      expect(rows, said).toEqual([
        { source_key: 'B2', amount: '1.00' },
        { source_key: 'K1', amount: '2.00' },
        { source_key: 'R1', amount: '9.00' },
      ]);
    }, 300_000);
  }
});
