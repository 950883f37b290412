/**
 * A load profile must not slow loading. `load --dry-run --profile
 * examples/profiles/eu-erp.yaml` on the European shape of a generated file against `load
 * --dry-run` (the built-in format) on the same orders, both as child processes of the built code,
 * in alternating pairs so that each ratio is measured in the same minute on a shared machine.
 * Target: built-in time / profile time ≥ 0.8.
 *
 *   node dist/bench/profile-rate.js [--rows 1000000] [--pairs 3]
 *
 * The European file holds the same rows: a banner line, ";" between fields, windows-1252,
 * dates DD.MM.YYYY, amounts with a decimal comma and "." for thousands, a Status and a free-text
 * column (the profile's `when` tests Status).
 */
import { createReadStream, createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fmtMs, fmtRate } from './figures.js';
import { generateOrderFile } from './generate.js';
import { runMeasured, type ChildResult } from './measured-child.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const ALONE = fileURLToPath(new URL('./csv-parse-alone.js', import.meta.url));
const PROFILE = fileURLToPath(new URL('../../examples/profiles/eu-erp.yaml', import.meta.url));

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '1000000' }, pairs: { type: 'string', default: '3' } },
});
const rows = Number(values.rows);
const dir = join(tmpdir(), 'order-loader-bench');
mkdirSync(dir, { recursive: true });
const builtin = join(dir, `orders-${rows}-seed42-overflow0.001.csv`);
const european = join(dir, `orders-${rows}-seed42-overflow0.001.eu.csv`);
if (!existsSync(builtin)) await generateOrderFile(builtin, { rows, seed: 42, overflowRate: 0.001 });

/** 1234.5 → "1.234,50"; "" stays "". */
function europeanAmount(v: string): string {
  if (v === '') return '';
  const negative = v.startsWith('-');
  const [integer = '0', fraction = ''] = (negative ? v.slice(1) : v).split('.');
  const grouped = integer.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${negative ? '-' : ''}${grouped},${fraction.padEnd(2, '0')}`;
}

if (!existsSync(european)) {
  const out = createWriteStream(european, { encoding: 'latin1' });
  out.write('Auftragsexport (Benchmark)\r\nAuftragsnr;Kunde;Datum;Betrag;W\u00e4hrung;Status;Bemerkung\r\n');
  let first = true;
  for await (const line of createInterface({ input: createReadStream(builtin, 'utf8'), crlfDelay: Infinity })) {
    if (first) {
      first = false;
      continue;
    }
    const [key = '', customer = '', date = '', amount = '', currency = ''] = line.split(',');
    const d = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
    const eDate = d === null ? date : `${d[3] ?? ''}.${d[2] ?? ''}.${d[1] ?? ''}`;
    if (!out.write(`${key};${customer};${eDate};${europeanAmount(amount)};${currency};offen;\r\n`))
      await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

function check(label: string, r: ChildResult): ChildResult {
  if (r.code !== 0 && r.code !== 2) throw new Error(`${label}: exit ${String(r.code)}\n${r.stderr.slice(-2000)}`);
  return r;
}

const counts = (r: ChildResult) => {
  const files = (JSON.parse(r.stdout) as { files: Array<{ counts: { read: number; rejected: number; toMerge: number } }> }).files;
  return files[0]?.counts;
};
const ratios: number[] = [];
const cpuRatios: number[] = [];
// csv-parse alone on each file (records counted and dropped): what the two shapes cost the parser
// before any work of ours, so the part of the ratio that is the file's and not the profile's
const aloneRatios: number[] = [];
const cpuS = (r: ChildResult): number | null => (r.userS === null ? null : r.userS + (r.sysS ?? 0));
for (let pair = 1; pair <= Number(values.pairs); pair++) {
  // alternate which runs first, so that neither always gets the calmer half of the minute
  const runBuiltin = () => runMeasured(process.execPath, [CLI, 'load', builtin, '--dry-run', '--json']);
  const runProfile = () => runMeasured(process.execPath, [CLI, 'load', european, '--dry-run', '--json', '--profile', PROFILE]);
  let b: ChildResult;
  let p: ChildResult;
  if (pair % 2 === 1) {
    b = check('built-in', await runBuiltin());
    p = check('profile', await runProfile());
  } else {
    p = check('profile', await runProfile());
    b = check('built-in', await runBuiltin());
  }
  const alone = [check('csv-parse alone', await runMeasured(process.execPath, [ALONE, builtin]))];
  alone.push(check('csv-parse alone', await runMeasured(process.execPath, [ALONE, european, ';', '2'])));
  const [ab, ap] = alone.map(cpuS);
  if (ab != null && ap != null) aloneRatios.push(ab / ap);
  const bc = counts(b);
  const pc = counts(p);
  if (JSON.stringify(bc) !== JSON.stringify(pc))
    throw new Error(`the two files read differently: ${JSON.stringify(bc)} vs ${JSON.stringify(pc)}`);
  const ratio = b.wallMs / p.wallMs;
  ratios.push(ratio);
  const bCpu = cpuS(b);
  const pCpu = cpuS(p);
  if (bCpu !== null && pCpu !== null) cpuRatios.push(bCpu / pCpu);
  const read = bc?.read ?? rows;
  process.stdout.write(
    `pair ${pair}: built-in ${fmtMs(b.wallMs)} ${fmtRate(read / (b.wallMs / 1000))} (CPU ${bCpu?.toFixed(2) ?? '?'} s)` +
      ` | profile eu-erp ${fmtMs(p.wallMs)} ${fmtRate(read / (p.wallMs / 1000))} (CPU ${pCpu?.toFixed(2) ?? '?'} s)` +
      ` | built-in time / profile time = ${ratio.toFixed(2)} (by CPU ${cpuRatios.at(-1)?.toFixed(2) ?? '?'})` +
      ` | csv-parse alone, CPU: built-in file ${ab?.toFixed(2) ?? '?'} s, European file ${ap?.toFixed(2) ?? '?'} s (${aloneRatios.at(-1)?.toFixed(2) ?? '?'})\n`,
  );
}
process.stdout.write(
  `${rows} rows: built-in / profile: ${ratios.map((r) => r.toFixed(2)).join(', ')} (wall), ${cpuRatios.map((r) => r.toFixed(2)).join(', ')} (CPU); target ≥ 0.8; csv-parse alone on the two files: ${aloneRatios.map((r) => r.toFixed(2)).join(', ')} (CPU)\n`,
);
