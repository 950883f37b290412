/**
 * Survival 4: the database server restarted during a load, and the database gone longer than the
 * retry budget (docs/ARCHITECTURE.md, section 6: a chunk-level fatal failure rolls the chunk back, is retried with
 * backoff a bounded number of times, then the run stops with a clear message and exit code 1 —
 * nothing lost, nothing half-done).
 *
 * Both need a server the test may restart and stop: a PRIVATE PostgreSQL 15 instance (initdb +
 * pg_ctl from /usr/lib/postgresql/15/bin into a temporary directory, 127.0.0.1 only, a free port,
 * trust auth), run as the `postgres` OS user when the test runs as root (initdb refuses root). The
 * shared server of ORDER_LOADER_TEST_PG is never touched. The instance is stopped (-m immediate) and
 * its directory removed in afterAll, also when a test fails. Without the PostgreSQL 15 binaries,
 * or when the instance cannot start, the tests are skipped and say why.
 *
 * The loader runs with its real retry budget (DEFAULT_RETRY in src/pipeline/retry.ts: 6 attempts,
 * backoff 0.5 s doubling, ≈ 8–16 s of waiting in all); nothing in src is overridden for the test.
 * "Down longer than the budget" is measured, not assumed: the instance stays down until the loader
 * has given up (bounded by DOWN_LIMIT_MS), and only then is started again.
 *
 * Where a restart lands is made certain where it matters: the test holds a lock on load_run_event
 * until the loader's connection waits for it (a staging batch writing its checkpoint event; the
 * run's "processed" event after the last chunk, a run-level statement outside any chunk), then
 * restarts the server under the waiting statement.
 *
 * Needs no ORDER_LOADER_TEST_PG: it runs in every `npm test` where the binaries are installed
 * (≈ 25 s; ORDER_LOADER_SURVIVAL_FULL=1: 100,000 rows instead of 20,000).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareWithFile } from '../support/file-invariants.js';
import { checkInvariants, statusCounts, type Sql } from '../support/invariants.js';
import {
  FULL,
  assertBuilt,
  generateOrderFile,
  humanLines,
  sleep,
  startCli,
  type CliResult,
  type CliRun,
  type GeneratedFile,
} from './harness.js';
import { DEFAULT_RETRY } from '../../src/pipeline/retry.js';
import { PrivatePostgres, privatePostgresUnavailable } from './private-postgres.js';
import { NEEDS, recordSkip } from '../support/requirements.js';

const ROWS = FULL ? 100_000 : 20_000;
/** The loader must have given up within this long after the server went down (its budget is ≈ 8–16 s of waits). */
const DOWN_LIMIT_MS = 60_000;
const LOAD_ARGS = ['--chunk-size', '200', '--batch-size', '2000', '--log-level', 'debug'];
/** `stage` takes no --chunk-size, `process` no --batch-size (an option a command does not take is refused). */
const STAGE_ARGS = ['--batch-size', '2000', '--log-level', 'debug'];
const PROCESS_ARGS = ['--chunk-size', '200', '--log-level', 'debug'];

/** The loader's own budget (the CLI has no option for it): 6 attempts, waits of 0.25–0.5, 0.5–1, 1–2, 2–4, 4–8 s. */
const POLICY = DEFAULT_RETRY;

// ---------------------------------------------------------------------------------------------
// What the loader said

interface RetryLine {
  attempt: number;
  delayMs: number;
  kind: string;
  error: string;
  msg: string;
}

function retryLines(stderr: string): RetryLine[] {
  const out: RetryLine[] = [];
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{') || !line.includes('rolled back; retrying')) continue;
    out.push(JSON.parse(line) as RetryLine);
  }
  return out;
}

/** Each retry waited a backoff delay of its attempt: in [ceiling/2, ceiling], ceiling = base·2^(n-1) capped. */
function backoffViolations(lines: RetryLine[]): string[] {
  return lines
    .map((l) => ({ l, ceiling: Math.min(POLICY.maxDelayMs, POLICY.baseDelayMs * 2 ** (l.attempt - 1)) }))
    .filter(
      ({ l, ceiling }) => !(l.attempt >= 1 && l.attempt < POLICY.attempts && l.delayMs >= ceiling / 2 - 1 && l.delayMs <= ceiling + 1),
    )
    .map(({ l }) => `attempt ${l.attempt}: waited ${l.delayMs} ms`);
}

async function withDeadline(run: CliRun, ms: number, what: string): Promise<CliResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      run.child.kill('SIGKILL');
      reject(new Error(`${what}: the loader had not ended after ${ms} ms (killed)`));
    }, ms);
  });
  try {
    return await Promise.race([run.done, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Hold an EXCLUSIVE lock on load_run_event until the loader's connection waits for it (pg_stat_activity:
 * a Lock wait in a statement matching `statement`), then restart the server under it. The
 * restart's fast shutdown ends the waiting statement (and the lock holder); returns its duration.
 */
async function restartWhileBlocked(
  server: PrivatePostgres,
  db: { url: string; sql: Sql },
  run: CliRun,
  statement: RegExp,
): Promise<number> {
  const holder = new pg.Client({ connectionString: db.url });
  holder.on('error', () => undefined);
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE load_run_event IN EXCLUSIVE MODE');
    const deadline = Date.now() + 90_000;
    for (;;) {
      const waiting = await db.sql<{ query: string }>(
        "SELECT query FROM pg_stat_activity WHERE application_name = 'order-loader' AND wait_event_type = 'Lock'",
      );
      if (waiting.some((w) => statement.test(w.query))) break;
      if (run.child.exitCode !== null || run.child.signalCode !== null) throw new Error('the loader ended before it waited for the lock');
      if (Date.now() > deadline) throw new Error('the loader never waited for the lock');
      await sleep(20);
    }
    const t0 = performance.now();
    await server.restart();
    return performance.now() - t0;
  } finally {
    await holder.end().catch(() => undefined);
  }
}

const badRows = (f: GeneratedFile) => f.bad.missingAmount + f.bad.overflow + f.bad.badDate + f.bad.badCurrency;

// ---------------------------------------------------------------------------------------------

const unavailable = privatePostgresUnavailable();
if (unavailable !== null) recordSkip(NEEDS.privatePostgres);

describe('survival: the database restarted or down during a load (private PostgreSQL 15 instance)', () => {
  let instance: PrivatePostgres | null = null;
  let skipReason: string | null = unavailable;
  let file: GeneratedFile;

  beforeAll(async () => {
    if (skipReason !== null) return;
    assertBuilt();
    try {
      instance = await PrivatePostgres.create();
    } catch (error) {
      skipReason = `the private PostgreSQL instance could not start: ${(error as Error).message.split('\n')[0] ?? ''}`;
      return;
    }
    file = await generateOrderFile(ROWS, 61, 'RS');
  }, 90_000);

  afterAll(async () => {
    await instance?.destroy();
    instance = null;
  }, 60_000);

  it(
    `restarted (pg_ctl restart -m fast) while staging and again while processing a ${ROWS}-row load: retries with backoff, exit 2, invariants hold, run COMPLETED`,
    async (ctx) => {
      if (skipReason !== null || instance === null) return ctx.skip(skipReason ?? 'no instance');
      const server = instance;
      const db = await server.createDatabase('restart_a');
      const run = startCli(['load', file.path, '--db', db.url, ...LOAD_ARGS]);
      const restarts: number[] = [];

      // 1. while staging: the restart lands while a staging batch's transaction is open (it waits
      //    for the test's lock on load_run_event to write its checkpoint event)
      expect(await run.waitFor(/"msg":"staging"/), 'the load reached staging').toBe(true);
      restarts.push(await restartWhileBlocked(server, db, run, /load_run_event/));

      // 2. while processing: a few chunks committed, then the server goes away under the loader
      let committed = 0;
      while (committed < 3 && (await run.waitFor(/"msg":"chunk committed"/))) committed++;
      expect(committed, `the load reached processing: ${String(run.child.exitCode)}`).toBe(3);
      const t0 = performance.now();
      await server.restart();
      restarts.push(performance.now() - t0);
      const result = await withDeadline(run, 120_000, 'after the restarts');

      expect(result.stderr).not.toMatch(/Unhandled 'error' event|unexpected error|\n\s+at /);
      expect(result.code, result.stderr.slice(-3000)).toBe(2);
      const retries = retryLines(result.stderr);
      expect(retries.filter((r) => r.msg.startsWith('staging lines up to')).length, 'a staging batch was retried').toBeGreaterThan(0);
      expect(retries.filter((r) => r.msg.startsWith('chunk ')).length, 'a chunk was retried').toBeGreaterThan(0);
      expect(
        retries.every((r) => r.kind === 'fatal'),
        JSON.stringify(retries),
      ).toBe(true);
      expect(backoffViolations(retries)).toEqual([]);

      const report = await checkInvariants(db.sql, { sourceKeys: file.keys, exclusive: true });
      expect(report.violations).toEqual([]);
      expect(await compareWithFile(db.sql, file.path)).toEqual([]);
      expect({ DONE: report.counts.DONE, ERROR: report.counts.ERROR, orders: report.counts.orders }).toEqual({
        DONE: file.rows - badRows(file),
        ERROR: badRows(file),
        orders: file.rows - badRows(file),
      });
      // every PARSE rejection logged once, though its staging batch ran twice
      expect(
        await db.sql("SELECT line_no FROM order_bulk_error WHERE phase = 'PARSE' GROUP BY line_no HAVING count(*) > 1 LIMIT 5"),
      ).toEqual([]);
      const runs = await db.sql<{ status: string; message: string | null }>("SELECT status, message FROM load_run WHERE command = 'load'");
      expect(runs).toEqual([{ status: 'COMPLETED', message: null }]);
      console.info(
        `restart: restarted twice (${restarts.map((ms) => `${ms.toFixed(0)} ms`).join(', ')}); ${retries.length} retr${retries.length === 1 ? 'y' : 'ies'} ` +
          `(${retries.map((r) => `${r.msg.replace(/ rolled back; retrying$/, '')} #${r.attempt} after ${r.delayMs} ms: ${r.error}`).join('; ')}); load ${(result.ms / 1000).toFixed(1)} s`,
      );
    },
    FULL ? 300_000 : 150_000,
  );

  it(
    'restarted while the loader records the end of processing (a run-level statement, between chunks and the summary): retried too, exit 2, run COMPLETED',
    async (ctx) => {
      if (skipReason !== null || instance === null) return ctx.skip(skipReason ?? 'no instance');
      const server = instance;
      const db = await server.createDatabase('restart_c');
      // `load` processes while it stages (and staging writes checkpoint events), so the
      // run-level statement after the last chunk is reached through `stage`, then `process`
      const staged = await withDeadline(startCli(['stage', file.path, '--db', db.url, ...STAGE_ARGS]), 90_000, 'staging');
      expect(staged.code, staged.stderr.slice(-3000)).toBe(2); // the file's unparseable lines
      const run = startCli(['process', '--db', db.url, ...PROCESS_ARGS]);
      expect(await run.waitFor(/"msg":"chunk committed"/), 'the run reached processing').toBe(true);
      // chunks never touch load_run_event: the run does every chunk, then waits on the lock
      // with its "processed" event, and the restart lands there
      const restartMs = await restartWhileBlocked(server, db, run, /load_run_event/);
      const result = await withDeadline(run, 120_000, 'after the restart');

      expect(result.stderr).not.toMatch(/Unhandled 'error' event|unexpected error|\n\s+at /);
      expect(result.code, result.stderr.slice(-3000)).toBe(2);
      const retries = retryLines(result.stderr);
      // the restart lands on a run-level statement: the "processed" event, or (when the run got
      // past it first: seen at full size) the end of the run; either is retried, not fatal
      expect(
        retries.some((r) => /^recording the (end of the )?run rolled back; retrying$/.test(r.msg)),
        JSON.stringify(retries),
      ).toBe(true);
      expect(backoffViolations(retries)).toEqual([]);
      const report = await checkInvariants(db.sql, { sourceKeys: file.keys, exclusive: true });
      expect(report.violations).toEqual([]);
      expect(await compareWithFile(db.sql, file.path)).toEqual([]);
      expect((await statusCounts(db.sql)).ERROR).toBe(badRows(file));
      const runs = await db.sql<{ run_id: number; status: string }>("SELECT run_id, status FROM load_run WHERE command = 'process'");
      expect(runs.map((r) => r.status)).toEqual(['COMPLETED']);
      const events = await db.sql<{ event: string }>('SELECT event FROM load_run_event WHERE run_id = $1 ORDER BY seq', [runs[0]?.run_id]);
      expect(events.map((e) => e.event)).toEqual(['invoked', 'processed', 'completed']);
      console.info(
        `restart: restarted at the "processed" event in ${restartMs.toFixed(0)} ms; retries: ${retries.map((r) => `${r.msg.replace(/ rolled back; retrying$/, '')} #${r.attempt}`).join('; ')}; load ${(result.ms / 1000).toFixed(1)} s`,
      );
    },
    FULL ? 300_000 : 150_000,
  );

  it(
    `down longer than the retry budget while processing: one clear "order-loader:" line, exit 1, nothing half-done; once it is back a rerun finishes the job`,
    async (ctx) => {
      if (skipReason !== null || instance === null) return ctx.skip(skipReason ?? 'no instance');
      const server = instance;
      const db = await server.createDatabase('restart_b');
      // staged first, so that the outage lands on processing alone (`load` overlaps the two)
      const staged = await withDeadline(startCli(['stage', file.path, '--db', db.url, ...STAGE_ARGS]), 90_000, 'staging');
      expect(staged.code, staged.stderr.slice(-3000)).toBe(2);
      // one worker: each worker retries on its own, and the retry sequence is asserted below
      const run = startCli(['process', '--db', db.url, ...PROCESS_ARGS, '--workers', '1']);
      let committed = 0;
      while (committed < 3 && (await run.waitFor(/"msg":"chunk committed"/))) committed++;
      expect(committed, 'the run reached processing').toBe(3);
      let endedAt = 0;
      void run.done.then(() => (endedAt = performance.now()));
      const t0 = performance.now();
      let down = false;
      let result: CliResult;
      try {
        await server.stop('fast');
        down = true;
        result = await withDeadline(run, DOWN_LIMIT_MS, 'with the database down');
      } finally {
        // back up whatever happened, so that the rerun (or the next test) has a server
        if (down) await server.start();
      }
      const downMs = performance.now() - t0;
      const gaveUpMs = endedAt - t0;

      expect(result.signal).toBeNull();
      expect(result.code, result.stderr.slice(-3000)).toBe(1);
      const lines = humanLines(result.stderr);
      expect(lines, result.stderr.slice(-3000)).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^order-loader: chunk \\S+ failed ${POLICY.attempts} times, giving up: .*\\(nothing of it was committed; run the command again once the database is back\\)$`,
        ),
      );
      expect(result.stderr).not.toMatch(/Unhandled 'error' event|unexpected error|\n\s+at /);
      const retries = retryLines(result.stderr);
      expect(retries.map((r) => r.attempt)).toEqual(Array.from({ length: POLICY.attempts - 1 }, (_, i) => i + 1));
      expect(backoffViolations(retries)).toEqual([]);

      // nothing half-done: every committed chunk is whole, the rest is claimable again
      const partial = await checkInvariants(db.sql, { allowUnfinished: true });
      expect(partial.violations).toEqual([]);
      expect(partial.counts.DONE + partial.counts.ERROR).toBeLessThan(file.rows);

      const rerun = await withDeadline(startCli(['load', file.path, '--db', db.url, ...LOAD_ARGS]), 90_000, 'the rerun');
      expect(rerun.code, rerun.stderr.slice(-3000)).toBe(2);
      expect(rerun.stderr).toMatch(/staging skipped/); // the file was staged completely before the server went down
      const report = await checkInvariants(db.sql, { sourceKeys: file.keys, exclusive: true });
      expect(report.violations).toEqual([]);
      expect(await compareWithFile(db.sql, file.path)).toEqual([]);
      expect((await statusCounts(db.sql)).ERROR).toBe(badRows(file));
      const runs = await db.sql<{ command: string; status: string }>('SELECT command, status FROM load_run ORDER BY run_id');
      expect(runs.map((r) => [r.command, r.status])).toEqual([
        ['stage', 'COMPLETED'],
        ['process', 'FAILED'],
        ['load', 'COMPLETED'],
      ]);
      console.info(
        `restart: down ${(downMs / 1000).toFixed(1)} s; the loader gave up ${(gaveUpMs / 1000).toFixed(1)} s after the stop, after ${retries.length + 1} attempts ` +
          `(waits ${retries.map((r) => r.delayMs).join(', ')} ms; run ${(result.ms / 1000).toFixed(1)} s); rerun ${(rerun.ms / 1000).toFixed(1)} s`,
      );
    },
    FULL ? 300_000 : 150_000,
  );
});
