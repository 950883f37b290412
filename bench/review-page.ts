/**
 * The review page (`order-loader serve`) on a database holding many ERROR rows: how long a page
 * of 100 rejected rows takes to serve, first page, a deep page (keyset), a filtered page, one
 * row's history and the overview, each asked `--repeat` times in turn (round robin, so that the
 * machine's moments fall on every kind alike); the median with min–max.
 *
 *   node dist/bench/review-page.js --db pglite:/tmp/rp --rows 1000000 [--repeat 15] [--skip-load]
 *   node dist/bench/review-page.js --db postgres://postgres@127.0.0.1:5432/rp --rows 1000000
 *
 * Without --skip-load the database is first loaded with a synthetic file whose every row has no
 * amount (--missing-rate 1): every row ends ERROR (INVALID_AMOUNT, phase VALIDATE) with its
 * error-log row. On a PGlite folder the page opens the folder per burst of requests
 * (src/serve/source.ts): "cold" requests come after the folder was let go (its open included),
 * "warm" ones within a burst.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateOrderFile } from '../src/bench/synthetic-orders.js';
import { parseDbUrl } from '../src/engine/db-url.js';
import { OrderLoader } from '../src/loader.js';
import { createLogger } from '../src/log.js';
import { reviewApp } from '../src/serve/app.js';
import { folderSource, sharedSource, type LoaderSource } from '../src/serve/source.js';

const logger = createLogger('warn');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  const at = (i: number): number => s[i] ?? Number.NaN;
  return s.length % 2 === 1 ? at(m) : (at(m - 1) + at(m)) / 2;
}

async function load(db: string, rows: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'review-bench-'));
  try {
    const file = join(dir, 'all-errors.csv');
    await generateOrderFile(file, { rows, seed: 44, missingRate: 1, overflowRate: 0 });
    const loader = await OrderLoader.open({ db, logger, command: 'load' });
    const started = performance.now();
    const report = await loader.load([file]);
    await loader.close();
    process.stdout.write(`loaded ${rows} rows in ${((performance.now() - started) / 1000).toFixed(1)} s (exit ${report.exitCode})\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function sourceFor(db: string): LoaderSource {
  const target = parseDbUrl(db, process.env);
  const open = () => OrderLoader.open({ db, logger, command: 'serve', lockTimeoutMs: 1000 });
  if (target.kind === 'pglite' && target.dataDir !== null) return folderSource(open, 2000);
  let shared: Promise<LoaderSource> | undefined;
  return {
    use: async (fn) => (await (shared ??= open().then((l) => sharedSource(l)))).use(fn),
    close: async () => (shared === undefined ? undefined : (await shared).close()),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      db: { type: 'string' },
      rows: { type: 'string', default: '1000000' },
      repeat: { type: 'string', default: '15' },
      'skip-load': { type: 'boolean', default: false },
    },
  });
  if (values.db === undefined) throw new Error('--db URL is required');
  const rows = Number(values.rows);
  if (!values['skip-load']) await load(values.db, rows);
  const source = sourceFor(values.db);
  const app = reviewApp({ source, dbLabel: 'bench', allowEdit: false, operator: 'bench', logger });
  const ask = async (path: string, expectRows: number | null): Promise<number> => {
    const started = performance.now();
    const res = await app.request(path);
    const text = await res.text();
    const ms = performance.now() - started;
    const listed = (text.match(/<tr data-stage-id=/g) ?? []).length;
    if (res.status !== 200 || (expectRows !== null && listed !== expectRows)) throw new Error(`${path}: ${res.status}, ${listed} rows`);
    return ms;
  };
  // the newest stage_id, and one in the middle of the table (a deep keyset page)
  const newest = await source.use(async (l) => (await l.rejectedPage({ limit: 1 })).rows[0]?.stageId ?? 0);
  const kinds: Array<[string, string, number | null]> = [
    ['first page (100 rows)', '/rejected', 100],
    ['deep page (before the middle stage_id)', `/rejected?before=${Math.floor(newest / 2)}`, 100],
    ['filtered (code and phase)', '/rejected?code=INVALID_AMOUNT&phase=VALIDATE', 100],
    ['filtered, deep', `/rejected?code=INVALID_AMOUNT&phase=VALIDATE&before=${Math.floor(newest / 2)}`, 100],
    ['one row', `/row/${Math.floor(newest / 2)}`, null],
    ['overview', '/', null],
  ];
  const repeat = Number(values.repeat);
  const times = new Map<string, number[]>(kinds.map(([k]) => [k, []]));
  for (const [, path, n] of kinds) await ask(path, n); // a first pass to warm
  for (let i = 0; i < repeat; i++) for (const [k, path, n] of kinds) times.get(k)?.push(await ask(path, n));
  process.stdout.write(`| request | median | min–max (${repeat} each) |\n|---|---|---|\n`);
  for (const [k, xs] of times)
    process.stdout.write(`| ${k} | ${median(xs).toFixed(0)} ms | ${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} ms |\n`);
  if (parseDbUrl(values.db, process.env).kind === 'pglite') {
    const cold: number[] = [];
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 2500)); // the folder let go
      cold.push(await ask('/rejected', 100));
    }
    process.stdout.write(
      `| first page, cold (folder opened first) | ${median(cold).toFixed(0)} ms | ${Math.min(...cold).toFixed(0)}–${Math.max(...cold).toFixed(0)} ms (5) |\n`,
    );
  }
  await source.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
