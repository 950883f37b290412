import type { StatusReport } from '../engine/types.js';
import type { DryRunFileResult } from '../loader-dry-run.js';
import type { LoadStatus } from '../loader-status.js';
import type { FileReport, LoadReport, ProcessReport } from '../pipeline/load.js';
import type { RunEventRecord, RunRecord } from '../engine/types.js';
import type { ManualChangeReport } from '../pipeline/operations.js';
import { strandedMessage } from '../pipeline/load-holds.js';
import { namedNotRead } from '../pipeline/load-report.js';
import { controlLines } from './render-control.js';
import type { BenchReport } from '../bench/run-bench.js';
import { controlSummary, controlWouldDo } from '../input/control/control-check.js';
import { heldAdvice } from '../pipeline/control-held-rows.js';
import { setOrderMessage } from '../pipeline/set-order-message.js';
import { escapeControl as e } from './escape.js';
import { phaseParts } from './phase-work.js';

/**
 * A file's line in a load report tells two things apart: what this run did with the file's lines
 * (RUN_COLUMNS), and the statuses of its load's rows now, after this run (ROWS_NOW_COLUMNS;
 * rows an earlier run staged count there too: a file skipped as already staged shows them).
 */
export const RUN_COLUMNS = ['read', 'staged', 'unchanged', 'duplicates', 'rejected'];
export const ROWS_NOW_COLUMNS = ['DONE', 'ERROR', 'waiting'];
export const RUN_HEADING = 'this run: lines of the file';
export const ROWS_NOW_HEADING = "the load's rows now";

/** This run's counts of a file's lines (RUN_COLUMNS): '-' when the file was not read (skipped). */
export function runCounts(f: FileReport): Array<number | string> {
  if (f.skipped !== null) return ['skipped', '-', '-', '-', '-'];
  return [f.counts.read, f.counts.inserted + f.counts.updated, f.counts.unchanged, f.counts.duplicates, f.counts.rejected];
}

/** The statuses of a file's load's rows now (ROWS_NOW_COLUMNS): waiting are READY, RETRY_WAIT and HELD rows. */
export function rowsNow(f: FileReport): number[] {
  return [f.tally.DONE ?? 0, f.tally.ERROR ?? 0, (f.tally.RETRY_WAIT ?? 0) + (f.tally.READY ?? 0) + (f.tally.HELD ?? 0)];
}

type Cell = string | number;

/**
 * A text table aligned in a monospace font; string cells are shown with control characters
 * escaped (they may come from a file or the database). Numbers are right-aligned, and so are the
 * strings of the columns `right` names (a '-' among numbers).
 */
function tableLines(input: Cell[][], right: ReadonlySet<number> = new Set()): { lines: string[]; starts: number[]; widths: number[] } {
  const rows = input.map((row) => row.map((cell) => (typeof cell === 'number' ? cell : e(cell))));
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, String(cell).length)));
  const starts = widths.map((_, i) => widths.slice(0, i).reduce((sum, w) => sum + w + 2, 0));
  const lines = rows.map((row, r) =>
    row
      .map((cell, i) =>
        typeof cell === 'number' || (r > 0 && right.has(i)) ? String(cell).padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0),
      )
      .join('  ')
      .trimEnd(),
  );
  return { lines, starts, widths };
}

function table(input: Cell[][]): string {
  return tableLines(input).lines.join('\n');
}

/**
 * A table whose columns are grouped under headings: a line above the header names each group
 * from its first column, ruled with '-' to its last, so that a monospace font (a terminal, a
 * mail read as text) shows which columns it covers.
 */
export function groupedTable(
  input: Cell[][],
  groups: Array<{ title: string; from: number; to: number }>,
  right?: ReadonlySet<number>,
): string {
  const { lines, starts, widths } = tableLines(input, right);
  let heading = '';
  for (const g of groups) {
    const from = starts[g.from] ?? 0;
    // to the end of the group's last column; a title longer than its columns is not ruled
    const width = (starts[g.to] ?? 0) + (widths[g.to] ?? 0) - from;
    heading = heading.padEnd(from) + (g.title.length + 1 < width ? `${g.title} `.padEnd(width, '-') : g.title);
  }
  return [heading, ...lines].join('\n');
}

const rate = (rows: number, ms: number) => (ms > 0 ? Math.round((rows * 1000) / ms) : 0);
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** `load`: the rows of earlier loads its processing took (due RETRY_WAIT rows, READY rows a `stage` left). */
export function earlierLoadsLine(rows: number): string {
  return `${rows} of the rows processed are of earlier loads (READY, or due to retry after a transient failure)`;
}

/** `load` when no order file arrived: said, then what its processing of earlier loads did (src/pipeline/load.ts). */
export function renderNothingToLoad(message: string, report: LoadReport): string {
  const lines = [e(message)];
  const p = report.process;
  if (p !== null && p.claimed > 0)
    lines.push(
      `processed ${p.claimed} rows of earlier loads in ${p.chunks} chunks: ${p.done} DONE, ${p.error} ERROR (${p.validateErrors} by validation, ${p.mergeErrors - p.retryWait} by the database), ${p.retryWait} waiting to retry`,
    );
  lines.push(...waitingLines(report));
  return lines.join('\n');
}

function waitingLines(report: LoadReport): string[] {
  const lines: string[] = [];
  if (report.retryWait !== null && report.retryWait.count > 0) {
    lines.push(
      `${report.retryWait.count} rows wait in RETRY_WAIT after a transient failure; the first is due ${report.retryWait.nextDueAt?.toISOString() ?? '-'} (run \`order-loader process\` then)`,
    );
  }
  if (report.aborted !== null) lines.push(`NOT FINISHED: ${e(report.aborted)}`);
  return lines;
}

/** The whole command's time and its parts: opening and migrating the database, staging, processing, the rest. */
export function elapsedParts(
  report: { elapsedMs: number; stageMs?: number; processMs?: number },
  timing: { commandMs: number; openMs: number } | undefined,
  stage: string | null,
  process: string | null,
): string {
  const total = timing?.commandMs ?? report.elapsedMs;
  const parts: string[] = [];
  if (timing !== undefined) parts.push(`open and migrate the database ${seconds(timing.openMs)}`);
  if (stage !== null) parts.push(`stage ${seconds(report.stageMs ?? 0)} (${stage})`);
  if (process !== null) parts.push(`process ${seconds(report.processMs ?? report.elapsedMs)} (${process})`);
  if (timing !== undefined) {
    // staging and processing overlap with --overlap: the rest is then what is left, if anything
    const rest =
      total -
      timing.openMs -
      (stage === null ? 0 : (report.stageMs ?? 0)) -
      (process === null ? 0 : (report.processMs ?? report.elapsedMs));
    // listing and checking the files, reading what the report needs
    if (rest >= 5) parts.push(`other ${seconds(rest)}`);
  }
  return `elapsed ${seconds(total)}: ${parts.join(', ')}`;
}

/** A load or stage report's files: this run's counts and the rows now, under their headings. */
export function filesTable(report: LoadReport): string {
  const rows: Cell[][] = [['file', 'load', ...RUN_COLUMNS, ...ROWS_NOW_COLUMNS]];
  for (const f of report.files) rows.push([f.file, f.loadId, ...runCounts(f), ...rowsNow(f)]);
  const run = { title: RUN_HEADING, from: 2, to: 1 + RUN_COLUMNS.length };
  const now = { title: ROWS_NOW_HEADING, from: 2 + RUN_COLUMNS.length, to: 1 + RUN_COLUMNS.length + ROWS_NOW_COLUMNS.length };
  // the '-' of a skipped file stands where its numbers would
  return groupedTable(rows, [run, now], new Set(RUN_COLUMNS.map((_, i) => 3 + i)));
}

/** `timing`: the whole command's time and how long opening the database took (the CLI's; a library caller has none). */
export function renderLoadReport(report: LoadReport, timing?: { commandMs: number; openMs: number }): string {
  const lines: string[] = [];
  lines.push(filesTable(report));
  for (const f of report.files) {
    if (f.profile !== undefined)
      lines.push(`${e(f.file)}: read with profile ${e(f.profile.name)} (sha256 ${f.profile.sha256.slice(0, 12)})`);
    if (f.discarded !== undefined && f.discarded > 0)
      lines.push(`${e(f.file)}: ${f.discarded} line(s) discarded by the profile (when, comment, skip_lines): not errors`);
    if (f.skipped !== null) lines.push(e(f.skipped));
    if (f.resumedAt !== null)
      lines.push(
        `${e(f.file)}: resumed load ${f.loadId} after line ${f.resumedAt.line} (the lines before were committed by an interrupted run)`,
      );
  }
  if (report.setOrder !== undefined) lines.push(e(setOrderMessage(report.setOrder)));
  lines.push(...controlLines(report));
  for (const n of report.notRead) lines.push(e(n.reason));
  for (const k of report.keptForSets ?? []) lines.push(e(k.reason));
  for (const i of report.ignored) lines.push(e(i.reason));
  for (const m of report.empty)
    lines.push(`${e(m.file)}: empty (0 bytes): nothing to load${m.movedTo === null ? '' : `, archived as ${e(m.movedTo)}`}`);
  for (const u of report.unreadable)
    lines.push(
      u.movedTo === null
        ? `${e(u.file)}: cannot be read as an order file: ${e(u.reason)}`
        : `${e(u.file)}: cannot be read as an order file, moved to ${e(u.movedTo)}`,
    );
  const unmatched = report.unmatched ?? [];
  for (const u of unmatched)
    lines.push(`${e(u.file)}: ${e(u.reason)}: not read, ${u.movedTo === null ? 'left in the inbox' : `moved to ${e(u.movedTo)}`}`);
  if (report.archived.length > 0)
    lines.push(`archived ${report.archived.length} file(s): ${report.archived.map((a) => e(a.movedTo)).join(', ')}`);
  if (report.process !== null) {
    const p = report.process;
    lines.push(
      `processed ${p.claimed} rows in ${p.chunks} chunks: ${p.done} DONE, ${p.error} ERROR (${p.validateErrors} by validation, ${p.mergeErrors - p.retryWait} by the database), ${p.retryWait} waiting to retry`,
    );
    if (report.earlierLoadRows > 0) lines.push(earlierLoadsLine(report.earlierLoadRows));
  }
  if (report.retryWait !== null && report.retryWait.count > 0) lines.push(...waitingLines({ ...report, aborted: null }));
  const stranded = report.strandedHolds ?? [];
  for (const h of stranded) lines.push(e(strandedMessage(h)));
  // each rate over its own phase: lines read per second of staging, rows processed per second of processing
  const phases = phaseParts(report);
  lines.push(elapsedParts(report, timing, phases.stage, phases.process));
  if (report.aborted === null && report.unreadable.length > 0)
    lines.push(`${report.unreadable.length} file(s) could not be read as order files: each is in --failed-dir beside <name>.error.txt`);
  if (report.aborted === null && unmatched.length > 0)
    lines.push(
      `${unmatched.length} file(s) matched no load profile: write a profile whose match: takes the name, or take the file away${unmatched.some((u) => u.movedTo !== null) ? ' (in --failed-dir beside <name>.error.txt)' : ''}`,
    );
  const rowsRejected = report.files.some((f) => f.counts.rejected + (f.tally.ERROR ?? 0) + (f.tally.RETRY_WAIT ?? 0) > 0);
  // files whose every line the profile discarded (`when`, comments): exit 2, but nothing is in `errors`
  const allDiscarded = report.files.filter((f) => (f.discarded ?? 0) > 0 && f.counts.read === 0).length;
  if (report.aborted !== null) lines.push(`NOT FINISHED: ${e(report.aborted)}`);
  else if (
    report.exitCode === 2 &&
    (rowsRejected ||
      (report.unreadable.length === 0 &&
        unmatched.length === 0 &&
        !report.notRead.some(namedNotRead) &&
        allDiscarded === 0 &&
        stranded.length === 0 &&
        (report.keptForSets ?? []).length === 0))
  )
    lines.push(
      'some rows are ERROR or were rejected: `order-loader errors` lists them (fix, then load the file back or `order-loader retry`)',
    );
  if (report.aborted === null && allDiscarded > 0) {
    // the rule that did it, named: `when:`, or `comment:`/`skip_lines:` (the lines not by when)
    const emptied = report.files.filter((f) => (f.discarded ?? 0) > 0 && f.counts.read === 0);
    const byWhen = emptied.reduce((n, f) => n + (f.discardedByWhen ?? 0), 0);
    const byOther = emptied.reduce((n, f) => n + (f.discarded ?? 0), 0) - byWhen;
    const rules = [
      ...(byWhen > 0 ? [`when: ${byWhen} line(s)`] : []),
      ...(byOther > 0 ? [`comment: or skip_lines: ${byOther} line(s)`] : []),
    ];
    const check = byWhen > 0 ? 'when:' : 'comment: and skip_lines:';
    lines.push(
      `${allDiscarded} file(s) had every line discarded by the profile (${rules.join(', ')}): nothing of them was loaded; check the profile's ${check} with \`order-loader preview\``,
    );
  }
  return lines.join('\n');
}

export function renderProcessReport(report: ProcessReport, timing?: { commandMs: number; openMs: number }): string {
  const p = report.process;
  const lines = [
    `run ${report.runId}: processed ${p.claimed} rows in ${p.chunks} chunks: ${p.done} DONE, ${p.error} ERROR, ${p.retryWait} waiting to retry`,
    elapsedParts(report, timing, null, `${p.claimed} rows, ${rate(p.claimed, report.elapsedMs)} rows/s`),
  ];
  if (report.retryWait.count > 0) {
    lines.push(
      `${report.retryWait.count} rows wait in RETRY_WAIT after a transient failure; the first is due ${report.retryWait.nextDueAt?.toISOString() ?? '-'} (run \`order-loader process\` then)`,
    );
  }
  if (report.aborted !== null) lines.push(`NOT FINISHED: ${e(report.aborted)}`);
  return lines.join('\n');
}

export function renderBench(report: BenchReport): string {
  const rows: Array<Array<string | number>> = [
    ['chunk', 'workers', 'stage rows/s', 'process rows/s', 'end-to-end rows/s', 'commit p50 ms', 'commit p95 ms', 'peak RSS MB'],
  ];
  for (const c of report.cases) {
    rows.push([
      c.chunkSize,
      c.workers,
      c.stageRowsPerSec,
      c.processRowsPerSec,
      c.endToEndRowsPerSec,
      c.commitP50Ms,
      c.commitP95Ms,
      c.peakRssMb,
    ]);
  }
  const overflows = report.profile !== null && report.generated.overflow === 0 ? 'no' : '0.1%';
  const lines = [`bench: ${report.rows} synthetic rows on ${report.engine} (1% missing amounts, ${overflows} database-level overflows)`];
  if (report.profile !== null)
    lines.push(
      `file written in the shape of profile ${e(report.profile.name)} (sha256 ${report.profile.sha256.slice(0, 12)}) and staged through it${report.profile.notes.length > 0 ? `: ${report.profile.notes.map((n) => e(n)).join('; ')}` : ''}`,
    );
  lines.push(table(rows));
  const rejected = report.cases.filter((c) => c.rejected > 0);
  for (const c of rejected) lines.push(`chunk ${c.chunkSize}, ${c.workers} worker(s): ${c.rejected} line(s) rejected while staging`);
  for (const s of report.skipped) lines.push(`skipped: ${e(s)}`);
  if (report.interrupted) {
    const cut = report.interruptedCase;
    lines.push(
      `INTERRUPTED: ${cut === null ? 'between cases' : `chunk ${cut.chunkSize}, ${cut.workers} worker(s) was cut short and is not shown`}; the table and the chart hold only the ${report.cases.length} complete case(s)`,
    );
  }
  return lines.join('\n');
}

export function renderDryRun(results: DryRunFileResult[]): string {
  const rows: Array<Array<string | number>> = [
    ['file (dry run: nothing written)', 'read', 'would stage', 'duplicates', 'rejected', 'ERROR', 'to MERGE'],
  ];
  for (const r of results) {
    const c = r.counts;
    // a file no profile matched (--profiles) is not read: said below, not counted
    if (r.unmatched === undefined)
      rows.push([r.file, c.read, c.inserted, c.duplicates, c.rejected, c.stagedAsError + c.invalid, c.toMerge]);
  }
  const lines = [table(rows)];
  for (const r of results) {
    const c = r.counts;
    if (r.unmatched !== undefined) {
      lines.push(`${e(r.file)}: ${e(r.unmatched)}: not read (a load moves it to --failed-dir, or leaves it in the inbox)`);
      continue;
    }
    if (r.profile !== undefined)
      lines.push(`${e(r.file)}: read with profile ${e(r.profile.name)} (sha256 ${r.profile.sha256.slice(0, 12)})`);
    if (r.extraColumns.length > 0) lines.push(`${e(r.file)}: ignoring extra column(s) ${r.extraColumns.map(e).join(', ')}`);
    if (r.discarded !== undefined)
      lines.push(`${e(r.file)}: ${r.discarded} line(s) discarded by the profile (when, comment, skip_lines): not errors`);
    if (c.stagedAsError + c.invalid > 0) {
      lines.push(
        `${e(r.file)}: ${c.stagedAsError + c.invalid} rows would end ERROR: ${c.invalid} by validation, ${c.stagedAsError} staged as ERROR from a rejected line with a usable source_key`,
      );
    }
    // a message naming several problems starts with the first one's code already
    for (const s of r.samples)
      lines.push(`${e(r.file)}: line ${s.lineNo}: ${s.message.startsWith(`${s.code}: `) ? '' : `${e(s.code)}: `}${e(s.message)}`);
    if (r.samples.length >= 20) lines.push(`${e(r.file)}: … only the first ${r.samples.length} lines with a problem are shown`);
    if (r.stoppedAt !== null)
      lines.push(`${e(r.file)}: line ${r.stoppedAt.line}: the file cannot be read past this point: ${e(r.stoppedAt.message)}`);
    if (r.control !== undefined) lines.push(`${e(controlSummary(r.control))}: ${controlWouldDo(r.control)}`);
  }
  lines.push(
    'not known without the database: keys it already holds (a load counts them updated or unchanged), and rows it refuses in the MERGE (e.g. an amount too large for orders.amount)',
  );
  return lines.join('\n');
}

export function renderManualChanges(command: string, report: ManualChangeReport): string {
  const verb = report.dryRun ? 'would change' : 'changed';
  const lines = [`${command}: ${verb} ${report.count} row${report.count === 1 ? '' : 's'}`];
  for (const c of report.changes.slice(0, 50))
    lines.push(`  stage_id ${c.stageId} ${e(c.sourceKey)}: ${e(c.oldValues)} → ${e(c.newValues)}`);
  if (report.count > 50) lines.push(`  … ${report.count - 50} more`);
  if (report.released !== undefined && report.released > 0) {
    const which = `${report.released} HELD row${report.released === 1 ? '' : 's'} of loads killed while staging, held longer than --older-than`;
    lines.push(
      `${command}: ${report.dryRun ? `would release ${which}: their files' later lines would then no longer hold them out of orders` : `released ${which} (audited)`}`,
    );
  }
  for (const h of report.controlHeld ?? [])
    lines.push(`${command}: left ${h.rows} ERROR row${h.rows === 1 ? '' : 's'} of load ${h.loadId} as they are: ${heldAdvice(h)}`);
  for (const k of report.heldKept ?? []) {
    const rows = `${k.rows} HELD row${k.rows === 1 ? '' : 's'}`;
    const of = `load ${k.loadId}${k.fileName === null ? '' : ` (${e(k.fileName)})`}`;
    lines.push(
      k.why === 'control'
        ? `${command}: kept ${rows} of ${of}: held for its control totals (the file's count or sum differs from what was read); released only by \`order-loader accept ${k.loadId} --reason "…"\``
        : k.why === 'staging'
          ? `${command}: kept ${rows} of ${of}: a running run stages it; released when that run's staging ends`
          : `${command}: kept ${rows} of ${of}, held since ${utcSeconds(k.heldSince)} (more recently than --older-than): released when its run's files are loaded again, or by recover --older-than shorter than their age (gives that run's files up)`,
    );
  }
  return lines.join('\n');
}

/** A moment to the second, in UTC: 2026-01-31T06:00:00Z. */
const utcSeconds = (at: Date) => `${at.toISOString().slice(0, 19)}Z`;

export function renderStatus(report: StatusReport & { runs?: RunRecord[]; loads: LoadStatus[]; otherLoads: number }): string {
  // HELD (rows a load holds from processing while it stages) is shown only when there are some
  const held = report.counts.some((c) => c.status === 'HELD' && c.count > 0);
  const statuses = held
    ? (['READY', 'HELD', 'PROCESSING', 'RETRY_WAIT', 'DONE', 'ERROR'] as const)
    : (['READY', 'PROCESSING', 'RETRY_WAIT', 'DONE', 'ERROR'] as const);
  const total: Record<string, number> = {};
  const noLoad: Record<string, number> = {};
  for (const c of report.counts) {
    total[c.status] = (total[c.status] ?? 0) + c.count;
    if (c.loadId === null) noLoad[c.status] = (noLoad[c.status] ?? 0) + c.count;
  }
  const rows: Array<Array<string | number>> = [['load', 'started', ...statuses, 'file']];
  for (const l of report.loads)
    rows.push([
      String(l.loadId),
      l.startedAt === null ? '-' : utcSeconds(l.startedAt),
      ...statuses.map((s) => l.counts[s] ?? 0),
      l.fileName ?? '-',
    ]);
  if (Object.keys(noLoad).length > 0) rows.push(['-', '(no load)', ...statuses.map((s) => noLoad[s] ?? 0), '']);
  const loadCount = report.loads.length + report.otherLoads;
  rows.push(['total', `(${loadCount} load${loadCount === 1 ? '' : 's'})`, ...statuses.map((s) => total[s] ?? 0), '']);
  const lines = [table(rows)];
  if (report.otherLoads > 0)
    lines.push(
      `${report.otherLoads} other load${report.otherLoads === 1 ? '' : 's'} not shown (counted in total): status --all shows every load, --load-id <n> or --since <when> some`,
    );
  if (report.oldestReady !== null) {
    lines.push(
      `oldest READY: stage_id ${report.oldestReady.stageId} (${e(report.oldestReady.sourceKey)}), staged ${report.oldestReady.stagedAt.toISOString()}`,
    );
  }
  if (report.retryWait.count > 0) {
    lines.push(`RETRY_WAIT: ${report.retryWait.count} rows, next due ${report.retryWait.nextDueAt?.toISOString() ?? '-'}`);
  }
  if (held) {
    lines.push(
      `HELD: ${total.HELD ?? 0} rows whose key is on several lines of a load's files, held from processing until that load's staging ends: a load killed while staging releases them when its files are loaded again, or \`order-loader recover --older-than\` once held longer (gives its files up); a load held for its control totals (its file's count or sum differed) waits for \`order-loader accept <load> --reason "…"\``,
    );
  }
  if (report.runs !== undefined && report.runs.length > 0)
    lines.push('', 'recent runs:', renderRuns(report.runs.map((r) => ({ ...r, events: [] }))));
  return lines.join('\n');
}

/** Events shown under each run on a terminal (the last ones; `runs --json` has them all). */
const EVENTS_SHOWN = 6;
const DETAIL_CHARS = 160;

function renderEvent(event: RunEventRecord): string {
  const detail = event.detail === null ? '' : JSON.stringify(event.detail);
  const shown = detail.length > DETAIL_CHARS ? `${detail.slice(0, DETAIL_CHARS - 1)}…` : detail;
  return `      ${event.at.toISOString()}  ${e(event.event)}${shown === '' ? '' : `  ${e(shown)}`}`;
}

/**
 * Runs with their last events; a `profile` column (the load profile a run read its file with, and
 * its hash) when one of them read its file through one.
 */
export function renderRuns(runs: Array<RunRecord & { events: RunEventRecord[]; profile?: { name: string; sha256: string } }>): string {
  const profiles = runs.some((r) => r.profile !== undefined);
  const rows: Array<Array<string | number>> = [
    ['run', 'command', 'status', 'started', 'finished', 'file', ...(profiles ? ['profile'] : []), 'message'],
  ];
  for (const r of runs) {
    const profile = r.profile === undefined ? '-' : `${r.profile.name} (${r.profile.sha256.slice(0, 12)})`;
    rows.push([
      r.runId,
      r.command,
      r.status,
      r.startedAt.toISOString(),
      r.finishedAt?.toISOString() ?? '-',
      r.fileName ?? '-',
      ...(profiles ? [profile] : []),
      r.message ?? '',
    ]);
  }
  const [header = '', ...runLines] = table(rows).split('\n');
  const lines = [header];
  runs.forEach((r, i) => {
    lines.push(runLines[i] ?? '');
    const hidden = r.events.length - EVENTS_SHOWN;
    if (hidden > 0) lines.push(`      … ${hidden} earlier event${hidden === 1 ? '' : 's'} (runs --json shows every event)`);
    for (const event of r.events.slice(Math.max(0, hidden))) lines.push(renderEvent(event));
  });
  return lines.join('\n');
}
