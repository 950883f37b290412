/**
 * End-to-end benchmark against server PostgreSQL; results in bench/RESULTS.md
 * (docs/ARCHITECTURE.md, section 10). In ONE run, each measurement in a fresh database
 * (bench/bench-database.ts):
 *  (a) `load`, the built CLI as a child process (bench/load-run.ts);
 *  (b) the set-based ceiling: COPY + one MERGE + one UPDATE (bench/set-based-ceiling.ts);
 *  (c) the row-at-a-time baseline, on a subset of the rows (bench/row-at-a-time.ts);
 * then the summary of ratios (bench/e2e-summary.ts).
 */
import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { summary } from './e2e-summary.js';
import { fmtMs } from './figures.js';
import { generateOrderFile, type GenerateResult } from './generate.js';
import { measureLoad, type LoadMeasurement } from './load-run.js';
import { measureRowwise, type RowwiseMeasurement } from './row-at-a-time.js';
import { measureCeiling, type CeilingMeasurement } from './set-based-ceiling.js';
import { nonDefaultSettings, settingsLine, type ServerSetting } from './server-settings.js';

export interface E2eOptions {
  adminUrl: string;
  rows: number;
  seed: number;
  dataDir: string;
  /** Default load configuration (the headline ratios). */
  workers: number;
  chunkSize: number;
  /** Extra configurations, each one more `load` in its own database. */
  matrix: Array<{ workers: number; chunkSize: number; overlap?: boolean; functionStaging?: boolean }>;
  /** Also load the same file without overflow rows (failure-isolation ratio). */
  isolation: boolean;
  /** Also load a file where every amount overflows orders.amount and a clean one (no failing row). */
  allFailing: boolean;
  rowSubset: number;
  /** Repeat the (ceiling, load) pair this many times; the median is reported. */
  repeat: number;
  /**
   * `--before KEY=VALUE`: each pair also runs `load` with this in its environment (e.g.
   * ORDER_LOADER_SETTLE=off, the path before settling while staging), right after the load.
   */
  before: Record<string, string> | null;
  skipCeiling: boolean;
  skipRowwise: boolean;
  keep: boolean;
  /** Extra node flags for the CLI child (e.g. --cpu-prof). */
  nodeFlags: string[];
  log: (line: string) => void;
}

export interface E2eResult {
  files: { withOverflow: GenerateResult & { path: string }; withoutOverflow?: GenerateResult & { path: string } };
  ceiling: CeilingMeasurement[];
  load: LoadMeasurement[];
  /** With `before`: its load in each pair. */
  before: LoadMeasurement[];
  /** The 1-minute load average of the machine at the end of each pair (os.loadavg). */
  loadAverages: number[];
  /** The server's version and its settings not at their defaults (bench/server-settings.ts). */
  server: { version: string; settings: ServerSetting[] };
  rowwise: RowwiseMeasurement | null;
  isolationLoad: LoadMeasurement | null;
  /** With allFailing: the clean file's load, then the all-failing file's. */
  allFailing: { clean: LoadMeasurement; failing: LoadMeasurement } | null;
  matrix: LoadMeasurement[];
}

async function dataFile(options: E2eOptions, overflowRate: number, missingRate = 0.01): Promise<GenerateResult & { path: string }> {
  mkdirSync(options.dataDir, { recursive: true });
  const missing = missingRate === 0.01 ? '' : `-missing${missingRate}`;
  const path = join(options.dataDir, `orders-${options.rows}-seed${options.seed}-overflow${overflowRate}${missing}.csv`);
  const t0 = performance.now();
  const result = await generateOrderFile(path, { rows: options.rows, seed: options.seed, overflowRate, missingRate });
  options.log(
    `  generated ${path}: ${result.rows} rows, ${result.missing} missing amounts, ${result.overflow} overflow amounts (${fmtMs(performance.now() - t0)})`,
  );
  return { ...result, path };
}

export async function runE2e(options: E2eOptions): Promise<E2eResult> {
  const log = options.log;
  log(`order-loader e2e benchmark: ${options.rows} rows, admin ${new URL(options.adminUrl).host}`);
  const server = await nonDefaultSettings(options.adminUrl);
  log(settingsLine(server));
  const withOverflow = await dataFile(options, 0.001);
  const withoutOverflow = options.isolation ? await dataFile(options, 0) : undefined;
  const rows = options.rows;

  const ceiling: CeilingMeasurement[] = [];
  const load: LoadMeasurement[] = [];
  const before: LoadMeasurement[] = [];
  const loadAverages: number[] = [];
  for (let i = 1; i <= options.repeat; i++) {
    if (!options.skipCeiling) ceiling.push(await measureCeiling(options, `ceiling${i}`, withOverflow.path, rows));
    load.push(await measureLoad(options, `load${i}`, withOverflow.path, rows, options.workers, options.chunkSize));
    if (options.before !== null)
      before.push(
        await measureLoad(options, `before${i}`, withOverflow.path, rows, options.workers, options.chunkSize, [], options.before),
      );
    loadAverages.push(loadavg()[0] ?? 0);
    log(`  pair ${i}: load average ${(loadAverages[i - 1] ?? 0).toFixed(1)}`);
  }
  const rowwise = options.skipRowwise ? null : await measureRowwise(options, withOverflow.path, Math.min(options.rowSubset, rows), rows);
  const isolationLoad =
    withoutOverflow === undefined
      ? null
      : await measureLoad(options, 'no_overflow', withoutOverflow.path, rows, options.workers, options.chunkSize);
  let allFailing: E2eResult['allFailing'] = null;
  if (options.allFailing) {
    const cleanFile = await dataFile(options, 0, 0);
    const failingFile = await dataFile(options, 1, 0);
    const clean = await measureLoad(options, 'clean', cleanFile.path, rows, options.workers, options.chunkSize);
    const failing = await measureLoad(options, 'all_failing', failingFile.path, rows, options.workers, options.chunkSize);
    allFailing = { clean, failing };
  }
  const matrix: LoadMeasurement[] = [];
  for (const m of options.matrix) {
    const overlap = m.overlap === true;
    const functionStaging = m.functionStaging === true;
    matrix.push(
      await measureLoad(
        options,
        `w${m.workers}_c${m.chunkSize}${overlap ? '_overlap' : ''}${functionStaging ? '_fn' : ''}`,
        withOverflow.path,
        rows,
        m.workers,
        m.chunkSize,
        overlap ? ['--overlap'] : [],
        functionStaging ? { ORDER_LOADER_STAGE_COPY: 'off' } : {},
      ),
    );
  }

  const result: E2eResult = {
    files: withoutOverflow === undefined ? { withOverflow } : { withOverflow, withoutOverflow },
    ceiling,
    load,
    before,
    loadAverages,
    server,
    rowwise,
    isolationLoad,
    allFailing,
    matrix,
  };
  log('');
  log(summary(result, options));
  return result;
}
