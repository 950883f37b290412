/**
 * A load of an inbox killed inside its first file, then a load of that file alone (a part of the
 * killed run's set), then the whole inbox again. The part resumes the file: the lines it stages
 * after the kill point are of keys the killed run's set repeats in a later file, yet the part's
 * own pre-read sees them once only, so it settles them (merges them) while staging; the set's
 * later line of the key (invalid) can no longer keep orders as it was. a.csv: K1 = 100 (staged,
 * HELD, before the kill), K2 = 1, K3 = 2; b.csv another key; c.csv K1 and K3 with no amount: the
 * last line of K1 and K3 is invalid, so neither may reach orders; K2 must. And a part that
 * carries the set on in its order (a.csv finished, then b.csv begun) is the set's, whether one
 * command or two did it: c.csv's later line of K4 (invalid) is its last.
 *
 * PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, loadKilledAtCheckpoint, runCli, survivalPath } from './harness.js';
import { SURVIVAL_TARGETS } from './targets.js';

const HEADER = 'source_key,customer_id,order_date,amount,currency';

function writeInbox(base: string): string {
  const inbox = join(base, 'inbox');
  mkdirSync(inbox, { recursive: true });
  writeFileSync(join(inbox, 'a.csv'), `${HEADER}\nK1,1,2026-11-01,100.00,JPY\nK2,1,2026-11-01,1.00,JPY\nK3,1,2026-11-01,2.00,JPY\n`);
  writeFileSync(join(inbox, 'b.csv'), `${HEADER}\nB1,1,2026-11-01,5.00,JPY\n`);
  writeFileSync(join(inbox, 'c.csv'), `${HEADER}\nK1,1,2026-11-01,,JPY\nK3,1,2026-11-01,,JPY\n`);
  return inbox;
}

/**
 * The inbox (b.csv with K4 = 4.00, c.csv with K4 invalid) loaded and killed inside a.csv (its
 * first line committed, b.csv not begun), then each of `parts` loaded (one command each, files
 * of the inbox), then the whole inbox again: the keys in orders and what the commands printed.
 */
async function partsThenRerun(
  target: (typeof SURVIVAL_TARGETS)[number],
  name: string,
  parts: readonly string[][],
): Promise<{ keys: string[]; output: string }> {
  assertBuilt();
  const db = await target.create();
  try {
    const inbox = writeInbox(survivalPath(`${name}-${target.kind}`));
    writeFileSync(join(inbox, 'b.csv'), `${HEADER}\nB1,1,2026-11-01,5.00,JPY\nK4,1,2026-11-01,4.00,JPY\n`);
    writeFileSync(join(inbox, 'c.csv'), `${HEADER}\nK1,1,2026-11-01,,JPY\nK3,1,2026-11-01,,JPY\nK4,1,2026-11-01,,JPY\n`);
    await loadKilledAtCheckpoint([inbox, '--db', db.url, '--batch-size', '1'], 1);
    let output = '';
    for (const files of [...parts.map((p) => p.map((f) => join(inbox, f))), [inbox]]) {
      const run = await runCli(['load', ...files, '--db', db.url, '--settle', '0']);
      expect(run.signal, run.stderr).toBeNull();
      output += run.stdout;
    }
    const orders = await db.withSql((sql) => sql<{ source_key: string }>('SELECT source_key FROM orders ORDER BY 1'));
    return { keys: orders.map((r) => r.source_key), output };
  } finally {
    await db.dispose();
  }
}

// A run of part of a killed set holds every row it stages into that set's loads, and of a file
// the set's run had not begun, until a run stages the whole set (src/pipeline/load-holds.ts).
describe('survival: a part of a killed set that resumes a file the killed run began', () => {
  for (const target of SURVIVAL_TARGETS) {
    it(`${target.kind}: the lines it stages after the kill point are not merged before the set's later lines`, async () => {
      assertBuilt();
      const db = await target.create();
      try {
        const inbox = writeInbox(survivalPath(`subset-resume-${target.kind}`));
        // killed inside a.csv: its first line (K1) committed and HELD, K2 and K3 not staged yet
        await loadKilledAtCheckpoint([inbox, '--db', db.url, '--batch-size', '1'], 1);

        const part = await runCli(['load', join(inbox, 'a.csv'), '--db', db.url, '--settle', '0']);
        expect(part.signal, part.stderr).toBeNull();
        const orders = async () =>
          db.withSql((sql) =>
            sql<{ source_key: string; amount: string }>('SELECT source_key, amount::text AS amount FROM orders ORDER BY 1'),
          );
        // K3's later line is in c.csv, a file of the killed run's set: not merged yet
        expect(
          (await orders()).map((r) => r.source_key),
          part.stdout,
        ).not.toContain('K3');

        const rerun = await runCli(['load', inbox, '--db', db.url, '--settle', '0']);
        expect(rerun.signal, rerun.stderr).toBeNull();
        expect(await orders(), rerun.stdout).toEqual([
          { source_key: 'B1', amount: '5.00' },
          { source_key: 'K2', amount: '1.00' },
        ]);
      } finally {
        await db.dispose();
      }
    }, 300_000);

    it(`${target.kind}: a file of the set the killed run had not begun, staged by a part of the set, is not merged before the set's later lines`, async () => {
      const { keys, output } = await partsThenRerun(target, 'subset-unbegun', [['a.csv', 'b.csv']]);
      // K4's last line (c.csv) is invalid: b.csv's K4 never reaches orders (nor K3, as above)
      expect(keys, output).toEqual(['B1', 'K2']);
    }, 300_000);

    it(`${target.kind}: a part that finishes the file the killed run began, then another command for the next file, carries the set on as one command would`, async () => {
      // `load a.csv b.csv` as two commands: a.csv's load is finished by the first, not by b.csv's run
      const { keys, output } = await partsThenRerun(target, 'subset-two-commands', [['a.csv'], ['b.csv']]);
      // b.csv carried the set on in its order: c.csv's K4 (invalid) is the last line of K4, as with one command
      expect(keys, output).toEqual(['B1', 'K2']);
    }, 300_000);
  }
});
