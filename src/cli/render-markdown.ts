/**
 * `--format markdown`: the report of load, stage and process as a Markdown document a person
 * reads in the morning (mailed by cron, pasted into a ticket): the outcome first, the files in a
 * table, the error codes with their counts, where each file went, and what to do next.
 *
 * Cron mails it as text: it reads as plain text too. Tables are padded so that their columns
 * align in a monospace font; a name from outside (a file, an error code, a folder) is a code
 * span, shown as it is (only a `|`, which would end a table cell, takes a backslash); a message
 * from outside escapes only what would start markup. Control characters are escaped first
 * (escape.ts): a value can neither break the table nor inject markup.
 */
import {
  earlierLoadsLine,
  elapsedParts,
  ROWS_NOW_COLUMNS,
  ROWS_NOW_HEADING,
  RUN_COLUMNS,
  RUN_HEADING,
  rowsNow,
  runCounts,
} from './render.js';
import type { FileReport, LoadReport, ProcessReport } from '../pipeline/load.js';
import type { ErrorCodeCount } from '../pipeline/error-codes.js';
import { UserError } from '../errors.js';
import { escapeControl } from './escape.js';
import { controlMarkdown } from './render-control.js';
import { phaseParts } from './phase-work.js';

/** --format of a report (load, stage, process): text unless told; csv and json are the errors export's. */
export function reportFormat(command: string, format: string | undefined): 'text' | 'markdown' {
  if (format === undefined || format === 'text' || format === 'markdown') return format ?? 'text';
  throw new UserError(`${command} --format takes text or markdown (--format ${format} is for errors; --json gives JSON)`);
}

/** A name from outside (file, folder, error code) as a code span: shown as it is, a `|` escaped for the table it may stand in. */
export function code(text: string): string {
  const value = escapeControl(text).replaceAll('|', '\\|');
  const longest = Math.max(0, ...(value.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = value.startsWith('`') || value.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${value}${pad}${fence}`;
}

/**
 * A message from outside as Markdown text: only what would start markup is escaped (a `*`, a
 * backtick, a bracket, `<`, a `_` at a word's edge, a backslash before punctuation); a path such
 * as in/orders_2026-01.csv stays as it is.
 */
export function md(text: string): string {
  return escapeControl(text)
    .replace(/\\(?=[!-/:-@[-`{-~])/g, '\\\\')
    .replace(/[`*[\]<]/g, '\\$&')
    .replace(/(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g, '\\_');
}

const rate = (n: number, ms: number) => (ms > 0 ? Math.round((n * 1000) / ms) : 0);
const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * The report of a command that could not finish (exit 1) with no report of its own (a refused
 * option, a database that cannot be reached, an unexpected error): as --json gives an error
 * document, --format markdown gives this one.
 */
export function renderFailureMarkdown(command: string | null, message: string, endedAt: Date, elapsedMs: number): string {
  return [
    `# order-loader${command === null ? '' : ` ${command}`}: could not finish (exit 1)`,
    '',
    `Ended ${endedAt.toISOString()}, elapsed ${(elapsedMs / 1000).toFixed(2)} s.`,
    '',
    `**Failed:** ${md(message)}`,
    '',
    '## Next',
    '',
    '- What was committed stays: fix the cause and run the command again (the next run goes on from there).',
    '',
  ].join('\n');
}

/** A Markdown table padded so that its columns align in a monospace font (as a mail read as text shows it). */
function table(header: string[], align: Array<'l' | 'r'>, rows: Array<Array<string | number>>): string[] {
  const all = [header, ...rows].map((row) => row.map(String));
  const widths = header.map((_, i) => Math.max(3, ...all.map((row) => (row[i] ?? '').length)));
  const pad = (cell: string, i: number) => {
    const fill = ' '.repeat(Math.max(0, (widths[i] ?? 0) - cell.length));
    return align[i] === 'r' ? fill + cell : cell + fill;
  };
  const line = (cells: string[]) => `| ${cells.map(pad).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (align[i] === 'r' ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`;
  return [line(all[0] ?? []), rule, ...all.slice(1).map(line)];
}

function outcome(exitCode: number, aborted: string | null, controlFailed = false): string {
  // a file whose control totals failed: the run finished, that file's rows were not merged
  if (aborted === null && exitCode === 1 && controlFailed) return 'a file failed its control totals: nothing of it merged (exit 1)';
  if (aborted !== null || exitCode === 1) return 'NOT FINISHED (exit 1)';
  if (exitCode === 2) return 'finished, some rows need a look (exit 2)';
  return 'every row DONE (exit 0)';
}

/** Where the file went after the run: the archive or failed folder (--archive-dir, --failed-dir), or nowhere. */
function wentTo(report: LoadReport, f: FileReport): string {
  const archived = report.archived.find((a) => a.file === f.file);
  if (archived !== undefined) return `archive: ${code(archived.movedTo)}`;
  const failed = report.unreadable.find((u) => u.file === f.file && u.movedTo !== null);
  if (failed?.movedTo != null) return `failed: ${code(failed.movedTo)}`;
  if (f.controlMovedTo !== undefined) return `failed: ${code(f.controlMovedTo)}`;
  return 'stayed';
}

/** The load or stage report; `codes` from OrderLoader.errorCodeCounts over the report's loads. */
export function renderLoadMarkdown(
  report: LoadReport,
  codes: ErrorCodeCount[],
  endedAt: Date,
  timing?: { commandMs: number; openMs: number },
): string {
  const controlFailed = report.files.some((f) => f.controlHeld === true) || (report.controlRefused ?? []).length > 0;
  const out: string[] = [`# order-loader ${report.command}: ${outcome(report.exitCode, report.aborted, controlFailed)}`, ''];
  const phases = phaseParts(report);
  out.push(`Ended ${endedAt.toISOString()}, ${elapsedParts(report, timing, phases.stage, phases.process)}.`);
  if (report.earlierLoadRows > 0) out.push('', earlierLoadsLine(report.earlierLoadRows));
  if (report.aborted !== null) out.push('', `**Not finished:** ${md(report.aborted)}`);

  out.push('', '## Files', '');
  if (report.files.length === 0) out.push('None: no order file was read.');
  else {
    // what this run did with each file's lines, then its load's rows now: two tables, each headed
    out.push(
      `${capitalize(RUN_HEADING)}:`,
      '',
      ...table(
        ['file', 'load', ...RUN_COLUMNS, 'went to'],
        ['l', 'r', ...RUN_COLUMNS.map(() => 'r' as const), 'l'],
        report.files.map((f) => [code(f.file), f.loadId, ...runCounts(f), wentTo(report, f)]),
      ),
      '',
      `${capitalize(ROWS_NOW_HEADING)}:`,
      '',
      ...table(
        ['file', 'load', ...ROWS_NOW_COLUMNS],
        ['l', 'r', ...ROWS_NOW_COLUMNS.map(() => 'r' as const)],
        report.files.map((f) => [code(f.file), f.loadId, ...rowsNow(f)]),
      ),
    );
  }
  const notes: string[] = [];
  for (const f of report.files) {
    if (f.profile !== undefined)
      notes.push(`- ${md(f.file)}: read with profile ${md(f.profile.name)} (sha256 ${f.profile.sha256.slice(0, 12)})`);
    if (f.discarded !== undefined && f.discarded > 0)
      notes.push(`- ${md(f.file)}: ${f.discarded} line(s) discarded by the profile: not errors`);
    if (f.skipped !== null) notes.push(`- ${md(f.skipped)}`);
    if (f.resumedAt !== null) notes.push(`- ${code(f.file)}: resumed load ${f.loadId} after line ${f.resumedAt.line}`);
    if (f.stoppedAt !== null)
      notes.push(`- ${code(f.file)}: line ${f.stoppedAt.line}: cannot be read past this point: ${md(f.stoppedAt.message)}`);
  }
  const listed = new Set(report.files.map((f) => f.file));
  for (const u of report.unreadable) {
    if (listed.has(u.file)) continue;
    const went = u.movedTo === null ? 'stayed' : `moved to ${code(u.movedTo)}`;
    notes.push(`- ${code(u.file)}: cannot be read as an order file (${md(u.reason)}): ${went}`);
  }
  const unmatched = report.unmatched ?? [];
  for (const u of unmatched)
    // the patterns it was tried against are in the text report, the log and the failed note
    notes.push(
      `- ${code(u.file)}: no load profile matches its name: not read, ${u.movedTo === null ? 'stayed' : `moved to ${code(u.movedTo)}`}`,
    );
  for (const n of report.notRead) notes.push(`- ${code(n.file)}: not read this time: ${md(n.reason)}`);
  for (const k of report.keptForSets ?? []) notes.push(`- ${code(k.file)}: stayed: ${md(k.reason)}`);
  for (const i of report.ignored) notes.push(`- ${code(i.file)}: not an order file: ${md(i.reason)}`);
  for (const m of report.empty)
    notes.push(`- ${code(m.file)}: empty (0 bytes), nothing to load: ${m.movedTo === null ? 'stayed' : `archive: ${code(m.movedTo)}`}`);
  if (notes.length > 0) out.push('', ...notes);
  out.push(...controlMarkdown(report));

  out.push('', '## Error codes', '');
  if (codes.length === 0) out.push('None: no row of these files is ERROR and no line was rejected.');
  else
    out.push(
      ...table(
        ['code', 'phase', 'rows', 'what'],
        ['l', 'l', 'r', 'l'],
        codes.map((c) => [code(c.code), c.phase ?? '-', c.rows, c.kind === 'ERROR' ? 'rows ended ERROR' : 'lines rejected (no stage row)']),
      ),
    );
  out.push(
    ...nextSteps(
      report.exitCode,
      report.retryWait,
      report.files.map((f) => f.loadId),
      unmatched.length,
      codes.length > 0,
    ),
  );
  return `${out.join('\n')}\n`;
}

export function renderProcessMarkdown(report: ProcessReport, endedAt: Date, timing?: { commandMs: number; openMs: number }): string {
  const p = report.process;
  const out = [
    `# order-loader process: ${outcome(report.exitCode, report.aborted)}`,
    '',
    `Run ${report.runId}, ended ${endedAt.toISOString()}, ${elapsedParts(report, timing, null, `${p.claimed} rows, ${rate(p.claimed, report.elapsedMs)} rows/s`)}.`,
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

function nextSteps(
  exitCode: number,
  retryWait: { count: number; nextDueAt: Date | null } | null,
  loadIds: number[],
  unmatched = 0,
  errorRows = true,
): string[] {
  const steps: string[] = [];
  if (unmatched > 0)
    steps.push(`- ${unmatched} file(s) matched no load profile: write a profile whose \`match:\` takes the name, or take the file away.`);
  // exit 2 for files no profile matched alone: no row to list
  if (exitCode === 2 && (errorRows || unmatched === 0)) {
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
