/**
 * `guess FILE --out p.yaml` then `load --profile p.yaml FILE` on every file of the corpus
 * (test/fixtures/guess-corpus/: files in the shapes partners' exports take, each beside the rows
 * a correct load gives), on PGlite and on PostgreSQL when ORDER_LOADER_TEST_PG is set.
 *
 * Each file ends one of four ways:
 * - right: the load's order_stage and orders hold exactly the expected rows (an order with a
 *   negative amount staged as ERROR with its negative value), exit 0, or 2 when a row is ERROR;
 * - refused rightly: a file the corpus expects refused (`NAME.expected-refusal.txt`, a pattern
 *   the messages must match: JSON Lines, a workbook, dates no sample can tell day from month)
 *   is refused by guess or by load, and nothing is loaded;
 * - missed: guess or load refused it (an open choice, a mask no profile key can say), nothing
 *   wrong stored;
 * - wrong: a value stored that is not the expected one. Silent when the load exited 0.
 * The test reports the counts and fails on any silent wrong value and below its floor.
 */
import { copyFileSync, existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createDatabase, dropDatabase } from '../../bench/pg-admin.js';
import { runCli } from '../support/cli-run.js';
import { tempDir } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { NEEDS, unavailable } from '../support/requirements.js';
import { TEST_PG_URL } from '../support/server-url.js';

const CORPUS = 'test/fixtures/guess-corpus';
/** Compressed by the test before guess reads it (a gzip file of the corpus, made from its text). */
const GZIPPED = new Set(['nightly-orders.csv']);
/** The twelve shapes of partner files the corpus began with (a JSON Lines file and a workbook among them). */
const ISSUE_SHAPES = [
  'excel-windows-cp932.csv',
  'webshop-orders.tsv',
  'jp-accounting.csv',
  'us-erp.csv',
  'pipe-trailer.txt',
  'report-title.csv',
  'eucjp-fixed.dat',
  'sqlserver-export.csv',
  'french-export.csv',
  'shop-export.jsonl',
  'orders_USD_20261201.csv',
  'partner-orders.xlsx',
];
/** Floors as measured (right + refused rightly): raised when guess gets better, never lowered to pass. */
const FLOOR = { all: 31, issueShapes: 11 };

type Row = [string, string, string, string, string, string];
type Verdict = 'right' | 'refused rightly' | 'missed' | 'wrong' | 'silent wrong';

interface Database {
  url: string;
  rows(sql: string): Promise<string[][]>;
  dispose(): Promise<void>;
}

const STAGE_SQL = `SELECT source_key, customer_id::text, order_date::text, amount::text, currency, process_status
  FROM order_stage ORDER BY source_key`;
const ORDERS_SQL = `SELECT source_key, customer_id::text, order_date::text, amount::text, currency, 'DONE'
  FROM orders ORDER BY source_key`;

async function pgliteDatabase(): Promise<Database> {
  const { url, dataDir } = await migratedPgliteDb();
  return {
    url,
    rows: async (sql) => {
      const db = await PGlite.create(dataDir);
      try {
        const r = await db.query<Record<string, string>>(sql);
        return r.rows.map((row) => Object.values(row).map(String));
      } finally {
        await db.close();
      }
    },
    dispose: async () => {},
  };
}

let serverDbs = 0;
async function serverDatabase(admin: string): Promise<Database> {
  const name = `order_loader_corpus_${process.pid}_${Date.now().toString(36)}_${++serverDbs}`;
  const url = await createDatabase(admin, name);
  return {
    url,
    rows: async (sql) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const r = await client.query<Record<string, string>>(sql);
        return r.rows.map((row) => Object.values(row).map(String));
      } finally {
        await client.end();
      }
    },
    dispose: () => dropDatabase(admin, name),
  };
}

function expectedRows(file: string): Row[] | null {
  const path = join(CORPUS, `${file}.expected.csv`);
  if (!existsSync(path)) return null;
  const [, ...lines] = readFileSync(path, 'utf8').trimEnd().split('\n');
  return lines.map((l) => l.split(',') as Row);
}

const same = (a: string[][], b: string[][]): boolean => JSON.stringify(a) === JSON.stringify(b);

interface Outcome {
  file: string;
  verdict: Verdict;
  detail: string;
}

async function runOne(file: string, database: () => Promise<Database>): Promise<Outcome> {
  const dir = tempDir();
  const data = GZIPPED.has(file) ? join(dir, `${file}.gz`) : join(dir, file);
  if (GZIPPED.has(file)) writeFileSync(data, gzipSync(readFileSync(join(CORPUS, file))));
  else copyFileSync(join(CORPUS, file), data);
  // a file that arrived an hour ago: a fresh copy would be left for the next run (--settle)
  const arrived = new Date(Date.now() - 3_600_000);
  utimesSync(data, arrived, arrived);
  const profile = join(dir, 'p.yaml');
  const guessed = await runCli(['guess', data, '--out', profile, '--log-level', 'silent']);
  const said = [guessed.stderr.trim()];
  const refusal = join(CORPUS, `${file}.expected-refusal.txt`);
  const refusedPattern = existsSync(refusal) ? new RegExp(readFileSync(refusal, 'utf8').trim()) : null;
  if (!existsSync(profile)) {
    const verdict = refusedPattern?.test(said.join('\n')) === true && guessed.code !== 0 ? 'refused rightly' : 'missed';
    return { file, verdict, detail: `guess exit ${String(guessed.code)}: ${said.join(' ')}` };
  }
  const db = await database();
  try {
    const loaded = await runCli(['load', '--profile', profile, data, '--db', db.url, '--log-level', 'silent']);
    said.push(loaded.stderr.trim());
    const staged = loaded.code === 1 ? [] : await db.rows(STAGE_SQL);
    const orders = loaded.code === 1 ? [] : await db.rows(ORDERS_SQL);
    const how = `guess exit ${String(guessed.code)}, load exit ${String(loaded.code)}`;
    const want = expectedRows(file);
    if (refusedPattern !== null || want === null) {
      const right = refusedPattern !== null && refusedPattern.test(said.join('\n')) && orders.length === 0 && staged.length === 0;
      if (right) return { file, verdict: 'refused rightly', detail: `${how}: ${said.join(' ').slice(0, 200)}` };
      return { file, verdict: orders.length > 0 && loaded.code === 0 ? 'silent wrong' : 'missed', detail: `${how}: ${said.join(' ')}` };
    }
    const wantOrders = want.filter((r) => r[5] === 'DONE');
    const exitWanted = want.length === wantOrders.length ? 0 : 2;
    // a stored order that is not one of the expected rows is a wrong value, whatever else happened
    const wrongOrders = orders.filter((o) => !wantOrders.some((w) => same([o], [w])));
    if (wrongOrders.length > 0)
      return {
        file,
        verdict: loaded.code === 0 ? 'silent wrong' : 'wrong',
        detail: `${how}: stored ${JSON.stringify(wrongOrders.slice(0, 2))}`,
      };
    if (same(staged, want) && same(orders, wantOrders) && loaded.code === exitWanted) return { file, verdict: 'right', detail: how };
    // every order expected and stored is right; some are missing: silent when the load said nothing
    const silent = loaded.code === 0 && orders.length < wantOrders.length;
    return {
      file,
      verdict: silent ? 'silent wrong' : 'missed',
      detail: `${how}: ${orders.length}/${wantOrders.length} orders; ${said.join(' ').slice(0, 300)}`,
    };
  } finally {
    await db.dispose();
  }
}

function corpusFiles(): string[] {
  return readdirSync(CORPUS)
    .filter((f) => !f.endsWith('.expected.csv') && !f.endsWith('.expected-refusal.txt') && f !== 'README.md')
    .sort();
}

const targets: Array<{ kind: string; database: () => Promise<Database> }> = [{ kind: 'pglite', database: pgliteDatabase }];
if (TEST_PG_URL !== null) targets.push({ kind: 'postgres', database: () => serverDatabase(TEST_PG_URL as string) });

describe.skipIf(unavailable(NEEDS.cli))('guess → load on the corpus of partner files', () => {
  it('the corpus holds at least 20 files, each with its expected rows or refusal', () => {
    const files = corpusFiles();
    expect(files.length).toBeGreaterThanOrEqual(20);
    for (const f of files) expect(expectedRows(f) !== null || existsSync(join(CORPUS, `${f}.expected-refusal.txt`)), f).toBe(true);
    for (const f of ISSUE_SHAPES) expect(files, f).toContain(f);
  });

  it.each(targets)(
    '$kind: hit rate at its floor, no wrong value stored with exit 0',
    async ({ kind, database }) => {
      const outcomes: Outcome[] = [];
      for (const file of corpusFiles()) outcomes.push(await runOne(file, database));
      const count = (v: Verdict[], of = outcomes) => of.filter((o) => v.includes(o.verdict)).length;
      const shapes = outcomes.filter((o) => ISSUE_SHAPES.includes(o.file));
      const hit = count(['right', 'refused rightly']);
      const shapeHit = count(['right', 'refused rightly'], shapes);
      const report = [
        `guess corpus on ${kind}: ${hit}/${outcomes.length} right (${count(['right'])} loaded right, ${count(['refused rightly'])} refused rightly); ` +
          `issue shapes ${shapeHit}/${shapes.length}; missed ${count(['missed'])}; wrong ${count(['wrong'])}; silent wrong ${count(['silent wrong'])}`,
        ...outcomes.map((o) => `  ${o.verdict.padEnd(15)} ${o.file}: ${o.detail.replace(/\s+/g, ' ')}`),
      ].join('\n');
      console.log(report);
      expect(
        outcomes.filter((o) => o.verdict === 'silent wrong'),
        report,
      ).toEqual([]);
      expect(hit, report).toBeGreaterThanOrEqual(FLOOR.all);
      expect(shapeHit, report).toBeGreaterThanOrEqual(FLOOR.issueShapes);
    },
    900_000,
  );
});
