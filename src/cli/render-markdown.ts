/**
 * `--format markdown`: the report of load, stage and process as a Markdown document a person
 * reads in the morning (mailed by cron, pasted into a ticket): the outcome first, the files in a
 * table, the error codes with their counts, where each file went, and what to do next.
 *
 * Every value that came from outside (file names, error codes, messages) is shown with its
 * control characters escaped (escape.ts) and Markdown's own characters backslash-escaped, so
 * that a file name can neither break the table nor inject markup.
 */
import { earlierLoadsLine, FILE_COUNT_COLUMNS, fileCounts } from './render.js';
import type { FileReport, LoadReport, ProcessReport } from '../pipeline/load.js';
import type { ErrorCodeCount } from '../pipeline/error-codes.js';
import { UserError } from '../errors.js';
import { escapeControl } from './escape.js';

/** --format of a report (load, stage, process): text unless told; csv and json are the errors export's. */
export function reportFormat(command: string, format: string | undefined): 'text' | 'markdown' {
  if (format === undefined || format === 'text' || format === 'markdown') return format ?? 'text';
  throw new UserError(`${command} --format takes text or markdown (--format ${format} is for errors; --json gives JSON)`);
}

/** A value from outside, as Markdown text: control characters escaped, then Markdown's punctuation. */
export function md(text: string): string {
  return escapeControl(text).replace(/[\\`*_{}[\]()<>#+!|~]/g, '\\$&');
}

const rate = (n: number, ms: number) => (ms > 0 ? Math.round((n * 1000) / ms) : 0);
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function table(header: string[], align: Array<'l' | 'r'>, rows: Array<Array<string | number>>): string[] {
  const line = (cells: Array<string | number>) => `| ${cells.map(String).join(' | ')} |`;
  return [line(header), line(align.map((a) => (a === 'r' ? '--:' : '---'))), ...rows.map(line)];
}

function outcome(exitCode: number, aborted: string | null): string {
  if (aborted !== null || exitCode === 1) return 'NOT FINISHED (exit 1)';
  if (exitCode === 2) return 'finished, some rows need a look (exit 2)';
  return 'every row DONE (exit 0)';
}

/** Where the file went after the run: the archive or failed folder (--archive-dir, --failed-dir), or nowhere. */
function wentTo(report: LoadReport, f: FileReport): string {
  const archived = report.archived.find((a) => a.file === f.file);
  if (archived !== undefined) return `archive: ${md(archived.movedTo)}`;
  const failed = report.unreadable.find((u) => u.file === f.file && u.movedTo !== null);
  if (failed?.movedTo != null) return `failed: ${md(failed.movedTo)}`;
  return 'stayed';
}

/** The load or stage report; `codes` from OrderLoader.errorCodeCounts over the report's loads. */
export function renderLoadMarkdown(report: LoadReport, codes: ErrorCodeCount[], endedAt: Date): string {
  const out: string[] = [`# order-loader ${report.command}: ${outcome(report.exitCode, report.aborted)}`, ''];
  const read = report.files.reduce((n, f) => n + f.counts.read, 0);
  const processed =
    report.process === null
      ? ''
      : `; process ${seconds(report.processMs)} (${report.process.claimed} rows, ${rate(report.process.claimed, report.processMs)} rows/s)`;
  out.push(
    `Ended ${endedAt.toISOString()}, elapsed ${seconds(report.elapsedMs)}: stage ${seconds(report.stageMs)} (${read} lines, ${rate(read, report.stageMs)} lines/s)${processed}.`,
  );
  if (report.earlierLoadRows > 0) out.push('', earlierLoadsLine(report.earlierLoadRows));
  if (report.aborted !== null) out.push('', `**Not finished:** ${md(report.aborted)}`);

  out.push('', '## Files', '');
  if (report.files.length === 0) out.push('None: no order file was read.');
  else
    out.push(
      ...table(
        ['file', ...FILE_COUNT_COLUMNS, 'went to'],
        ['l', ...FILE_COUNT_COLUMNS.map(() => 'r' as const), 'l'],
        report.files.map((f) => [md(f.file), ...fileCounts(f), wentTo(report, f)]),
      ),
    );
  const notes: string[] = [];
  for (const f of report.files) {
    if (f.profile !== undefined)
      notes.push(`- ${md(f.file)}: read with profile ${md(f.profile.name)} (sha256 ${f.profile.sha256.slice(0, 12)})`);
    if (f.discarded !== undefined && f.discarded > 0)
      notes.push(`- ${md(f.file)}: ${f.discarded} line(s) discarded by the profile: not errors`);
    if (f.skipped !== null) notes.push(`- ${md(f.skipped)}`);
    if (f.resumedAt !== null) notes.push(`- ${md(f.file)}: resumed load ${f.loadId} after line ${f.resumedAt.line}`);
    if (f.stoppedAt !== null)
      notes.push(`- ${md(f.file)}: line ${f.stoppedAt.line}: cannot be read past this point: ${md(f.stoppedAt.message)}`);
  }
  const listed = new Set(report.files.map((f) => f.file));
  for (const u of report.unreadable) {
    if (listed.has(u.file)) continue;
    const went = u.movedTo === null ? 'stayed' : `moved to ${md(u.movedTo)}`;
    notes.push(`- ${md(u.file)}: cannot be read as an order file (${md(u.reason)}): ${went}`);
  }
  for (const n of report.notRead) notes.push(`- ${md(n.file)}: not read this time: ${md(n.reason)}`);
  for (const i of report.ignored) notes.push(`- ${md(i.file)}: not an order file: ${md(i.reason)}`);
  for (const m of report.empty)
    notes.push(`- ${md(m.file)}: empty (0 bytes), nothing to load: ${m.movedTo === null ? 'stayed' : `archive: ${md(m.movedTo)}`}`);
  if (notes.length > 0) out.push('', ...notes);

  out.push('', '## Error codes', '');
  if (codes.length === 0) out.push('None: no row of these files is ERROR and no line was rejected.');
  else
    out.push(
      ...table(
        ['code', 'phase', 'rows', 'what'],
        ['l', 'l', 'r', 'l'],
        codes.map((c) => [md(c.code), c.phase ?? '-', c.rows, c.kind === 'ERROR' ? 'rows ended ERROR' : 'lines rejected (no stage row)']),
      ),
    );
  out.push(
    ...nextSteps(
      report.exitCode,
      report.retryWait,
      report.files.map((f) => f.loadId),
    ),
  );
  return `${out.join('\n')}\n`;
}

export function renderProcessMarkdown(report: ProcessReport, endedAt: Date): string {
  const p = report.process;
  const out = [
    `# order-loader process: ${outcome(report.exitCode, report.aborted)}`,
    '',
    `Run ${report.runId}, ended ${endedAt.toISOString()}, elapsed ${seconds(report.elapsedMs)} (${rate(p.claimed, report.elapsedMs)} rows/s).`,
  ];
  if (report.aborted !== null) out.push('', `**Not finished:** ${md(report.aborted)}`);
  out.push(
    '',
    ...table(
      ['claimed', 'chunks', 'DONE', 'ERROR', 'by validation', 'by the database', 'waiting to retry'],
      ['r', 'r', 'r', 'r', 'r', 'r', 'r'],
      [[p.claimed, p.chunks, p.done, p.error, p.validateErrors, p.mergeErrors - p.retryWait, p.retryWait]],
    ),
  );
  out.push(...nextSteps(report.exitCode, report.retryWait, []));
  return `${out.join('\n')}\n`;
}

function nextSteps(exitCode: number, retryWait: { count: number; nextDueAt: Date | null } | null, loadIds: number[]): string[] {
  const steps: string[] = [];
  if (exitCode === 2) {
    const loads = [...new Set(loadIds)].map((id) => ` --load-id ${id}`).join('');
    steps.push(`- \`order-loader errors${loads}\` lists the rows (CSV: fix it, load it back, or \`order-loader retry\`).`);
  }
  if (retryWait !== null && retryWait.count > 0) {
    steps.push(
      `- ${retryWait.count} rows wait in RETRY_WAIT after a transient failure; the first is due ${retryWait.nextDueAt?.toISOString() ?? '-'} (\`order-loader process\` then).`,
    );
  }
  return steps.length === 0 ? [] : ['', '## Next', '', ...steps];
}
