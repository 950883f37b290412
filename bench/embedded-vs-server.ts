/**
 * Target 3 of the throughput issue: the embedded default (PGlite) against the PostgreSQL server
 * on the same file in the same run: `load` with the defaults as a child process of the built CLI
 * (wall time, peak RSS, Node CPU), then the size of what each database holds afterwards
 * (PGlite: its data folder, WAL included; server: its database, pg_database_size).
 * The PGlite folder is initialised first (`order-loader init`), as the server database is
 * migrated first: neither clock includes it; the first-run peak RSS of `init` is reported apart.
 *
 *   node dist/bench/embedded-vs-server.js [--rows 100000] [--file F] [--db postgres://…/postgres] [--data-dir D]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { withBenchDatabase } from './bench-database.js';
import { fmtMs, fmtRate } from './figures.js';
import { generateOrderFile } from './generate.js';
import { runMeasured, type ChildResult } from './measured-child.js';
import { withAdmin } from './pg-admin.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    file: { type: 'string' },
    db: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    'data-dir': { type: 'string', default: join(tmpdir(), 'order-loader-bench') },
  },
});
const rows = Number(values.rows);
const dataDir = values['data-dir'];
mkdirSync(dataDir, { recursive: true });
let file = values.file;
if (file === undefined) {
  file = join(dataDir, `orders-${rows}-seed42-overflow0.001.csv`);
  await generateOrderFile(file, { rows, seed: 42, overflowRate: 0.001 });
}

interface Measured {
  wallMs: number;
  peakRssMb: number | null;
  cpuS: number | null;
  stageMs: number;
  processMs: number;
  sizeMb: number;
}

function loaded(label: string, r: ChildResult): { stageMs: number; processMs: number } {
  let report: { stageMs: number; processMs: number; files: Array<{ tally: Record<string, number> }> };
  try {
    report = JSON.parse(r.stdout) as typeof report;
  } catch {
    throw new Error(`${label}: exit ${String(r.code)}, no JSON report\n${r.stderr.slice(-2000)}`);
  }
  const tally = report.files[0]?.tally ?? {};
  if ((tally.DONE ?? 0) + (tally.ERROR ?? 0) !== rows) throw new Error(`${label}: ${JSON.stringify(tally)} ≠ ${rows} rows`);
  return { stageMs: report.stageMs, processMs: report.processMs };
}

function measured(r: ChildResult, phases: { stageMs: number; processMs: number }, sizeMb: number): Measured {
  return {
    wallMs: r.wallMs,
    peakRssMb: r.peakRssKb === null ? null : r.peakRssKb / 1024,
    cpuS: r.userS === null ? null : r.userS + (r.sysS ?? 0),
    ...phases,
    sizeMb,
  };
}

const loadArgs = (db: string) => [CLI, 'load', file, '--db', db, '--log-level', 'warn', '--json'];

const server = await withBenchDatabase({ adminUrl: values.db, keep: false }, 'vs_embedded', async (url) => {
  const r = await runMeasured(process.execPath, loadArgs(url));
  const phases = loaded('server', r);
  const name = new URL(url).pathname.slice(1);
  const bytes = await withAdmin(values.db, async (c) =>
    Number((await c.query<{ b: string }>('SELECT pg_database_size($1) AS b', [name])).rows[0]?.b),
  );
  return measured(r, phases, bytes / 1024 / 1024);
});

const folder = join(dataDir, `pglite-${process.pid}`);
rmSync(folder, { recursive: true, force: true });
const init = await runMeasured(process.execPath, [CLI, 'init', '--db', `pglite:${folder}`, '--log-level', 'warn']);
if (init.code !== 0) throw new Error(`init: exit ${String(init.code)}\n${init.stderr.slice(-2000)}`);
const r = await runMeasured(process.execPath, loadArgs(`pglite:${folder}`));
const phases = loaded('pglite', r);
const folderMb = Number(execFileSync('du', ['-sm', folder], { encoding: 'utf8' }).split('\t')[0]);
const walMb = Number(execFileSync('du', ['-sm', join(folder, 'pg_wal')], { encoding: 'utf8' }).split('\t')[0]);
const embedded = measured(r, phases, folderMb);
rmSync(folder, { recursive: true, force: true });

const line = (name: string, m: Measured) =>
  `| ${name} | ${fmtMs(m.wallMs)} (stage ${fmtMs(m.stageMs)}, process ${fmtMs(m.processMs)}) | ${fmtRate(rows / (m.wallMs / 1000))} | ` +
  `${m.peakRssMb?.toFixed(0) ?? '?'} MB | ${m.cpuS?.toFixed(1) ?? '?'} s | ${m.sizeMb.toFixed(0)} MB |`;
const out = [
  `${file}: ${rows} rows`,
  '| database | wall | rows/s | peak RSS | Node CPU | size after |',
  '|---|---|---|---|---|---|',
  line('PostgreSQL server', server),
  line(`PGlite (folder; pg_wal ${walMb} MB)`, embedded),
  `PGlite \`init\` of the new folder: peak RSS ${init.peakRssKb === null ? '?' : (init.peakRssKb / 1024).toFixed(0)} MB, ${fmtMs(init.wallMs)}`,
  `PGlite / server throughput = ${(server.wallMs / embedded.wallMs).toFixed(2)} (by Node CPU: ${
    server.cpuS !== null && embedded.cpuS !== null ? (server.cpuS / embedded.cpuS).toFixed(2) : '?'
  }); size PGlite / server = ${(embedded.sizeMb / server.sizeMb).toFixed(2)}`,
];
process.stdout.write(`${out.join('\n')}\n`);
