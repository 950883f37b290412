/**
 * `npm run bench`: the end-to-end benchmark (bench/e2e.ts) against server PostgreSQL.
 *
 *   node dist/bench/run.js [--rows 1000000] [--db postgres://postgres@127.0.0.1:5432/postgres]
 *     [--workers 2] [--chunk-size 2000] [--matrix 1x500,1x10000,2x2000,4x2000,2x2000f] [--isolation] [--all-failing]
 *     [--row-subset 20000] [--repeat 4] [--before ORDER_LOADER_SETTLE=off] [--skip-ceiling] [--skip-rowwise] [--keep]
 *     [--data-dir /tmp/order-loader-bench] [--seed 42] [--json-out FILE] [--node-flag=--cpu-prof …]
 *
 * --db is an admin URL: the benchmark creates (and drops) its own databases named bench_*.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runE2e } from './e2e.js';

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, not ${value}`);
  return n;
}

/**
 * WORKERSxCHUNK, with a trailing "o" for `load --overlap` (e.g. 2x2000o), and/or "f" for staging
 * by order_loader_stage_batch alone (ORDER_LOADER_STAGE_COPY=off: the staging before COPY).
 */
function parseMatrix(text: string | undefined): Array<{ workers: number; chunkSize: number; overlap: boolean; functionStaging: boolean }> {
  if (text === undefined || text.trim() === '') return [];
  return text.split(',').map((item) => {
    const m = /^(\d+)x(\d+)(o?)(f?)$/.exec(item.trim());
    if (m === null)
      throw new Error(`--matrix items are WORKERSxCHUNK[o][f], e.g. 2x2000, 2x2000o (--overlap), 2x2000f (function staging), not ${item}`);
    return { workers: Number(m[1]), chunkSize: Number(m[2]), overlap: m[3] === 'o', functionStaging: m[4] === 'f' };
  });
}

/** `--before KEY=VALUE`: the environment of each pair's third run, the path before (e2e.ts). */
function beforeEnv(text: string | undefined): Record<string, string> | null {
  if (text === undefined) return null;
  const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(text);
  if (m === null) throw new Error(`--before is KEY=VALUE, e.g. ORDER_LOADER_SETTLE=off, not ${text}`);
  return { [m[1] as string]: m[2] as string };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rows: { type: 'string' },
      db: { type: 'string' },
      seed: { type: 'string' },
      workers: { type: 'string' },
      'chunk-size': { type: 'string' },
      matrix: { type: 'string' },
      isolation: { type: 'boolean', default: false },
      'all-failing': { type: 'boolean', default: false },
      'row-subset': { type: 'string' },
      repeat: { type: 'string' },
      before: { type: 'string' },
      'skip-ceiling': { type: 'boolean', default: false },
      'skip-rowwise': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      'data-dir': { type: 'string' },
      'json-out': { type: 'string' },
      'node-flag': { type: 'string', multiple: true },
    },
  });
  const options = {
    adminUrl: values.db ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    rows: positive('--rows', values.rows, 1_000_000),
    seed: positive('--seed', values.seed, 42),
    dataDir: values['data-dir'] ?? join(tmpdir(), 'order-loader-bench'),
    workers: positive('--workers', values.workers, 2), // the CLI default
    chunkSize: positive('--chunk-size', values['chunk-size'], 2000),
    matrix: parseMatrix(values.matrix),
    isolation: values.isolation,
    allFailing: values['all-failing'],
    rowSubset: positive('--row-subset', values['row-subset'], 20_000),
    // alternating pairs: the median of four is the figure (bench/pairs.ts)
    repeat: positive('--repeat', values.repeat, 4),
    before: beforeEnv(values.before),
    skipCeiling: values['skip-ceiling'],
    skipRowwise: values['skip-rowwise'],
    keep: values.keep,
    nodeFlags: values['node-flag'] ?? [],
    log: (line: string) => process.stdout.write(`${line}\n`),
  };
  const result = await runE2e(options);
  if (values['json-out'] !== undefined) writeFileSync(values['json-out'], `${JSON.stringify(result, null, 2)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
