/**
 * End-to-end benchmark against server PostgreSQL: load / ceiling targets 0.40 and 0.60, results
 * in bench/RESULTS.md (docs/ARCHITECTURE.md, section 10).
 *
 * In ONE run, each measurement in a fresh database (bench_<pid>_<label>, dropped afterwards
 * unless --keep):
 *  (a) `load`: the built CLI as a child process; wall time and peak RSS (/usr/bin/time -v, or
 *      polling /proc/<pid>/status VmHWM when GNU time is not installed);
 *  (b) the set-based ceiling: COPY of the raw file into order_stage (psql \copy), ONE MERGE into
 *      orders, ONE UPDATE of the stage statuses, no per-row isolation. A single set-based MERGE
 *      aborts on the first row that overflows orders.amount, so the ceiling excludes those rows
 *      by a precomputed WHERE (amount < 10^10) that the real loader cannot know in advance;
 *  (c) row-at-a-time: one INSERT … ON CONFLICT into the stage and one MERGE per row, each MERGE
 *      in its own SAVEPOINT, commit every 500 rows; measured on the first --row-subset rows and
 *      extrapolated (rows/s), because 1M rows this way takes many minutes.
 * Ratios are only ever computed between figures of the same run: the machine is shared.
 */
import { spawn } from 'node:child_process';
import { createReadStream, existsSync, readFileSync, mkdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { OrderLoader } from '../src/loader.js';
import { createLogger } from '../src/log.js';
import { generateOrderFile, ORDERS_AMOUNT_LIMIT, type GenerateResult } from './generate.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const GNU_TIME = '/usr/bin/time';

export interface E2eOptions {
  adminUrl: string;
  rows: number;
  seed: number;
  dataDir: string;
  /** Default load configuration (the headline ratios). */
  workers: number;
  chunkSize: number;
  /** Extra configurations, each one more `load` in its own database. */
  matrix: Array<{ workers: number; chunkSize: number; overlap?: boolean }>;
  /** Also load the same file without overflow rows (failure-isolation ratio). */
  isolation: boolean;
  rowSubset: number;
  /** Repeat the (ceiling, load) pair this many times; the median is reported. */
  repeat: number;
  skipCeiling: boolean;
  skipRowwise: boolean;
  keep: boolean;
  /** Extra node flags for the CLI child (e.g. --cpu-prof). */
  nodeFlags: string[];
  log: (line: string) => void;
}

export interface LoadMeasurement {
  label: string;
  workers: number;
  chunkSize: number;
  file: string;
  rows: number;
  wallMs: number;
  stageMs: number | null;
  processMs: number | null;
  peakRssMb: number | null;
  rowsPerSec: number;
  exitCode: number | null;
  done: number;
  error: number;
  /** CPU seconds of the CLI process (Node): user + system. */
  nodeCpuS: number | null;
}

export interface CeilingMeasurement {
  rows: number;
  copyMs: number;
  mergeMs: number;
  updateMs: number;
  wallMs: number;
  rowsPerSec: number;
  excludedOverflow: number;
  merged: number;
}

export interface RowwiseMeasurement {
  rows: number;
  wallMs: number;
  rowsPerSec: number;
  extrapolatedMs: number;
}

export interface E2eResult {
  files: { withOverflow: GenerateResult & { path: string }; withoutOverflow?: GenerateResult & { path: string } };
  ceiling: CeilingMeasurement[];
  load: LoadMeasurement[];
  rowwise: RowwiseMeasurement | null;
  isolationLoad: LoadMeasurement | null;
  matrix: LoadMeasurement[];
}

function dbUrl(adminUrl: string, name: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<T>(adminUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function createDatabase(adminUrl: string, name: string): Promise<string> {
  if (!/^bench_[a-z0-9_]+$/.test(name)) throw new Error(`refusing database name ${name}`);
  await admin(adminUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${name}`);
  });
  return dbUrl(adminUrl, name);
}

async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  if (!/^bench_[a-z0-9_]+$/.test(name)) throw new Error(`refusing database name ${name}`);
  await admin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/** Our schema, through the library (same migrations as the CLI applies). */
async function migrate(url: string): Promise<void> {
  const loader = await OrderLoader.open({ db: url, logger: createLogger('silent'), migrate: true });
  await loader.close();
}

interface ChildResult {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  peakRssKb: number | null;
  /** CPU seconds of the child (GNU time only). */
  userS: number | null;
  sysS: number | null;
}

/** Run a command; peak RSS from GNU time -v when available, else by polling VmHWM. */
function runMeasured(command: string, args: string[]): Promise<ChildResult> {
  const useTime = existsSync(GNU_TIME);
  const started = performance.now();
  const child = useTime ? spawn(GNU_TIME, ['-v', command, ...args]) : spawn(command, args);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  let polledKb: number | null = null;
  const poll = useTime
    ? null
    : setInterval(() => {
        try {
          const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
          if (m?.[1] !== undefined) polledKb = Math.max(polledKb ?? 0, Number(m[1]));
        } catch {
          // the process is gone
        }
      }, 50);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (poll !== null) clearInterval(poll);
      const wallMs = performance.now() - started;
      let peakRssKb = polledKb;
      let exit = code;
      let userS: number | null = null;
      let sysS: number | null = null;
      if (useTime) {
        const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
        peakRssKb = m?.[1] !== undefined ? Number(m[1]) : null;
        const e = /Exit status: (\d+)/.exec(stderr);
        if (e?.[1] !== undefined) exit = Number(e[1]);
        const u = /User time \(seconds\): ([\d.]+)/.exec(stderr);
        const s = /System time \(seconds\): ([\d.]+)/.exec(stderr);
        if (u?.[1] !== undefined) userS = Number(u[1]);
        if (s?.[1] !== undefined) sysS = Number(s[1]);
      }
      resolve({ code: exit, stdout, stderr, wallMs, peakRssKb, userS, sysS });
    });
  });
}

interface CliLoadReport {
  stageMs: number;
  processMs: number;
  exitCode: number;
  files: Array<{ tally: Record<string, number>; counts: Record<string, number> }>;
}

async function measureLoad(
  options: E2eOptions,
  label: string,
  file: string,
  rows: number,
  workers: number,
  chunkSize: number,
  extraArgs: string[] = [],
): Promise<LoadMeasurement> {
  const name = `bench_${process.pid}_${label}`;
  const url = await createDatabase(options.adminUrl, name);
  try {
    // the schema is created before the clock starts (the ceiling gets the same treatment)
    await migrate(url);
    const args = [
      ...options.nodeFlags, CLI, 'load', file, '--db', url, '--chunk-size', String(chunkSize),
      '--workers', String(workers), '--log-level', 'warn', '--json', ...extraArgs,
    ];
    const r = await runMeasured(process.execPath, args);
    let report: CliLoadReport | null = null;
    try {
      report = JSON.parse(r.stdout) as CliLoadReport;
    } catch {
      throw new Error(`load ${label}: exit ${r.code}, no JSON report; stderr:\n${r.stderr.slice(-2000)}`);
    }
    const tally = report.files[0]?.tally ?? {};
    const m: LoadMeasurement = {
      label, workers, chunkSize, file, rows, wallMs: r.wallMs, stageMs: report.stageMs, processMs: report.processMs,
      peakRssMb: r.peakRssKb === null ? null : r.peakRssKb / 1024, rowsPerSec: rows / (r.wallMs / 1000),
      exitCode: r.code, done: tally.DONE ?? 0, error: tally.ERROR ?? 0,
      nodeCpuS: r.userS === null ? null : r.userS + (r.sysS ?? 0),
    };
    if (m.done + m.error !== rows) throw new Error(`load ${label}: ${m.done} DONE + ${m.error} ERROR ≠ ${rows} rows: ${JSON.stringify(tally)}`);
    options.log(
      `  load ${label.padEnd(16)} w=${workers} chunk=${String(chunkSize).padEnd(6)} ${fmtMs(m.wallMs)} ` +
        `(stage ${fmtMs(m.stageMs ?? 0)}, process ${fmtMs(m.processMs ?? 0)})  ${fmtRate(m.rowsPerSec)}  ` +
        `peak RSS ${m.peakRssMb?.toFixed(0) ?? '?'} MB  Node CPU ${m.nodeCpuS?.toFixed(1) ?? '?'} s  DONE ${m.done} ERROR ${m.error}`,
    );
    return m;
  } finally {
    if (!options.keep) await dropDatabase(options.adminUrl, name);
  }
}

/** (b) COPY + one MERGE + one UPDATE, no per-row isolation. */
async function measureCeiling(options: E2eOptions, label: string, file: string, rows: number): Promise<CeilingMeasurement> {
  const name = `bench_${process.pid}_${label}`;
  const url = await createDatabase(options.adminUrl, name);
  try {
    await migrate(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const t0 = performance.now();
      const copy = await runMeasured('psql', [
        url, '-v', 'ON_ERROR_STOP=1', '-q', '-c',
        `\\copy order_stage (source_key, customer_id, order_date, amount, currency) FROM '${file.replace(/'/g, "''")}' WITH (FORMAT csv, HEADER true)`,
      ]);
      if (copy.code !== 0) throw new Error(`psql \\copy failed: ${copy.stderr}`);
      const t1 = performance.now();
      await client.query('BEGIN');
      // Precomputed WHERE: rows with no amount (validation) and rows that would overflow
      // orders.amount numeric(12,2) are excluded, otherwise the one MERGE would abort.
      const merge = await client.query(`
        MERGE INTO orders o
        USING (SELECT source_key, customer_id, order_date, amount, currency
                 FROM order_stage
                WHERE amount IS NOT NULL AND amount < ${ORDERS_AMOUNT_LIMIT}) src
        ON o.source_key = src.source_key
        WHEN MATCHED AND (o.customer_id, o.order_date, o.amount, o.currency)
                         IS DISTINCT FROM (src.customer_id, src.order_date, src.amount, src.currency) THEN
          UPDATE SET customer_id = src.customer_id, order_date = src.order_date, amount = src.amount,
                     currency = src.currency, updated_at = now()
        WHEN NOT MATCHED THEN
          INSERT (source_key, customer_id, order_date, amount, currency)
          VALUES (src.source_key, src.customer_id, src.order_date, src.amount, src.currency)`);
      const t2 = performance.now();
      await client.query(`
        UPDATE order_stage
           SET process_status = CASE WHEN amount IS NULL OR amount >= ${ORDERS_AMOUNT_LIMIT} THEN 'ERROR' ELSE 'DONE' END,
               error_code     = CASE WHEN amount IS NULL THEN 'INVALID_AMOUNT'
                                     WHEN amount >= ${ORDERS_AMOUNT_LIMIT} THEN '22003' END,
               attempt_count  = attempt_count + 1,
               processed_at   = now(),
               updated_at     = now()`);
      await client.query('COMMIT');
      const t3 = performance.now();
      const excluded = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM order_stage WHERE amount >= ${ORDERS_AMOUNT_LIMIT}`);
      const m: CeilingMeasurement = {
        rows, copyMs: t1 - t0, mergeMs: t2 - t1, updateMs: t3 - t2, wallMs: t3 - t0, rowsPerSec: rows / ((t3 - t0) / 1000),
        excludedOverflow: excluded.rows[0]?.n ?? 0, merged: merge.rowCount ?? 0,
      };
      options.log(
        `  ceiling ${label.padEnd(13)} ${fmtMs(m.wallMs)} (COPY ${fmtMs(m.copyMs)} = ${fmtRate(rows / (m.copyMs / 1000))}, ` +
          `MERGE ${fmtMs(m.mergeMs)}, UPDATE+COMMIT ${fmtMs(m.updateMs)})  ${fmtRate(m.rowsPerSec)}  ` +
          `merged ${m.merged}, overflow rows excluded by WHERE: ${m.excludedOverflow}`,
      );
      return m;
    } finally {
      await client.end();
    }
  } finally {
    if (!options.keep) await dropDatabase(options.adminUrl, name);
  }
}

/** (c) one statement per row, a SAVEPOINT per MERGE, commit every 500 rows. */
async function measureRowwise(options: E2eOptions, file: string, subset: number, totalRows: number): Promise<RowwiseMeasurement> {
  const name = `bench_${process.pid}_rowwise`;
  const url = await createDatabase(options.adminUrl, name);
  try {
    await migrate(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
      const t0 = performance.now();
      let n = 0;
      let lineNo = 0;
      let inTx = false;
      for await (const line of lines) {
        lineNo++;
        if (lineNo === 1) continue; // header
        if (n >= subset) break;
        n++;
        if (!inTx) {
          await client.query('BEGIN');
          inTx = true;
        }
        const [sourceKey, customerId, orderDate, amount, currency] = line.split(',');
        const amountValue = amount === undefined || amount === '' ? null : amount;
        const staged = await client.query<{ stage_id: number }>({
          name: 'rw_stage',
          text: `INSERT INTO order_stage (source_key, customer_id, order_date, amount, currency, load_id, line_no)
                 VALUES ($1, $2, $3, $4, $5, 1, $6)
                 ON CONFLICT (source_key) DO UPDATE SET customer_id = EXCLUDED.customer_id,
                   order_date = EXCLUDED.order_date, amount = EXCLUDED.amount, currency = EXCLUDED.currency,
                   process_status = 'READY', line_no = EXCLUDED.line_no, updated_at = now()
                 RETURNING stage_id`,
          values: [sourceKey, customerId, orderDate, amountValue, currency, lineNo],
        });
        const stageId = staged.rows[0]?.stage_id;
        let error: { code: string; message: string; phase: string } | null = null;
        if (amountValue === null) {
          error = { code: 'INVALID_AMOUNT', message: 'amount is missing', phase: 'VALIDATE' };
        } else {
          await client.query('SAVEPOINT r');
          try {
            await client.query({
              name: 'rw_merge',
              text: `MERGE INTO orders o
                     USING (SELECT $1::text AS source_key, $2::bigint AS customer_id, $3::date AS order_date,
                                   $4::numeric AS amount, $5::text AS currency) src
                     ON o.source_key = src.source_key
                     WHEN MATCHED THEN UPDATE SET customer_id = src.customer_id, order_date = src.order_date,
                          amount = src.amount, currency = src.currency, updated_at = now()
                     WHEN NOT MATCHED THEN INSERT (source_key, customer_id, order_date, amount, currency)
                          VALUES (src.source_key, src.customer_id, src.order_date, src.amount, src.currency)`,
              values: [sourceKey, customerId, orderDate, amountValue, currency],
            });
            await client.query('RELEASE SAVEPOINT r');
          } catch (e) {
            await client.query('ROLLBACK TO SAVEPOINT r');
            const err = e as { code?: string; message?: string };
            error = { code: err.code ?? 'UNKNOWN', message: err.message ?? '', phase: 'MERGE' };
          }
        }
        if (error === null) {
          await client.query({
            name: 'rw_done',
            text: `UPDATE order_stage SET process_status = 'DONE', attempt_count = attempt_count + 1,
                          processed_at = now(), updated_at = now() WHERE stage_id = $1`,
            values: [stageId],
          });
        } else {
          await client.query({
            name: 'rw_error',
            text: `UPDATE order_stage SET process_status = 'ERROR', attempt_count = attempt_count + 1, error_code = $2,
                          error_message = $3, processed_at = now(), updated_at = now() WHERE stage_id = $1`,
            values: [stageId, error.code, error.message],
          });
          await client.query({
            name: 'rw_log',
            text: `INSERT INTO order_bulk_error (stage_id, source_key, load_id, line_no, attempt_no, phase, error_code, error_message)
                   VALUES ($1, $2, 1, $3, 1, $4, $5, $6)`,
            values: [stageId, sourceKey, lineNo, error.phase, error.code, error.message],
          });
        }
        if (n % 500 === 0) {
          await client.query('COMMIT');
          inTx = false;
        }
      }
      if (inTx) await client.query('COMMIT');
      lines.close();
      const wallMs = performance.now() - t0;
      const rowsPerSec = n / (wallMs / 1000);
      const m: RowwiseMeasurement = { rows: n, wallMs, rowsPerSec, extrapolatedMs: (totalRows / rowsPerSec) * 1000 };
      options.log(
        `  row-at-a-time on the first ${n} rows: ${fmtMs(wallMs)}  ${fmtRate(rowsPerSec)}  ` +
          `(extrapolated to ${totalRows} rows: ${fmtMs(m.extrapolatedMs)})`,
      );
      return m;
    } finally {
      await client.end();
    }
  } finally {
    if (!options.keep) await dropDatabase(options.adminUrl, name);
  }
}

export function fmtMs(ms: number): string {
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${(ms / 1000).toFixed(2)} s`;
}

export function fmtRate(perSec: number): string {
  return perSec >= 10_000 ? `${(perSec / 1000).toFixed(1)} k rows/s` : `${perSec.toFixed(0)} rows/s`;
}

/** The median (lower middle for an even count: for 2 runs, the faster one). */
function median<T>(items: T[], key: (t: T) => number): T {
  const sorted = [...items].sort((a, b) => key(a) - key(b));
  const m = sorted[Math.floor((sorted.length - 1) / 2)];
  if (m === undefined) throw new Error('median of nothing');
  return m;
}

async function dataFile(options: E2eOptions, overflowRate: number): Promise<GenerateResult & { path: string }> {
  mkdirSync(options.dataDir, { recursive: true });
  const path = join(options.dataDir, `orders-${options.rows}-seed${options.seed}-overflow${overflowRate}.csv`);
  const t0 = performance.now();
  const result = await generateOrderFile(path, { rows: options.rows, seed: options.seed, overflowRate });
  options.log(`  generated ${path}: ${result.rows} rows, ${result.missing} missing amounts, ${result.overflow} overflow amounts (${fmtMs(performance.now() - t0)})`);
  return { ...result, path };
}

export async function runE2e(options: E2eOptions): Promise<E2eResult> {
  const log = options.log;
  log(`order-loader e2e benchmark: ${options.rows} rows, admin ${new URL(options.adminUrl).host}`);
  const withOverflow = await dataFile(options, 0.001);
  const withoutOverflow = options.isolation ? await dataFile(options, 0) : undefined;
  const rows = options.rows;

  const ceiling: CeilingMeasurement[] = [];
  const load: LoadMeasurement[] = [];
  for (let i = 1; i <= options.repeat; i++) {
    if (!options.skipCeiling) ceiling.push(await measureCeiling(options, `ceiling${i}`, withOverflow.path, rows));
    load.push(await measureLoad(options, `load${i}`, withOverflow.path, rows, options.workers, options.chunkSize));
  }
  const rowwise = options.skipRowwise ? null : await measureRowwise(options, withOverflow.path, Math.min(options.rowSubset, rows), rows);
  const isolationLoad = withoutOverflow === undefined ? null
    : await measureLoad(options, 'no_overflow', withoutOverflow.path, rows, options.workers, options.chunkSize);
  const matrix: LoadMeasurement[] = [];
  for (const m of options.matrix) {
    const overlap = m.overlap === true;
    matrix.push(await measureLoad(options, `w${m.workers}_c${m.chunkSize}${overlap ? '_overlap' : ''}`, withOverflow.path, rows, m.workers, m.chunkSize, overlap ? ['--overlap'] : []));
  }

  const result: E2eResult = {
    files: withoutOverflow === undefined ? { withOverflow } : { withOverflow, withoutOverflow },
    ceiling, load, rowwise, isolationLoad, matrix,
  };
  log('');
  log(summary(result, options));
  return result;
}

export function summary(r: E2eResult, options: Pick<E2eOptions, 'rows' | 'workers' | 'chunkSize'>): string {
  const out: string[] = [];
  const cpu = (m: LoadMeasurement) => (m.nodeCpuS === null ? '?' : `${m.nodeCpuS.toFixed(1)} s`);
  const load = median(r.load, (m) => m.wallMs);
  const ceiling = r.ceiling.length > 0 ? median(r.ceiling, (m) => m.wallMs) : null;
  out.push(`Summary (${options.rows} rows; ${r.files.withOverflow.missing} missing amounts, ${r.files.withOverflow.overflow} overflow amounts)`);
  out.push(`| measurement | wall | rows/s | peak RSS | Node CPU |`);
  out.push(`|---|---|---|---|---|`);
  out.push(`| load (workers ${load.workers}, chunk ${load.chunkSize}) | ${fmtMs(load.wallMs)} | ${fmtRate(load.rowsPerSec)} | ${load.peakRssMb?.toFixed(0) ?? '?'} MB | ${cpu(load)} |`);
  if (ceiling !== null) {
    out.push(`| set-based ceiling (COPY + 1 MERGE + 1 UPDATE; overflow rows excluded by a precomputed WHERE) | ${fmtMs(ceiling.wallMs)} | ${fmtRate(ceiling.rowsPerSec)} | – | – |`);
  }
  if (r.rowwise !== null) {
    out.push(`| row-at-a-time (measured on ${r.rowwise.rows} rows, extrapolated) | ${fmtMs(r.rowwise.extrapolatedMs)} (est.) | ${fmtRate(r.rowwise.rowsPerSec)} | – | – |`);
  }
  if (r.isolationLoad !== null) {
    out.push(`| load, same file without overflow rows | ${fmtMs(r.isolationLoad.wallMs)} | ${fmtRate(r.isolationLoad.rowsPerSec)} | ${r.isolationLoad.peakRssMb?.toFixed(0) ?? '?'} MB | ${cpu(r.isolationLoad)} |`);
  }
  for (const m of r.matrix) {
    out.push(`| load workers ${m.workers}, chunk ${m.chunkSize} | ${fmtMs(m.wallMs)} | ${fmtRate(m.rowsPerSec)} | ${m.peakRssMb?.toFixed(0) ?? '?'} MB | ${cpu(m)} |`);
  }
  out.push('');
  const check = (ok: boolean) => (ok ? 'ok' : 'MISSED');
  if (ceiling !== null) {
    // with --repeat, ratios of the alternating (ceiling, load) pairs, and their median
    const pairs = r.load.map((l, i) => (r.ceiling[i] === undefined ? null : l.rowsPerSec / (r.ceiling[i]?.rowsPerSec ?? 1))).filter((x): x is number => x !== null);
    const ratio = pairs.length > 1 ? median(pairs, (x) => x) : load.rowsPerSec / ceiling.rowsPerSec;
    if (pairs.length > 1) out.push(`load / ceiling per pair: ${pairs.map((x) => x.toFixed(2)).join(', ')}`);
    out.push(`load / ceiling        = ${ratio.toFixed(2)}  (issue 2 target ≥ 0.40: ${check(ratio >= 0.4)}; issue 5 target ≥ 0.60: ${check(ratio >= 0.6)})`);
  }
  if (r.rowwise !== null) {
    const ratio = load.rowsPerSec / r.rowwise.rowsPerSec;
    out.push(`load / row-at-a-time = ${ratio.toFixed(1)}  (target ≥ 25: ${check(ratio >= 25)})`);
  }
  if (r.isolationLoad !== null) {
    const ratio = load.rowsPerSec / r.isolationLoad.rowsPerSec;
    out.push(`with 0.1% overflow / without = ${ratio.toFixed(2)}  (target ≥ 0.80: ${check(ratio >= 0.8)})`);
  }
  if (load.peakRssMb !== null) out.push(`peak RSS of load      = ${load.peakRssMb.toFixed(0)} MB  (target ≤ 256: ${check(load.peakRssMb <= 256)})`);
  if (r.load.length > 1) out.push(`(load and ceiling rows: the faster of ${r.load.length} alternating runs for 2, else the median; load / ceiling: median of the pair ratios)`);
  return out.join('\n');
}
