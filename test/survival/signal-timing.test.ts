/**
 * Survival: how soon a signal stops the CLI, on every engine (PGlite always, server PostgreSQL
 * when ORDER_LOADER_TEST_PG is set). The first SIGTERM stops after the current chunk or statement
 * with exit 1 and says so; a second one exits at once; a rerun completes with every row
 * accounted for. On PGlite the signal used to wait for the whole processing phase (PGlite's
 * statements never gave the event loop a turn), and while reading a run of blank lines it waited
 * for the whole file. Each phase here lasts clearly longer than the bound asserted.
 */
import { createWriteStream } from 'node:fs';
import { createGzip } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkInvariants, type Sql } from '../support/invariants.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { HEADER } from '../support/files.js';
import {
  PG_ADMIN_URL,
  assertBuilt,
  freshServerDb,
  generateOrderFile,
  runCli,
  startCli,
  survivalPath,
  type GeneratedFile,
} from './harness.js';

/** Generous for a loaded machine; the phases interrupted here last far longer without the fix. */
const FIRST_SIGNAL_BOUND_MS = 5000;
const SECOND_SIGNAL_BOUND_MS = 2000;
/** A child still running this long after the signal is killed (the test then fails on the time). */
const KILL_AFTER_MS = 25_000;

interface Target {
  name: string;
  open(): Promise<{ url: string; sql<T>(run: (sql: Sql) => Promise<T>): Promise<T>; dispose(): Promise<void> }>;
}

const TARGETS: Target[] = [
  {
    name: 'pglite',
    async open() {
      const { url, dataDir } = await migratedPgliteDb();
      return {
        url,
        // the folder is one process's at a time: opened here only while no command runs
        async sql(run) {
          const db = await PGlite.create({ dataDir });
          try {
            return await run(async (text, params) => (await db.query(text, params)).rows as never);
          } finally {
            await db.close();
          }
        },
        dispose: () => Promise.resolve(),
      };
    },
  },
  ...(PG_ADMIN_URL === null
    ? []
    : [
        {
          name: 'postgres',
          async open() {
            const db = await freshServerDb();
            return { url: db.url, sql: (run) => run(db.sql), dispose: () => db.dispose() };
          },
        } satisfies Target,
      ]),
];

/** Signal `child` and resolve with the time until it ended (killed past KILL_AFTER_MS). */
async function timeToExit(run: ReturnType<typeof startCli>, signals: number[] = [0]) {
  const sent = performance.now();
  const guard = setTimeout(() => run.child.kill('SIGKILL'), KILL_AFTER_MS);
  for (const [i, delay] of signals.entries()) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    run.child.kill('SIGTERM');
  }
  const lastSent = performance.now();
  const result = await run.done;
  clearTimeout(guard);
  return { result, afterFirst: performance.now() - sent, afterLast: performance.now() - lastSent };
}

/** A gzip file: the header, a few lines, then `blankMb` MiB of blank lines, then one more line. */
async function blankLinesGzip(blankMb: number): Promise<string> {
  const path = survivalPath('blank-lines.csv.gz');
  const gzip = createGzip({ level: 1 });
  const written = new Promise<void>((resolve, reject) => {
    const out = createWriteStream(path);
    out.on('finish', resolve).on('error', reject);
    gzip.pipe(out);
  });
  gzip.write(`${HEADER}\nBL-1,1,2026-01-01,1.00,JPY\nBL-2,1,2026-01-01,2.00,JPY\n`);
  const blank = Buffer.alloc(1024 * 1024, 0x0a);
  for (let i = 0; i < blankMb; i++) if (!gzip.write(blank)) await new Promise((resolve) => gzip.once('drain', resolve));
  gzip.end('BL-3,1,2026-01-01,3.00,JPY\n');
  await written;
  return path;
}

describe('signal timing', () => {
  let file: GeneratedFile;
  beforeAll(async () => {
    assertBuilt();
    file = await generateOrderFile(300_000, 21, 'ST');
  }, 60_000);
  afterAll(() => undefined);

  for (const target of TARGETS) {
    describe(target.name, () => {
      it('SIGTERM while processing: stops after the current chunk within seconds, exit 1, says so; a rerun accounts for every row', async () => {
        const db = await target.open();
        try {
          // --no-overlap: the phase aimed at is processing alone (by default a server database
          // processes while it stages, and the signal would stop the staging)
          const run = startCli(['load', file.path, '--db', db.url, '--log-level', 'debug', '--no-overlap']);
          expect(await run.waitFor(/"msg":"chunk committed"/), 'processing started').toBe(true);
          const { result, afterFirst } = await timeToExit(run);
          expect(result.signal, result.stderr.slice(-1500)).toBeNull();
          expect(afterFirst, 'time from SIGTERM to exit (ms)').toBeLessThan(FIRST_SIGNAL_BOUND_MS);
          expect(result.code).toBe(1);
          expect(result.stderr).toContain('SIGTERM: finishing the current chunk');
          expect(result.stderr).toMatch(/order-loader: interrupted: the current chunk was finished or rolled back/);
          const partial = await db.sql((sql) => checkInvariants(sql, { allowUnfinished: true }));
          expect(partial.violations).toEqual([]);
          expect(partial.counts.READY).toBeGreaterThan(0);

          const rerun = await runCli(['load', file.path, '--db', db.url]);
          expect(rerun.code, rerun.stderr.slice(-1500)).toBe(2);
          const report = await db.sql((sql) => checkInvariants(sql, { sourceKeys: file.keys, exclusive: true }));
          expect(report.violations).toEqual([]);
        } finally {
          await db.dispose();
        }
      }, 180_000);

      it('a second SIGTERM while processing exits at once with exit 1, and says so', async () => {
        const db = await target.open();
        try {
          // a chunk long enough that the second signal comes while one is under way: on a server a
          // chunk of 5,000 rows commits in tens of ms (the first signal alone had ended the run);
          // PGlite cannot break a statement, so its chunk stays small
          const chunk = target.name === 'postgres' ? '65535' : '5000';
          const run = startCli(['load', file.path, '--db', db.url, '--log-level', 'debug', '--chunk-size', chunk, '--no-overlap']);
          expect(await run.waitFor(/"msg":"chunk committed"/), 'processing started').toBe(true);
          const { result, afterLast } = await timeToExit(run, [0, 200]);
          expect(result.signal, result.stderr.slice(-1500)).toBeNull();
          expect(afterLast, 'time from the second SIGTERM to exit (ms)').toBeLessThan(SECOND_SIGNAL_BOUND_MS);
          expect(result.code).toBe(1);
          expect(result.stderr).toContain('SIGTERM again:');
          expect(result.stderr).not.toMatch(/"exitCode":2/);
        } finally {
          await db.dispose();
        }
      }, 180_000);

      it('SIGTERM while reading a gzip of blank lines stops within seconds, exit 1, interrupted while staging', async () => {
        const db = await target.open();
        try {
          // the reader drops about 16 MiB of blank lines a second here, twice: the pre-read of
          // repeated keys (overlap, settling; also the file's identity) reads them all before the
          // "staging" line, then staging does. 250 MiB: staging is in them some 15 s, three times the bound (600 MiB
          // cost 36 s a target, 31 s of it the pre-read)
          const path = await blankLinesGzip(250);
          // blank lines inflate about 1,000 times: past the default --max-inflate
          const run = startCli(['load', path, '--db', db.url, '--batch-size', '2', '--max-inflate', '2000', '--log-level', 'info']);
          // the first batch (two lines) is committed; the reader is then in the blank lines
          expect(await run.waitFor(/"msg":"staging"/), 'staging started').toBe(true);
          await new Promise((resolve) => setTimeout(resolve, 500));
          const { result, afterFirst } = await timeToExit(run);
          expect(result.signal, result.stderr.slice(-1500)).toBeNull();
          expect(afterFirst, 'time from SIGTERM to exit (ms)').toBeLessThan(FIRST_SIGNAL_BOUND_MS);
          expect(result.code).toBe(1);
          expect(result.stderr).toMatch(/interrupted while staging/);
          const staged = await db.sql((sql) => sql<{ n: number }>('SELECT count(*)::int AS n FROM order_stage'));
          expect(staged[0]?.n).toBe(2);
        } finally {
          await db.dispose();
        }
      }, 120_000);
    });
  }
});
