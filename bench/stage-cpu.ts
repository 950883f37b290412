/**
 * Staging alone, COPY against order_loader_stage_batch, measured by CPU time rather than wall
 * time (on a shared machine the wall time of a run says more about the neighbours than about
 * the code): `stage` of one file in-process into a fresh bench_* database, alternating COPY and
 * function runs; for each, the server's CPU (utime + stime from /proc of every backend of that
 * database, read before the loader closes them: the server must run on this machine) and this
 * process's CPU (parse, node-postgres), per staged row.
 *
 *   node dist/bench/stage-cpu.js --file F [--db ADMIN_URL] [--rounds 2] [--batch-size 5000]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { OrderLoader } from '../src/loader.js';
import { createLogger } from '../src/log.js';
import { withBenchDatabase } from './bench-database.js';

const { values } = parseArgs({
  options: {
    file: { type: 'string' },
    db: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    rounds: { type: 'string', default: '2' },
    'batch-size': { type: 'string', default: '5000' },
  },
});
if (values.file === undefined) throw new Error('--file is required');
const file = values.file;
const adminUrl = values.db;
const batchSize = Number(values['batch-size']);
const TICKS = 100; // USER_HZ on Linux

/** CPU seconds of the server processes serving database `name` (but not `exceptPid`). */
async function backendCpuS(url: string, name: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [name],
    );
    let ticks = 0;
    for (const { pid } of rows) {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    }
    return ticks / TICKS;
  } finally {
    await client.end();
  }
}

interface Run {
  way: 'copy' | 'function';
  rows: number;
  wallS: number;
  serverCpuS: number;
  nodeCpuS: number;
}

async function stageOnce(way: Run['way'], label: string): Promise<Run> {
  return withBenchDatabase({ adminUrl, keep: false }, label, async (url) => {
    if (way === 'function') process.env.ORDER_LOADER_STAGE_COPY = 'off';
    else delete process.env.ORDER_LOADER_STAGE_COPY;
    const loader = await OrderLoader.open({ db: url, logger: createLogger('silent'), migrate: false });
    try {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const report = await loader.stage([file], { batchSize });
      const wallS = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(cpu0);
      const counts = report.files[0]?.counts;
      const rows = (counts?.inserted ?? 0) + (counts?.updated ?? 0) + (counts?.unchanged ?? 0);
      const serverCpuS = await backendCpuS(url, new URL(url).pathname.slice(1));
      return { way, rows, wallS, serverCpuS, nodeCpuS: (cpu.user + cpu.system) / 1e6 };
    } finally {
      await loader.close();
    }
  });
}

const runs: Run[] = [];
for (let i = 1; i <= Number(values.rounds); i++) {
  for (const way of i % 2 === 1 ? (['copy', 'function'] as const) : (['function', 'copy'] as const)) {
    const r = await stageOnce(way, `stagecpu_${way}_${i}`);
    runs.push(r);
    const us = (s: number) => ((s * 1e6) / r.rows).toFixed(1);
    process.stdout.write(
      `${way.padEnd(8)} ${r.rows} rows  wall ${r.wallS.toFixed(1)} s  server CPU ${r.serverCpuS.toFixed(1)} s (${us(r.serverCpuS)} µs/row)  ` +
        `Node CPU ${r.nodeCpuS.toFixed(1)} s (${us(r.nodeCpuS)} µs/row)\n`,
    );
  }
}
const mean = (way: Run['way'], f: (r: Run) => number) => {
  const of = runs.filter((r) => r.way === way);
  return of.reduce((s, r) => s + f(r), 0) / of.length;
};
const ratio = mean('copy', (r) => r.serverCpuS / r.rows) / mean('function', (r) => r.serverCpuS / r.rows);
process.stdout.write(`server CPU per row, COPY / function = ${ratio.toFixed(2)} (mean of ${Number(values.rounds)} rounds each)\n`);
