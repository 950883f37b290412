/**
 * Adversary: a database upgraded to migration 021 (load_place) while a set staged again is
 * unfinished. A load of the inbox (m0.csv: B1, K1 = 1.00, R1 = 1.00, B2; m1.csv: C1; m2.csv: D1,
 * R1 = 2.00) is killed after m0.csv's B1 (load 1, the set); other/x.csv (X0, X1, K1 = 7.00) is
 * killed after X0 (load 2, begun after the set); `load inbox/m2.csv` (a part) marks the set to be
 * staged again; the inbox's rerun is killed after the set's m0.csv, staged again, staged K1 = 1.00.
 * Then the database is upgraded: migration 021 adds load_place empty, so no place says that the
 * rerun's load of m0.csv stands at load 1 (a version before 021 kept it in memory only). Here the
 * table is emptied, the state such an upgrade leaves. The rerun of x.csv resumes load 2, which
 * began after the set's first load, so K1 must end 7.00 (docs/operations.md, "a file set staged
 * again counts as begun where the set began"). Observed on h38pos 54ecf12, PGlite and PostgreSQL (the same
 * sequence run by main's 7ebad6d CLI up to the upgrade gave the same): 1.00; x.csv's K1 yields to
 * the rerun's load of m0.csv, which without a place stands at its own, greater id. The sets still
 * say where it stands: the killed rerun's own set (not a part's) stages whole the set marked to be
 * staged again, and its load of m0.csv began after that set's first load, so it stands at (1, 1)
 * (restaged-sets.ts, derivedPlaces; load-places.ts records it when a run first reads it).
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

describe('survival: upgraded to load_place while a set staged again is unfinished', () => {
  for (const target of SURVIVAL_TARGETS) {
    it(`${target.kind}: K1 ends with x.csv's line`, async () => {
      assertBuilt();
      const db = await target.create();
      try {
        const dir = survivalPath(`upgrade-restaged-set-places-${target.kind}`);
        const inbox = join(dir, 'in');
        mkdirSync(inbox, { recursive: true });
        mkdirSync(join(dir, 'other'));
        const write = (name: string, lines: string[]) => writeFileSync(join(inbox, name), `${HEADER}\n${lines.join('\n')}\n`);
        write('m0.csv', [line('B1', '1.00'), line('K1', '1.00'), line('R1', '1.00'), line('B2', '1.00')]);
        write('m1.csv', [line('C1', '1.00')]);
        write('m2.csv', [line('D1', '1.00'), line('R1', '2.00')]);
        const x = join(dir, 'other', 'x.csv');
        writeFileSync(x, `${HEADER}\n${[line('X0', '1.00'), line('X1', '1.00'), line('K1', '7.00')].join('\n')}\n`);
        await loadKilledAtCheckpoint([inbox, '--db', db.url, '--batch-size', '1'], 1);
        await loadKilledAtCheckpoint([x, '--db', db.url, '--batch-size', '1'], 1);
        const part = await runCli(['load', join(inbox, 'm2.csv'), '--db', db.url, '--settle', '0']);
        await loadKilledAtCheckpoint([inbox, '--db', db.url, '--batch-size', '1'], 3);
        await db.withSql((sql) => sql('DELETE FROM load_place'));
        const resumed = await runCli(['load', x, '--db', db.url, '--settle', '0']);
        const rerun = await runCli(['load', inbox, '--db', db.url, '--settle', '0']);
        const processed = await runCli(['process', '--db', db.url]);
        expect(processed.code, processed.stderr).toBe(0);
        const rows = await db.withSql((sql) =>
          sql("SELECT source_key, amount::text AS amount FROM orders WHERE source_key IN ('K1', 'R1') ORDER BY 1"),
        );
        const said = [part, resumed, rerun].map((r) => `exit ${String(r.code)}\n${r.stdout}\n${r.stderr.slice(-1500)}`).join('\n---\n');
        expect(rows, said).toEqual([
          { source_key: 'K1', amount: '7.00' },
          { source_key: 'R1', amount: '2.00' },
        ]);
      } finally {
        await db.dispose();
      }
    }, 300_000);
  }
});
