/**
 * Target 2 of the throughput issue: `load --dry-run` (parse + validate, line numbers, byte
 * offsets and raw text kept) against csv-parse alone reading the same file
 * (bench/csv-parse-alone.ts), both as child processes of the built code, in alternating pairs
 * so that each ratio is measured in the same minute on a shared machine.
 *
 *   node dist/bench/parse-rate.js --file F [--pairs 2] [--node-flag=--cpu-prof …]
 *   node dist/bench/parse-rate.js --rows 300000   (generates the bench/ file: seed 42, 1 % missing, 0.1 % overflow)
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fmtMs, fmtRate } from './figures.js';
import { generateOrderFile } from './generate.js';
import { runMeasured, type ChildResult } from './measured-child.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const ALONE = fileURLToPath(new URL('./csv-parse-alone.js', import.meta.url));

const { values } = parseArgs({
  options: {
    file: { type: 'string' },
    rows: { type: 'string', default: '300000' },
    pairs: { type: 'string', default: '2' },
    'node-flag': { type: 'string', multiple: true },
  },
});
const rows = Number(values.rows);
let file = values.file;
if (file === undefined) {
  const dir = join(tmpdir(), 'order-loader-bench');
  mkdirSync(dir, { recursive: true });
  file = join(dir, `orders-${rows}-seed42-overflow0.001.csv`);
  await generateOrderFile(file, { rows, seed: 42, overflowRate: 0.001 });
}
const nodeFlags = values['node-flag'] ?? [];

function check(label: string, r: ChildResult): ChildResult {
  if (r.code !== 0 && r.code !== 2) throw new Error(`${label}: exit ${String(r.code)}\n${r.stderr.slice(-2000)}`);
  return r;
}

const lines: string[] = [];
const ratios: number[] = [];
const cpuRatios: number[] = [];
const cpuS = (r: ChildResult): number | null => (r.userS === null ? null : r.userS + (r.sysS ?? 0));
let records = 0;
for (let pair = 1; pair <= Number(values.pairs); pair++) {
  const alone = check('csv-parse alone', await runMeasured(process.execPath, [...nodeFlags, ALONE, file]));
  records = (JSON.parse(alone.stdout) as { records: number }).records - 1; // minus the header
  const dry = check('load --dry-run', await runMeasured(process.execPath, [...nodeFlags, CLI, 'load', file, '--dry-run', '--json']));
  const ratio = alone.wallMs / dry.wallMs;
  ratios.push(ratio);
  const aloneCpu = cpuS(alone);
  const dryCpu = cpuS(dry);
  if (aloneCpu !== null && dryCpu !== null) cpuRatios.push(aloneCpu / dryCpu);
  const cpu = (r: ChildResult) => cpuS(r)?.toFixed(2) ?? '?';
  const rss = (r: ChildResult) => (r.peakRssKb === null ? '?' : (r.peakRssKb / 1024).toFixed(0));
  lines.push(
    `pair ${pair}: csv-parse alone ${fmtMs(alone.wallMs)} ${fmtRate(records / (alone.wallMs / 1000))} (CPU ${cpu(alone)} s, RSS ${rss(alone)} MB)` +
      ` | load --dry-run ${fmtMs(dry.wallMs)} ${fmtRate(records / (dry.wallMs / 1000))} (CPU ${cpu(dry)} s, RSS ${rss(dry)} MB)` +
      ` | dry-run / csv-parse = ${ratio.toFixed(2)} (by CPU time ${cpuRatios.at(-1)?.toFixed(2) ?? '?'})`,
  );
  process.stdout.write(`${lines[lines.length - 1] ?? ''}\n`);
}
process.stdout.write(
  `${file}: ${records} rows; dry-run / csv-parse alone: ${ratios.map((r) => r.toFixed(2)).join(', ')} (wall time), ` +
    `${cpuRatios.map((r) => r.toFixed(2)).join(', ')} (CPU time)\n`,
);
