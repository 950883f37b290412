/**
 * The loader as users run it: the built CLI's `load` as a child process, with wall time, peak RSS
 * and Node CPU time (bench/measured-child.ts) and the phase times of its JSON report. The run is
 * checked: DONE + ERROR must equal the row count.
 */
import { fileURLToPath } from 'node:url';
import { withBenchDatabase, type BenchDatabaseOptions } from './bench-database.js';
import { fmtMs, fmtRate } from './figures.js';
import { runMeasured } from './measured-child.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

export interface LoadRunOptions extends BenchDatabaseOptions {
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

interface CliLoadReport {
  stageMs: number;
  processMs: number;
  exitCode: number;
  files: Array<{ tally: Record<string, number>; counts: Record<string, number> }>;
}

export async function measureLoad(
  options: LoadRunOptions,
  label: string,
  file: string,
  rows: number,
  workers: number,
  chunkSize: number,
  extraArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<LoadMeasurement> {
  return withBenchDatabase(options, label, async (url) => {
    const args = [
      ...options.nodeFlags,
      CLI,
      'load',
      file,
      '--db',
      url,
      '--chunk-size',
      String(chunkSize),
      '--workers',
      String(workers),
      '--log-level',
      'warn',
      '--json',
      ...extraArgs,
    ];
    const r = await runMeasured(process.execPath, args, env);
    let report: CliLoadReport;
    try {
      report = JSON.parse(r.stdout) as CliLoadReport;
    } catch {
      throw new Error(`load ${label}: exit ${String(r.code)}, no JSON report; stderr:\n${r.stderr.slice(-2000)}`);
    }
    const tally = report.files[0]?.tally ?? {};
    const m: LoadMeasurement = {
      label,
      workers,
      chunkSize,
      file,
      rows,
      wallMs: r.wallMs,
      stageMs: report.stageMs,
      processMs: report.processMs,
      peakRssMb: r.peakRssKb === null ? null : r.peakRssKb / 1024,
      rowsPerSec: rows / (r.wallMs / 1000),
      exitCode: r.code,
      done: tally.DONE ?? 0,
      error: tally.ERROR ?? 0,
      nodeCpuS: r.userS === null ? null : r.userS + (r.sysS ?? 0),
    };
    if (m.done + m.error !== rows)
      throw new Error(`load ${label}: ${m.done} DONE + ${m.error} ERROR ≠ ${rows} rows: ${JSON.stringify(tally)}`);
    options.log(
      `  load ${label.padEnd(16)} w=${workers} chunk=${String(chunkSize).padEnd(6)} ${fmtMs(m.wallMs)} ` +
        `(stage ${fmtMs(m.stageMs ?? 0)}, process ${fmtMs(m.processMs ?? 0)})  ${fmtRate(m.rowsPerSec)}  ` +
        `peak RSS ${m.peakRssMb?.toFixed(0) ?? '?'} MB  Node CPU ${m.nodeCpuS?.toFixed(1) ?? '?'} s  DONE ${m.done} ERROR ${m.error}`,
    );
    return m;
  });
}
