import type { StatusReport } from '../engine/types.js';
import type { LoadReport, ProcessReport } from '../pipeline/load.js';
import type { RunEventRecord, RunRecord } from '../engine/types.js';

function table(rows: Array<Array<string | number>>): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, String(cell).length)));
  return rows
    .map((row) => row.map((cell, i) => (typeof cell === 'number' ? String(cell).padStart(widths[i] ?? 0) : String(cell).padEnd(widths[i] ?? 0))).join('  ').trimEnd())
    .join('\n');
}

const rate = (rows: number, ms: number) => (ms > 0 ? Math.round((rows * 1000) / ms) : 0);
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export function renderLoadReport(report: LoadReport): string {
  const lines: string[] = [];
  const rows: Array<Array<string | number>> = [['file', 'load', 'read', 'staged', 'unchanged', 'duplicates', 'rejected', 'DONE', 'ERROR', 'waiting']];
  let read = 0;
  for (const f of report.files) {
    read += f.counts.read;
    rows.push([
      f.file, f.loadId, f.counts.read, f.counts.inserted + f.counts.updated, f.counts.unchanged, f.counts.duplicates, f.counts.rejected,
      f.tally.DONE ?? 0, f.tally.ERROR ?? 0, (f.tally.RETRY_WAIT ?? 0) + (f.tally.READY ?? 0),
    ]);
  }
  lines.push(table(rows));
  if (report.process !== null) {
    const p = report.process;
    lines.push(
      `processed ${p.claimed} rows in ${p.chunks} chunks: ${p.done} DONE, ${p.error} ERROR (${p.validateErrors} by validation, ${p.mergeErrors - p.retryWait} by the database), ${p.retryWait} waiting to retry`,
    );
  }
  lines.push(`elapsed ${seconds(report.elapsedMs)} (stage ${seconds(report.stageMs)}, process ${seconds(report.processMs)}), ${rate(read, report.elapsedMs)} rows/s`);
  if (report.aborted !== null) lines.push(`NOT FINISHED: ${report.aborted}`);
  else if (report.exitCode === 2) lines.push('some rows are ERROR or were rejected: see `order-loader status` and the order_bulk_error table');
  return lines.join('\n');
}

export function renderProcessReport(report: ProcessReport): string {
  const p = report.process;
  const lines = [
    `run ${report.runId}: processed ${p.claimed} rows in ${p.chunks} chunks: ${p.done} DONE, ${p.error} ERROR, ${p.retryWait} waiting to retry`,
    `elapsed ${seconds(report.elapsedMs)}, ${rate(p.claimed, report.elapsedMs)} rows/s`,
  ];
  if (report.aborted !== null) lines.push(`NOT FINISHED: ${report.aborted}`);
  return lines.join('\n');
}

export function renderStatus(report: StatusReport): string {
  const statuses = ['READY', 'PROCESSING', 'RETRY_WAIT', 'DONE', 'ERROR'] as const;
  const byLoad = new Map<string, Record<string, number>>();
  const total: Record<string, number> = {};
  for (const c of report.counts) {
    const key = c.loadId === null ? '-' : String(c.loadId);
    const entry = byLoad.get(key) ?? {};
    entry[c.status] = (entry[c.status] ?? 0) + c.count;
    byLoad.set(key, entry);
    total[c.status] = (total[c.status] ?? 0) + c.count;
  }
  const rows: Array<Array<string | number>> = [['load', ...statuses]];
  for (const [load, counts] of byLoad) rows.push([load, ...statuses.map((s) => counts[s] ?? 0)]);
  rows.push(['total', ...statuses.map((s) => total[s] ?? 0)]);
  const lines = [table(rows)];
  if (report.oldestReady !== null) {
    lines.push(`oldest READY: stage_id ${report.oldestReady.stageId} (${report.oldestReady.sourceKey}), staged ${report.oldestReady.stagedAt.toISOString()}`);
  }
  if (report.retryWait.count > 0) {
    lines.push(`RETRY_WAIT: ${report.retryWait.count} rows, next due ${report.retryWait.nextDueAt?.toISOString() ?? '-'}`);
  }
  return lines.join('\n');
}

export function renderRuns(runs: Array<RunRecord & { events: RunEventRecord[] }>): string {
  const rows: Array<Array<string | number>> = [['run', 'command', 'status', 'started', 'finished', 'file', 'message']];
  for (const r of runs) {
    rows.push([r.runId, r.command, r.status, r.startedAt.toISOString(), r.finishedAt?.toISOString() ?? '-', r.fileName ?? '-', r.message ?? '']);
  }
  return table(rows);
}
