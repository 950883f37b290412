/**
 * The same orders as CSV, as JSON Lines and as an xlsx workbook: `load --dry-run` and `load` of
 * each, as child processes of the built code under GNU time (wall, CPU, peak RSS), the formats in
 * turn within a round and the first one changing each round, so that each format's ratio to CSV
 * is measured in the same minutes on a shared machine.
 *
 *   node dist/bench/formats-rate.js [--rows 1000000] [--rounds 2] [--load] [--only csv,jsonl,xlsx]
 *
 * The files are written once into $TMPDIR/order-loader-bench from the bench's generated CSV (seed
 * 42: 1 % of the rows without an amount, 0.1 % with an amount orders.amount cannot hold):
 * - `csv`: that file, read by the built-in format (no profile);
 * - `csv-profile`: the same file through a profile naming its columns (the path every profile's
 *   file takes: the mapping, not the format, is the difference from `csv`);
 * - `jsonl`: one object a line, the fields nested (`customer.id`, `total.amount`), amounts as
 *   JSON numbers written as in the CSV, a missing amount `null`;
 * - `xlsx`: one sheet written by exceljs's streaming writer with shared strings (as Excel writes
 *   them: after the sheet, so the reader keeps the sheet in a temporary file until they are read),
 *   dates as date-formatted cells, amounts as number cells, a missing amount an empty cell.
 * Every run's counts (read, rejected, to merge / DONE) must be the same for every format.
 * `--load`: also `load` into a new PGlite folder (removed after each run).
 */
import { createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import ExcelJS from 'exceljs';
import { generateOrderFile } from './generate.js';
import { runMeasured, type ChildResult } from './measured-child.js';
import { medianOf } from './pairs.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const FORMATS = ['csv', 'csv-profile', 'jsonl', 'xlsx'] as const;
type Format = (typeof FORMATS)[number];

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '2' },
    load: { type: 'boolean', default: false },
    only: { type: 'string', default: FORMATS.join(',') },
  },
});
const rows = Number(values.rows);
const formats = values.only.split(',').map((f) => {
  if (!(FORMATS as readonly string[]).includes(f)) throw new Error(`--only: ${f} is none of ${FORMATS.join(', ')}`);
  return f as Format;
});
const dir = join(tmpdir(), 'order-loader-bench');
mkdirSync(dir, { recursive: true });
const base = join(dir, `orders-${rows}-seed42-overflow0.001`);
const csv = `${base}.csv`;
if (!existsSync(csv)) await generateOrderFile(csv, { rows, seed: 42, overflowRate: 0.001 });

type Names = Record<'source_key' | 'customer_id' | 'order_date' | 'amount' | 'currency', string>;
const COLUMNS = (names: Names): string =>
  [
    'columns:',
    `  source_key: { column: '${names.source_key}' }`,
    `  customer_id: { column: '${names.customer_id}' }`,
    `  order_date: { column: '${names.order_date}', date: 'YYYY-MM-DD' }`,
    `  amount: { column: '${names.amount}' }`,
    `  currency: { column: '${names.currency}' }`,
  ].join('\n');
const SAME: Names = {
  source_key: 'source_key',
  customer_id: 'customer_id',
  order_date: 'order_date',
  amount: 'amount',
  currency: 'currency',
};
const NESTED: Names = {
  source_key: 'id',
  customer_id: 'customer.id',
  order_date: 'placed_at',
  amount: 'total.amount',
  currency: 'total.currency',
};
const profiles: Record<Exclude<Format, 'csv'>, string> = {
  'csv-profile': `version: 1\nname: bench-csv\n${COLUMNS(SAME)}\n`,
  jsonl: `version: 1\nname: bench-jsonl\nformat: jsonl\n${COLUMNS(NESTED)}\n`,
  xlsx: `version: 1\nname: bench-xlsx\nformat: xlsx\n${COLUMNS(SAME)}\n`,
};
for (const [format, text] of Object.entries(profiles)) writeFileSync(join(dir, `bench-${format}.yaml`), text);

/** The CSV's rows, its header passed over. */
async function* csvRows(): AsyncGenerator<[string, string, string, string, string]> {
  let first = true;
  for await (const line of createInterface({ input: createReadStream(csv, 'utf8'), crlfDelay: Infinity })) {
    if (first) first = false;
    else {
      const [key = '', customer = '', date = '', amount = '', currency = ''] = line.split(',');
      yield [key, customer, date, amount, currency];
    }
  }
}

/** Written to a temporary name, renamed when complete: an interrupted writing leaves no file taken for whole. */
async function writeOnce(path: string, write: (tmp: string) => Promise<void>): Promise<void> {
  if (existsSync(path)) return;
  const tmp = `${path}.part`;
  await write(tmp);
  renameSync(tmp, path);
}

await writeOnce(`${base}.jsonl`, async (tmp) => {
  const out = createWriteStream(tmp, { highWaterMark: 1 << 20 });
  let buffer = '';
  for await (const [key, customer, date, amount, currency] of csvRows()) {
    // the amount as a JSON number written as the CSV writes it (1234.50): the reader takes it as written
    buffer += `{"id":"${key}","customer":{"id":${customer}},"placed_at":"${date}","total":{"amount":${amount === '' ? 'null' : amount},"currency":"${currency}"}}\n`;
    if (buffer.length >= 1 << 16) {
      if (!out.write(buffer)) await once(out, 'drain');
      buffer = '';
    }
  }
  out.end(buffer);
  await once(out, 'finish');
});

await writeOnce(`${base}.xlsx`, async (tmp) => {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: tmp, useSharedStrings: true, useStyles: true });
  const sheet = workbook.addWorksheet('Orders');
  sheet.addRow(Object.keys(SAME)).commit();
  for await (const [key, customer, date, amount, currency] of csvRows()) {
    const row = sheet.addRow([key, Number(customer), new Date(`${date}T00:00:00Z`), amount === '' ? null : Number(amount), currency]);
    row.getCell(3).numFmt = 'yyyy-mm-dd';
    row.commit();
  }
  sheet.commit();
  await workbook.commit();
});

const fileOf: Record<Format, string> = { csv, 'csv-profile': csv, jsonl: `${base}.jsonl`, xlsx: `${base}.xlsx` };
const profileArgs = (f: Format): string[] => (f === 'csv' ? [] : ['--profile', join(dir, `bench-${f}.yaml`)]);

interface Measured {
  wallS: number;
  cpuS: number;
  rssMb: number;
  counts: string;
}

function measured(label: string, r: ChildResult, counts: (report: unknown) => unknown): Measured {
  if (r.code !== 0 && r.code !== 2) throw new Error(`${label}: exit ${String(r.code)}\n${r.stderr.slice(-2000)}`);
  return {
    wallS: r.wallMs / 1000,
    cpuS: (r.userS ?? NaN) + (r.sysS ?? 0),
    rssMb: (r.peakRssKb ?? NaN) / 1024,
    counts: JSON.stringify(counts(JSON.parse(r.stdout) as unknown)),
  };
}

type Report = { files: Array<{ counts: Record<string, number> }>; process?: { done: number; error: number } | null };
const dryCounts = (report: unknown) => {
  const c = (report as Report).files[0]?.counts ?? {};
  return { read: c.read, rejected: c.rejected, toMerge: c.toMerge };
};
const loadCounts = (report: unknown) => {
  const r = report as Report;
  const c = r.files[0]?.counts ?? {};
  return { read: c.read, rejected: c.rejected, done: r.process?.done, error: r.process?.error };
};

async function dryRun(f: Format): Promise<Measured> {
  const args = [CLI, 'load', fileOf[f], '--dry-run', ...profileArgs(f), '--json', '--log-level', 'warn'];
  return measured(`${f} dry run`, await runMeasured(process.execPath, args), dryCounts);
}

async function load(f: Format): Promise<Measured> {
  const folder = mkdtempSync(join(dir, 'formats-db-'));
  try {
    const args = [CLI, 'load', fileOf[f], ...profileArgs(f), '--db', `pglite:${folder}`, '--json', '--log-level', 'warn'];
    return measured(`${f} load`, await runMeasured(process.execPath, args), loadCounts);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const results: Record<string, Record<Format, Measured[]>> = {};
const kinds = values.load ? (['dry run', 'load'] as const) : (['dry run'] as const);
for (const kind of kinds) results[kind] = Object.fromEntries(formats.map((f) => [f, []])) as unknown as Record<Format, Measured[]>;

const fmt = (m: Measured): string => `${m.wallS.toFixed(2)} s wall, ${m.cpuS.toFixed(2)} s CPU, ${m.rssMb.toFixed(0)} MB`;
for (let round = 0; round < Number(values.rounds); round++) {
  // the first format changes each round
  const order = formats.map((_, i) => formats[(i + round) % formats.length] as Format);
  for (const kind of kinds) {
    for (const f of order) {
      const m = kind === 'load' ? await load(f) : await dryRun(f);
      results[kind]?.[f].push(m);
      const la = loadavg().map((x) => x.toFixed(1));
      process.stdout.write(`round ${round + 1} ${kind} ${f}: ${fmt(m)} (load average ${la.join(' ')}) ${m.counts}\n`);
    }
  }
}

for (const kind of kinds) {
  const byFormat = results[kind] as Record<Format, Measured[]>;
  const counts = new Set(formats.flatMap((f) => byFormat[f].map((m) => m.counts)));
  if (counts.size > 1) throw new Error(`${kind}: the formats' counts differ: ${[...counts].join(' / ')}`);
  process.stdout.write(`\n${kind}, ${rows} rows, median (range) of ${values.rounds} round(s); counts ${[...counts].join('')}\n`);
  process.stdout.write('| format | wall | CPU | peak RSS | CPU / csv (same round) |\n|---|---|---|---|---|\n');
  const cell = (xs: number[], digits: number): string =>
    `${medianOf(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
  const csvRuns = formats.includes('csv') ? byFormat.csv : [];
  for (const f of formats) {
    const ms = byFormat[f];
    const ratios = csvRuns.length === ms.length ? ms.map((m, i) => m.cpuS / (csvRuns[i]?.cpuS ?? NaN)) : [];
    const wall = cell(
      ms.map((m) => m.wallS),
      2,
    );
    const cpu = cell(
      ms.map((m) => m.cpuS),
      2,
    );
    const rss = cell(
      ms.map((m) => m.rssMb),
      0,
    );
    process.stdout.write(`| ${f} | ${wall} s | ${cpu} s | ${rss} MB | ${ratios.length > 0 ? cell(ratios, 2) : 'n/a'} |\n`);
  }
}
