/**
 * Two loads of the same named files at once on a server database (no inbox, so no inbox lock:
 * two cron entries, or an operator rerunning by hand while the night's run is still going).
 * Each file identity is claimed by one run while it decides to skip, resume or stage the file
 * and stages it (src/pipeline/file-claim.ts); the other run waits for it, then finds the file
 * staged.
 *
 * The meeting points are made, not hoped for: the first run is held at a step of its journal
 * (ORDER_LOADER_TEST_HOLD_AFTER, src/pipeline/test-hold.ts) until the test creates a file
 * (ORDER_LOADER_TEST_HOLD_UNTIL); the second run is started meanwhile, and the hold ends once it
 * either ended (without the claim: it ran the whole set past the held run) or says it waits.
 * A run that then skips a file the other run staged leaves that run's load to it while it is
 * RUNNING (holdAgain, src/pipeline/load-file.ts): the other run processes its own rows.
 *
 * Server PostgreSQL only (ORDER_LOADER_TEST_PG): a PGlite folder is one process's at a time.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  PG_ADMIN_URL,
  PG_SKIP_REASON,
  assertBuilt,
  freshServerDb,
  runCli,
  startCli,
  survivalPath,
  type CliRun,
  type ServerDb,
  writeOverriddenSet,
} from './harness.js';

const KEYS = 300;
const WAITING = /waiting for (run \d+|another run) that stages the same file/;

function writeSet(dir: string): string[] {
  return writeOverriddenSet(dir, KEYS);
}

/**
 * Start the second run while the first is held, and let the first go on once the second ended
 * or waits for it. Returns the second run's output.
 */
async function meet(release: string, second: CliRun): Promise<{ waited: boolean; stderr: string; code: number | null }> {
  const waited = await Promise.race([second.waitFor(WAITING), second.done.then(() => false)]);
  writeFileSync(release, '');
  const end = await second.done;
  return { waited, stderr: end.stderr, code: end.code };
}

/** A test on a fresh, initialized server database, disposed after it. */
function serverTest(title: string, body: (db: ServerDb) => Promise<void>): void {
  it.skipIf(PG_ADMIN_URL === null)(
    title,
    async () => {
      assertBuilt();
      const db = await freshServerDb();
      try {
        expect((await runCli(['init', '--db', db.url])).code).toBe(0);
        await body(db);
      } finally {
        await db.dispose();
      }
    },
    300_000,
  );
}

/** A load held after the n-th commit of a journal step (until `release` exists; without it, until killed), once it says so. */
async function heldLoad(args: string[], step: string, release?: string): Promise<CliRun> {
  const run = startCli(['load', ...args, '--settle', '0'], {
    env: { ORDER_LOADER_TEST_HOLD_AFTER: step, ...(release === undefined ? {} : { ORDER_LOADER_TEST_HOLD_UNTIL: release }) },
  });
  const held = `holding after ${step.replace(':', ' #')}`;
  expect(await run.waitFor(new RegExp(held)), `the first run reached ${step}`).toBe(true);
  return run;
}

/** No key of a.csv in orders (its last line, in c.csv, is invalid), each ERROR in the stage. */
async function expectOverriddenLinesNeverMerged(db: ServerDb): Promise<void> {
  const merged = await db.sql("SELECT source_key FROM orders WHERE source_key LIKE 'K%' ORDER BY source_key LIMIT 5");
  expect(merged, 'keys of a.csv in orders although their last line (c.csv) is invalid').toEqual([]);
  const stage = await db.sql("SELECT process_status, count(*)::int AS n FROM order_stage WHERE source_key LIKE 'K%' GROUP BY 1");
  expect(stage).toEqual([{ process_status: 'ERROR', n: KEYS }]);
}

/** How many runs staged a file (a skip commits 'staged' too, marked skipped). */
async function runsThatStaged(db: ServerDb): Promise<unknown[]> {
  return db.sql("SELECT count(*)::int AS n FROM load_run_event WHERE event = 'staged' AND detail::jsonb ->> 'skipped' IS NULL");
}

describe(`survival: two loads of the same files at once${PG_ADMIN_URL === null ? ` (${PG_SKIP_REASON})` : ''}`, () => {
  serverTest(
    'postgres: a slow run still in the first file when a faster one starts never lets it merge a line the set overrides',
    async (db) => {
      const dir = survivalPath('overlapping-named-loads');
      const files = writeSet(dir);
      const release = join(dir, 'release-slow');
      // inside a.csv: 20 of its lines committed, the rest not yet
      const slow = await heldLoad([...files, '--db', db.url, '--batch-size', '1'], 'staged_checkpoint:20', release);
      const fast = await meet(
        release,
        startCli(['load', ...files, '--db', db.url, '--settle', '0', '--batch-size', '5000', '--log-level', 'info']),
      );
      const slowEnd = await slow.done;
      // each run ends (exit 2 for the run whose tally saw c.csv's rows ERROR; a run that tallied
      // them while the other run's set held them again reports them HELD, not a failure)
      expect([fast.code, slowEnd.code], fast.stderr.slice(-2000) + slowEnd.stderr.slice(-2000)).toContain(2);
      for (const code of [fast.code, slowEnd.code]) expect([0, 2], slowEnd.stderr.slice(-2000)).toContain(code);
      await expectOverriddenLinesNeverMerged(db);
      // each file staged by one run; the other run skipped all three
      expect(await runsThatStaged(db)).toEqual([{ n: 3 }]);
      expect(fast.waited, 'the fast run waited for the slow one: ' + fast.stderr.slice(-3000)).toBe(true);
    },
  );

  serverTest('postgres: a run waiting for a file whose holder is killed (kill -9) takes the file over and resumes it', async (db) => {
    const files = writeSet(survivalPath('killed-holder'));
    // held inside a.csv for good: only a kill ends it
    const holder = await heldLoad([...files, '--db', db.url, '--batch-size', '1'], 'staged_checkpoint:20');
    const waiter = startCli(['load', ...files, '--db', db.url, '--settle', '0', '--log-level', 'info']);
    expect(await waiter.waitFor(WAITING), 'the second run waits for the holder').toBe(true);
    holder.child.kill('SIGKILL');
    expect((await holder.done).signal).toBe('SIGKILL');
    const end = await waiter.done;
    expect(end.code, end.stderr.slice(-2000)).toBe(2);
    expect(end.stderr).toMatch(/a\.csv: resuming load \d+ after line \d+/);
    await expectOverriddenLinesNeverMerged(db);
    expect(await db.sql("SELECT count(*)::int AS n FROM orders WHERE source_key LIKE 'B%'")).toEqual([{ n: KEYS }]);
  });

  serverTest('postgres: a run that skips a file another run staged leaves that run the rows it still has to process', async (db) => {
    const dir = survivalPath('skipped-while-processed');
    const [file] = writeSet(dir);
    if (file === undefined) throw new Error('no file');
    const releaseFirst = join(dir, 'release-first');
    const releaseSecond = join(dir, 'release-second');
    // --no-overlap: every row is left READY to processing; held once its staging ended (the
    // file's claim given back, its holds released) and before its processing
    const first = await heldLoad([file, '--db', db.url, '--no-overlap'], 'staging_ended:1', releaseFirst);
    // held once it decided (skip: staged by the first run) and did what it does to that load
    const second = await heldLoad([file, '--db', db.url, '--log-level', 'info'], 'invoked:1', releaseSecond);
    writeFileSync(releaseFirst, '');
    const firstEnd = await first.done;
    writeFileSync(releaseSecond, '');
    const secondEnd = await second.done;
    // the first run processed every row it staged: none was taken out of its processing
    expect(firstEnd.code, firstEnd.stderr.slice(-2000)).toBe(0);
    expect(await db.sql('SELECT count(*)::int AS n FROM orders')).toEqual([{ n: KEYS }]);
    expect(secondEnd.code, secondEnd.stderr.slice(-2000)).toBe(0);
    expect(secondEnd.stderr).toMatch(/already staged by load \d+/);
    expect(await db.sql("SELECT count(*)::int AS n FROM order_stage WHERE process_status <> 'DONE'")).toEqual([{ n: 0 }]);
  });

  serverTest('postgres: two runs that start on a new file at the same instant make one load of it, and the other skips it', async (db) => {
    const dir = survivalPath('simultaneous-named-loads');
    const [file] = writeSet(dir);
    if (file === undefined) throw new Error('no file');
    const release = join(dir, 'release-first');
    // held right after its file's run row: it has read the staging history (none) and decided
    const first = await heldLoad([file, '--db', db.url], 'run_started:1', release);
    const second = await meet(release, startCli(['load', file, '--db', db.url, '--settle', '0', '--log-level', 'info']));
    const firstEnd = await first.done;
    expect(firstEnd.code, firstEnd.stderr.slice(-2000)).toBe(0);
    expect(second.code, second.stderr.slice(-2000)).toBe(0);
    expect(second.stderr).toMatch(/already staged by load \d+/);
    expect(await db.sql('SELECT count(DISTINCT load_id)::int AS n FROM order_stage')).toEqual([{ n: 1 }]);
    expect(await runsThatStaged(db), 'runs that staged the file').toEqual([{ n: 1 }]);
    expect(await db.sql('SELECT count(*)::int AS n FROM orders')).toEqual([{ n: KEYS }]);
    expect(second.waited, 'the second run waited for the first: ' + second.stderr.slice(-3000)).toBe(true);
  });
});
