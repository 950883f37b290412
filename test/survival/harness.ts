/**
 * Shared machinery of the survival harness (project `survival`): order-file generation with bad rows mixed
 * in, the CLI as a child process (dist/src/cli.js, built by `npm run test:survival` before vitest runs), and
 * the reduced / full sizes.
 *
 * Reduced sizes run in every `npm run test:survival`; ORDER_LOADER_SURVIVAL_FULL=1 runs the full sizes
 * (≥100,000 rows, ≥20 kills), e.g.
 *   npx tsc -p . && ORDER_LOADER_SURVIVAL_FULL=1 ORDER_LOADER_TEST_PG=postgres://postgres@127.0.0.1:5432/test \
 *     npx vitest run test/survival
 */
import { mulberry32 } from '../../src/bench/synthetic-orders.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { expect, inject } from 'vitest';
import { createDatabase, dropDatabase } from '../../bench/pg-admin.js';
import { TEST_PG_URL } from '../support/server-url.js';

export const FULL = process.env.ORDER_LOADER_SURVIVAL_FULL === '1' || process.env.ORDER_LOADER_SURVIVAL_FULL === 'true';
export const SIZES = FULL
  ? { rows: 100_000, kills: 20, signalRows: 50_000, concurrentRows: 100_000, faultRows: 100_000, terminations: 10 }
  : { rows: 20_000, kills: 5, signalRows: 10_000, concurrentRows: 20_000, faultRows: 40_000, terminations: 4 };

export const PG_ADMIN_URL = TEST_PG_URL;
export const PG_SKIP_REASON =
  'ORDER_LOADER_TEST_PG is not set: the survival tests against server PostgreSQL are skipped (set it to an admin URL, e.g. postgres://postgres@127.0.0.1:5432/test)';

/** The built CLI (ORDER_LOADER_SURVIVAL_CLI: another build of it, e.g. to try a patch). */
export const CLI = process.env.ORDER_LOADER_SURVIVAL_CLI ?? fileURLToPath(new URL('../../dist/src/cli.js', import.meta.url));
export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npm run build); npm run test:survival does that`);
}

/** In the run's temporary folder (test/support/global-setup.ts), removed after the run. */
const workDir = mkdtempSync(join(inject('testTempRoot'), 'survival-'));
let fileSeq = 0;
export function survivalPath(name: string): string {
  return join(workDir, `${++fileSeq}-${name}`);
}

/** A small deterministic PRNG (mulberry32): the same seed gives the same file and kill plan. */
export const prng = mulberry32;

export interface GeneratedFile {
  path: string;
  rows: number;
  /** Every source_key in the file (all are usable keys). */
  keys: string[];
  /** Expected outcome of a clean run, by kind of bad row. */
  bad: { missingAmount: number; overflow: number; badDate: number; badCurrency: number };
}

/**
 * An order file of `rows` data lines, about 4% bad: missing amounts (VALIDATE), amounts that
 * overflow orders.amount numeric(12,2) (refused by the database in the MERGE), unparseable dates
 * (PARSE, staged as ERROR), lower-case currencies (VALIDATE).
 */
export async function generateOrderFile(rows: number, seed = 6, keyPrefix = 'SV'): Promise<GeneratedFile> {
  const path = survivalPath(`orders-${rows}.csv`);
  const random = prng(seed);
  const out = createWriteStream(path);
  const keys: string[] = [];
  const bad = { missingAmount: 0, overflow: 0, badDate: 0, badCurrency: 0 };
  let buffer = 'source_key,customer_id,order_date,amount,currency\n';
  for (let i = 0; i < rows; i++) {
    const key = `${keyPrefix}-${String(i).padStart(7, '0')}`;
    keys.push(key);
    const r = random();
    let amount = (Math.floor(random() * 10_000_000) / 100).toFixed(2);
    let date = `2026-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`;
    let currency = ['EUR', 'USD', 'JPY'][i % 3] ?? 'EUR';
    if (r < 0.01) {
      amount = '';
      bad.missingAmount++;
    } else if (r < 0.02) {
      amount = '99999999999.99';
      bad.overflow++;
    } else if (r < 0.03) {
      date = ['2026-02-30', '2026-13-01', 'yesterday', '2026/01/05'][i % 4] ?? '2026-02-30';
      bad.badDate++;
    } else if (r < 0.04) {
      currency = 'eur';
      bad.badCurrency++;
    }
    buffer += `${key},${1 + (i % 5000)},${date},${amount},${currency}\n`;
    if (buffer.length > 1 << 16) {
      if (!out.write(buffer)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      buffer = '';
    }
  }
  out.end(buffer);
  await new Promise<void>((resolve, reject) => {
    out.on('finish', () => resolve());
    out.on('error', reject);
  });
  return { path, rows, keys, bad };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface CliRun {
  child: ChildProcess;
  done: Promise<CliResult>;
  /** Resolves when a stderr line matches (or the process ends: then it resolves false). */
  waitFor(pattern: RegExp): Promise<boolean>;
  /** The next stderr line that matches (null once the process ended). */
  waitForLine(pattern: RegExp): Promise<string | null>;
}

/** Environment for a child: nothing from the developer's ORDER_LOADER_* settings leaks in. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const inherited = Object.entries(process.env).filter(([k]) => !k.startsWith('ORDER_LOADER_') && k !== 'PGPASSWORD');
  return { ...Object.fromEntries(inherited), ...extra };
}

/** Start `node dist/src/cli.js <args>`; capture stdout/stderr. */
export function startCli(args: string[], options: { env?: Record<string, string>; nodeArgs?: string[] } = {}): CliRun {
  const started = performance.now();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), CLI, ...args], {
    env: childEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let pending = '';
  const watchers: Array<{ pattern: RegExp; resolve: (line: string | null) => void }> = [];
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    pending += d;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      for (let i = watchers.length - 1; i >= 0; i--) {
        const w = watchers[i];
        if (w !== undefined && w.pattern.test(line)) {
          watchers.splice(i, 1);
          w.resolve(line);
        }
      }
    }
  });
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      for (const w of watchers.splice(0)) w.resolve(null);
      resolve({ code, signal, stdout, stderr, ms: performance.now() - started });
    });
  });
  return {
    child,
    done,
    waitForLine(pattern: RegExp) {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(null);
      return new Promise<string | null>((resolve) => watchers.push({ pattern, resolve }));
    },
    async waitFor(pattern: RegExp) {
      return (await this.waitForLine(pattern)) !== null;
    },
  };
}

export function runCli(args: string[], options: { env?: Record<string, string>; nodeArgs?: string[] } = {}): Promise<CliResult> {
  return startCli(args, options).done;
}

/**
 * Start the CLI held right after its second committed staging batch (ORDER_LOADER_TEST_HOLD_AFTER,
 * src/pipeline/test-hold.ts) and kill it there: a kill that lands while staging on any engine.
 */
export async function killAfterSecondBatch(args: string[]): Promise<void> {
  const run = startCli(args, { env: { ORDER_LOADER_TEST_HOLD_AFTER: 'staged_checkpoint:2' } });
  const held = await run.waitFor(/holding after staged_checkpoint #2 /);
  if (!held) expect.fail(`the load ended without committing two batches\n${(await run.done).stderr.slice(-3000)}`);
  run.child.kill('SIGKILL');
  expect((await run.done).signal).toBe('SIGKILL');
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A direct connection to a test database (assertions, fault injection). */
export function directPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => {});
  return pool;
}

/** The backends of order-loader processes on a database (application_name 'order-loader'). */
export async function loaderBackends(
  pool: pg.Pool,
  database: string,
): Promise<Array<{ pid: number; state: string | null; query: string }>> {
  const { rows } = await pool.query<{ pid: number; state: string | null; query: string }>(
    "SELECT pid, state, query FROM pg_stat_activity WHERE application_name = 'order-loader' AND datname = $1 AND pid <> pg_backend_pid()",
    [database],
  );
  return rows;
}

export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
}

/** The stderr lines the CLI writes for a person (pino's JSON log lines excluded). */
export function humanLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('{'));
}

/** Wait until no order-loader backend is left on the database (a killed client's server side ends). */
export async function waitForNoBackends(pool: pg.Pool, database: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await loaderBackends(pool, database)).length === 0) return;
    await sleep(50);
  }
}

export interface ServerDb {
  url: string;
  name: string;
  sql: <R = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<R[]>;
  dispose(): Promise<void>;
}

let serverDbSeq = 0;

/**
 * A fresh, empty database on the server for one survival test; the CLI migrates it on first use.
 * Its name does not start with order_loader_t_: another test run's global setup drops those of
 * runs it judges leftovers, and must never pull one from under a long survival run.
 */
export async function freshServerDb(): Promise<ServerDb> {
  if (PG_ADMIN_URL === null) throw new Error(PG_SKIP_REASON);
  const name = `order_loader_survival_${process.pid}_${Date.now().toString(36)}_${++serverDbSeq}`;
  const url = await createDatabase(PG_ADMIN_URL, name);
  const pool = directPool(url);
  return {
    url,
    name,
    async sql<R>(text: string, params?: unknown[]) {
      return (await pool.query({ text, values: params })).rows as R[];
    },
    async dispose() {
      await pool.end().catch(() => undefined);
      await dropDatabase(PG_ADMIN_URL, name);
    },
  };
}

/**
 * a.csv with K0..K<keys-1> (valid), b.csv with as many other keys, c.csv with the K keys again
 * and no amount: the set's last line of every K is invalid, so no K may ever reach orders.
 * Returns the three paths, in order.
 */
export function writeOverriddenSet(dir: string, keys: number): string[] {
  mkdirSync(dir, { recursive: true });
  const lines = (f: (i: number) => string) =>
    `source_key,customer_id,order_date,amount,currency\n${Array.from({ length: keys }, (_, i) => f(i)).join('\n')}\n`;
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

/** `load <args>` killed (-9) right after its n-th committed staging checkpoint. */
export async function loadKilledAtCheckpoint(args: string[], n: number): Promise<void> {
  const run = startCli(['load', ...args, '--settle', '0'], { env: { ORDER_LOADER_TEST_HOLD_AFTER: `staged_checkpoint:${n}` } });
  if (!(await run.waitFor(new RegExp(`holding after staged_checkpoint #${n}`)))) {
    const end = await run.done;
    throw new Error(`the load ended before its checkpoint #${n}: ${end.stderr.slice(-2000)}`);
  }
  run.child.kill('SIGKILL');
  await run.done;
}
