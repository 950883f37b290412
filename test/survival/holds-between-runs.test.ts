/**
 * A load of a multi-file inbox killed while it stages, an operator command, then the rerun: the
 * rows of the killed run's files whose key has a later line in the set stay unmergeable until the
 * set's staging ends, whatever runs in between (`process`, `retry`, another `load`, `recover` and
 * its `--dry-run`), on every engine. a.csv holds K1 = 100.00, b.csv 1,000 other keys, c.csv K1
 * again with no amount: K1's last line is invalid, so orders must end without K1 and its stage
 * row ERROR. The run is held after b.csv's second batch (ORDER_LOADER_TEST_HOLD_AFTER) and
 * killed there. An operator who abandons the set (`recover --older-than` shorter than the hold's
 * age) releases the rows, audited, and says so first in a dry run; a rerun of the set holds them
 * again before it stages its first file.
 *
 * PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sql } from '../support/invariants.js';
import { assertBuilt, runCli, startCli, survivalPath } from './harness.js';
import { SURVIVAL_TARGETS } from './targets.js';

const HEADER = 'source_key,customer_id,order_date,amount,currency';

/** a.csv, b.csv (1,000 other keys) and c.csv in a fresh inbox; another.csv beside it, for a load of another file. */
function writeInbox(base: string): { inbox: string; other: string } {
  const inbox = join(base, 'inbox');
  const elsewhere = join(base, 'elsewhere');
  mkdirSync(inbox, { recursive: true });
  mkdirSync(elsewhere, { recursive: true });
  writeFileSync(join(inbox, 'a.csv'), `${HEADER}\nK1,1,2026-11-01,100.00,JPY\n`);
  const others = Array.from({ length: 1000 }, (_, i) => `B${String(i).padStart(4, '0')},2,2026-11-02,${i + 1}.00,JPY`);
  // a line rejected while staging (its date cannot be read), staged ERROR before the kill: what
  // the operator's `retry` corrects, and then processes
  others[10] = 'BX,2,2026-13-45,5.00,JPY';
  writeFileSync(join(inbox, 'b.csv'), `${HEADER}\n${others.join('\n')}\n`);
  writeFileSync(join(inbox, 'c.csv'), `${HEADER}\nK1,1,2026-11-03,,JPY\n`);
  const other = join(elsewhere, 'other.csv');
  writeFileSync(other, `${HEADER}\nZ1,3,2026-11-04,7.00,JPY\n`);
  return { inbox, other };
}

/** The commands an operator may run between the kill and the rerun (the database URL appended). */
const BETWEEN: Array<{ name: string; args: (other: string, inbox: string) => string[] }> = [
  { name: 'process', args: () => ['process'] },
  {
    name: 'retry',
    args: () => ['retry', '--source-key', 'BX', '--set', 'order_date=2026-11-05', '--reason', 'between the kill and the rerun'],
  },
  { name: 'load of another file', args: (other) => ['load', other] },
  // the killed run's first file alone, by name: already staged, it is skipped; its staging ends
  // without b.csv and c.csv, which keeps the killed run's set unfinished (this is not an audited
  // abandonment): the holds stay, and the run says so (exit 2)
  {
    name: "load of the killed run's first file alone",
    args: (_other, inbox) => ['load', join(inbox, 'a.csv'), '--settle', '0'],
  },
  { name: 'recover --dry-run', args: () => ['recover', '--dry-run'] },
  { name: 'recover --older-than 1h', args: () => ['recover', '--older-than', '1h'] },
];

/** Load the inbox and kill the run once b.csv's second batch committed (its first file's checkpoint is #1). */
async function killWhileBStages(inbox: string, url: string): Promise<void> {
  const run = startCli(['load', inbox, '--db', url, '--settle', '0', '--batch-size', '100'], {
    env: { ORDER_LOADER_TEST_HOLD_AFTER: 'staged_checkpoint:3' },
  });
  expect(await run.waitFor(/holding after staged_checkpoint #3/), 'the run reached b.csv').toBe(true);
  run.child.kill('SIGKILL');
  expect((await run.done).signal).toBe('SIGKILL');
}

async function k1(sql: Sql): Promise<{ orders: unknown[]; stage: Array<{ process_status: string }> }> {
  return {
    orders: await sql("SELECT amount::text AS amount FROM orders WHERE source_key = 'K1'"),
    stage: await sql<{ process_status: string }>("SELECT process_status FROM order_stage WHERE source_key = 'K1'"),
  };
}

describe('survival: an operator command between a killed multi-file load and its rerun', () => {
  for (const target of SURVIVAL_TARGETS) {
    for (const between of BETWEEN) {
      it(`${target.kind}: ${between.name} between the kill and the rerun never merges an older line of a key`, async () => {
        assertBuilt();
        const db = await target.create();
        try {
          const { inbox, other } = writeInbox(survivalPath(`holds-between-${target.kind}`));
          await killWhileBStages(inbox, db.url);
          expect(
            (await db.withSql(k1)).stage.map((r) => r.process_status),
            'K1 held after the kill',
          ).toEqual(['HELD']);

          const op = await runCli([...between.args(other, inbox), '--db', db.url]);
          expect(op.signal, op.stderr).toBeNull();
          if (between.name.startsWith('recover')) expect(op.stdout, 'recover says what it would do to the HELD row').toMatch(/HELD/);
          // BX is a line of b.csv, whose load the unfinished set holds: retry leaves it as it is
          // and says why (b.csv's later lines could repeat its key), exit 0
          if (between.name === 'retry') {
            expect(op.code, op.stderr).toBe(0);
            expect(op.stdout).toMatch(
              /retry: changed 0 rows\nretry: left 1 ERROR row of load \d+ as they are: the load is held by an unfinished set/,
            );
          }
          // the part of the set says what it did not release, and what would
          if (between.name.startsWith('load of the killed run')) {
            expect(op.code, op.stderr).toBe(2);
            expect(op.stdout).toMatch(
              /1 row of load \d+ is still HELD[^\n]*did not stage b\.csv, c\.csv of that set\. Loading the whole set again releases them/,
            );
          }
          expect((await db.withSql(k1)).orders, `${between.name} merged K1\n${op.stdout}${op.stderr}`).toEqual([]);
          expect(
            (await db.withSql(k1)).stage.map((r) => r.process_status),
            `K1 after ${between.name}`,
          ).toEqual(['HELD']);

          const rerun = await runCli(['load', inbox, '--db', db.url, '--settle', '0', '--batch-size', '100']);
          expect(rerun.code, rerun.stderr).toBe(2);
          const after = await db.withSql(k1);
          expect(after.orders, 'K1 in orders after the rerun').toEqual([]);
          expect(after.stage.map((r) => r.process_status)).toEqual(['ERROR']);
        } finally {
          await db.dispose();
        }
      }, 300_000);
    }

    it(`${target.kind}: recover --older-than shorter than the hold's age abandons the set: said by its dry run, audited`, async () => {
      assertBuilt();
      const db = await target.create();
      try {
        const { inbox } = writeInbox(survivalPath(`holds-abandoned-${target.kind}`));
        await killWhileBStages(inbox, db.url);
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const dry = await runCli(['recover', '--older-than', '1s', '--dry-run', '--db', db.url]);
        expect(dry.code, dry.stderr).toBe(0);
        expect(dry.stdout).toMatch(/would change 1 row/);
        expect(dry.stdout).toMatch(/K1: .*HELD/);
        expect((await db.withSql(k1)).stage.map((r) => r.process_status)).toEqual(['HELD']);

        const recovered = await runCli(['recover', '--older-than', '1s', '--reason', 'the set is given up', '--db', db.url]);
        expect(recovered.code, recovered.stderr).toBe(0);
        expect(recovered.stdout).toMatch(/changed 1 row/);
        await db.withSql(async (sql) => {
          expect((await k1(sql)).stage.map((r) => r.process_status)).toEqual(['READY']);
          const audit = await sql<{ action: string; old_status: string; new_status: string; reason: string }>(
            "SELECT action, old_status, new_status, reason FROM order_stage_audit WHERE source_key = 'K1'",
          );
          expect(audit).toEqual([{ action: 'RECOVER', old_status: 'HELD', new_status: 'READY', reason: 'the set is given up' }]);
        });

        // a rerun of the set holds the released row again before it stages anything (a.csv is
        // skipped, b.csv resumed first: the row is held before b.csv's first batch), seen at
        // b.csv's first batch, killed there
        const rerun = startCli(['load', inbox, '--db', db.url, '--settle', '0', '--batch-size', '100'], {
          env: { ORDER_LOADER_TEST_HOLD_AFTER: 'staged_checkpoint:1' },
        });
        expect(await rerun.waitFor(/holding after staged_checkpoint #1/)).toBe(true);
        rerun.child.kill('SIGKILL');
        await rerun.done;
        // (read once it is dead: a PGlite folder is one process's at a time)
        expect(
          (await db.withSql(k1)).stage.map((r) => r.process_status),
          'K1 held again by the rerun',
        ).toEqual(['HELD']);
        const last = await runCli(['load', inbox, '--db', db.url, '--settle', '0', '--batch-size', '100']);
        expect(last.code, last.stderr).toBe(2);
        const after = await db.withSql(k1);
        expect(after.orders).toEqual([]);
        expect(after.stage.map((r) => r.process_status)).toEqual(['ERROR']);
      } finally {
        await db.dispose();
      }
    }, 300_000);
  }
});
