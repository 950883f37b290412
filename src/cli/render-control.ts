/**
 * What a run says of its files' control totals (a profile's `control:`): the text report, the
 * markdown summary, and `accept`'s own report. Both figures every time: what the file states and
 * what was read.
 */
import { controlSummary } from '../input/control/control-check.js';
import type { AcceptReport } from '../pipeline/accept.js';
import type { LoadReport } from '../pipeline/load-options.js';
import { escapeControl as e } from './escape.js';
import { code, md } from './render-markdown.js';

/** Each checked file's control totals, and what the run did about a disagreement. */
function controlNotes(report: LoadReport): Array<{ file: string; text: string; next: string | null }> {
  const notes: Array<{ file: string; text: string; next: string | null }> = [];
  for (const f of report.files) {
    if (f.control === undefined) continue;
    const next =
      f.controlHeld === true
        ? `NOT MERGED: its rows stay HELD in load ${f.loadId} until \`order-loader accept ${f.loadId} --reason "…"\`${f.controlMovedTo === undefined ? '' : `; moved to ${f.controlMovedTo}`}`
        : f.control.status === 'ok'
          ? null
          : f.controlAccepted === true
            ? `loaded: load ${f.loadId} was accepted by an operator (order-loader accept)`
            : 'loaded all the same (on_mismatch: warn)';
    notes.push({ file: f.file, text: controlSummary(f.control), next });
  }
  for (const r of report.controlRefused ?? [])
    notes.push({
      file: r.file,
      text: controlSummary(r.control),
      next: `REFUSED before staging: nothing of it was staged${r.movedTo === null ? '' : `; moved to ${r.movedTo}`}`,
    });
  return notes;
}

/** The text report's lines. */
export function controlLines(report: LoadReport): string[] {
  return controlNotes(report).map((n) => e(n.next === null ? n.text : `${n.text}: ${n.next}`));
}

/** The markdown summary's section (none when no file has control totals). */
export function controlMarkdown(report: LoadReport): string[] {
  const notes = controlNotes(report);
  if (notes.length === 0) return [];
  return [
    '',
    '## Control totals',
    '',
    ...notes.map(
      (n) =>
        `- ${code(n.file)}: ${md(n.text.slice(n.file.length + 2))}${n.next === null ? '' : ` — **${md(n.next).replaceAll('\\`', '`')}**`}`,
    ),
  ];
}

/** `accept`'s report: the load, what its file stated and what was read, the rows released. */
export function renderAccept(report: AcceptReport): string {
  const verb = report.dryRun ? 'would release' : 'released';
  const lines = [
    `accept: load ${report.loadId}: ${verb} ${report.count} HELD row${report.count === 1 ? '' : 's'} to processing${report.dryRun ? '' : ' (audited)'}`,
  ];
  const hold = report.hold;
  if (hold !== null)
    lines.push(
      `accept: its file ${e(typeof hold.file === 'string' ? hold.file : '?')} (${e(typeof hold.where === 'string' ? hold.where : '')}) stated ${e(JSON.stringify(hold.claimed ?? {}))}; read ${e(JSON.stringify(hold.read ?? {}))}`,
    );
  return lines.join('\n');
}
