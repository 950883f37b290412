/**
 * `preview` as a table for a person at a terminal: one row per field of a data line (the text
 * read, as the mapping reads it, the value staged), one row for a line that is no data line;
 * fitted to the terminal's width, a value too long for its column cut with an ellipsis. Widths
 * are counted in terminal columns (a full-width character takes two).
 */
import { ORDER_COLUMNS } from '../input/order-record.js';
import type { PreviewField, PreviewLine, PreviewResult } from '../pipeline/preview.js';
import { escapeControl } from './escape.js';

/** The terminal columns a character takes: two for East Asian wide and full-width characters. */
function charWidth(cp: number): number {
  if (cp < 0x1100) return 1;
  if (
    cp <= 0x115f ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2;
  return 1;
}

export function displayWidth(text: string): number {
  let w = 0;
  for (const ch of text) w += charWidth(ch.codePointAt(0) ?? 0);
  return w;
}

/** `text` in exactly `width` columns: cut with an ellipsis when longer, padded with blanks when shorter. */
export function fit(text: string, width: number): string {
  const w = displayWidth(text);
  if (w <= width) return text + ' '.repeat(width - w);
  if (width <= 0) return '';
  let out = '';
  let used = 0;
  for (const ch of text) {
    const cw = charWidth(ch.codePointAt(0) ?? 0);
    if (used + cw > width - 1) break;
    out += ch;
    used += cw;
  }
  return `${out}…${' '.repeat(width - 1 - used)}`;
}

/** Text in lines of at most `width` columns, broken at blanks (a word longer than a line is cut), later lines indented by `indent`. */
export function wrap(text: string, width: number, indent = ''): string[] {
  if (displayWidth(text) <= width) return [text];
  const lines: string[] = [];
  let line: string | null = null;
  for (const word of text.split(' ')) {
    if (line === null) line = word;
    else if (displayWidth(`${line} ${word}`) <= width) line = `${line} ${word}`;
    else {
      lines.push(line);
      line = `${indent}${word}`;
    }
    while (displayWidth(line) > width) {
      let cut = '';
      for (const ch of line) {
        if (displayWidth(cut + ch) > width) break;
        cut += ch;
      }
      lines.push(cut);
      line = `${indent}${line.slice(cut.length)}`;
    }
  }
  if (line !== null && line.trim() !== '') lines.push(line);
  return lines;
}

/** A value from the file as shown: control characters escaped; quoted when empty or with blanks around it. */
function shown(value: string): string {
  const v = escapeControl(value);
  return v === '' || v.trim() !== v ? JSON.stringify(value) : v;
}

function fieldCells(f: PreviewField): [string, string, string] {
  // a value the profile gives, not the file's column: said where it comes from
  const given = f.from === 'file_name' ? '(file name)' : f.from === 'amount_sign' ? '(amount sign)' : '(const)';
  const absent = f.from === 'const' || f.from === 'file_name' || f.from === 'amount_sign' ? given : '(missing)';
  return [
    f.raw === null ? given : shown(f.raw),
    f.normalized === null ? absent : shown(f.normalized),
    f.staged === null ? '(none)' : `${shown(f.staged)}${f.from === 'default' ? ' (default)' : ''}`,
  ];
}

/** The columns the three values share: each its natural width, the widest cut first. */
function shareWidths(natural: number[], room: number): number[] {
  const widths = natural.map(() => 0);
  let left = room;
  let open = natural.map((_, i) => i);
  // give every column its natural width if it fits in an equal share of what is left, then share the rest
  for (;;) {
    const share = Math.floor(left / Math.max(1, open.length));
    const fitting = open.filter((i) => (natural[i] ?? 0) <= share);
    if (fitting.length === 0) {
      for (const i of open) widths[i] = Math.max(4, share);
      return widths;
    }
    for (const i of fitting) {
      widths[i] = natural[i] ?? 0;
      left -= widths[i];
    }
    open = open.filter((i) => !fitting.includes(i));
    if (open.length === 0) return widths;
  }
}

const WHAT: Record<PreviewLine['kind'], string> = { skip: 'skip', discard: 'discard', stage: 'stage', reject: 'reject' };

/** The preview as text `width` columns wide (at least 60). */
export function renderPreview(result: PreviewResult, width: number): string {
  const total = Math.max(60, width);
  const t = result.totals;
  const out: string[] = [];
  const how =
    result.profile === null
      ? 'the built-in format'
      : `profile ${escapeControl(result.profile.name)} (sha256 ${result.profile.sha256.slice(0, 12)})`;
  out.push(`preview of ${escapeControl(result.file)}, read with ${how}: nothing is written`);

  const lineWidth = Math.max(4, ...result.lines.map((l) => String(l.line).length));
  const whatWidth = 7;
  const fieldWidth = Math.max(...ORDER_COLUMNS.map((c) => c.length));
  const lead = lineWidth + 2 + whatWidth + 2;
  const valueRoom = total - lead - fieldWidth - 2 - 4;
  const rows = result.lines.flatMap((l) => {
    const fields = l.kind === 'stage' || l.kind === 'reject' ? l.fields : undefined;
    return fields === undefined ? [] : ORDER_COLUMNS.map((c) => fieldCells(fields[c]));
  });
  const natural = [0, 1, 2].map((i) =>
    Math.max(displayWidth(['raw', 'normalised', 'staged'][i] ?? ''), ...rows.map((r) => displayWidth(r[i] ?? ''))),
  );
  const widths = shareWidths(natural, valueRoom);
  const span = total - lead;
  const left = (line: number | string, what: string) => `${String(line).padStart(lineWidth)}  ${fit(what, whatWidth)}  `;
  const blank = ' '.repeat(lead);
  const cells = (field: string, values: [string, string, string]) =>
    `${fit(field, fieldWidth)}  ${values.map((v, i) => fit(v, widths[i] ?? 0)).join('  ')}`.trimEnd();

  /** A message in the columns right of `what`, over as many lines as it needs. */
  const wrapped = (first: string, text: string): string[] => wrap(text, span, '').map((l, i) => `${i === 0 ? first : blank}${l}`);
  out.push(`${left('line', 'what')}${cells('field', ['raw', 'normalised', 'staged'])}`);
  for (const l of result.lines) {
    const first = left(l.line, WHAT[l.kind]);
    if (l.kind === 'skip') {
      out.push(`${first}${fit(`${l.reason === 'header' ? 'header' : l.reason}: ${escapeControl(l.raw)}`, span)}`.trimEnd());
      continue;
    }
    if (l.kind === 'discard') {
      out.push(`${first}${fit(`when (${shown(l.value)}): ${escapeControl(l.raw)}`, span)}`.trimEnd());
      continue;
    }
    const fields = l.fields;
    if (l.kind === 'reject') {
      out.push(...wrapped(first, withCode(l.code, l.message)));
      const staged = l.stagedAsError ? 'staged as ERROR (usable source_key), listed by errors' : 'not staged, listed by errors';
      if (fields === undefined) {
        out.push(`${blank}${fit(`line: ${shown(l.raw)}`, span)}`.trimEnd());
        out.push(...wrapped(blank, l.stopsFile === true ? 'the file cannot be read past this line: a load stops here' : staged));
        continue;
      }
      ORDER_COLUMNS.forEach((c) => out.push(`${blank}${cells(c, fieldCells(fields[c]))}`));
      out.push(...wrapped(blank, staged));
      continue;
    }
    ORDER_COLUMNS.forEach((c, i) => out.push(`${i === 0 ? first : blank}${cells(c, fieldCells(l.fields[c]))}`));
    if (l.invalid !== null) out.push(...wrapped(blank, `then ERROR by validation: ${withCode(l.invalid.code, l.invalid.message)}`));
  }

  const shownLines = result.lines.length;
  out.push(
    shownLines < t.lines
      ? `the first ${shownLines} of ${t.lines} lines shown (--rows ${result.rows}); the totals cover the whole file`
      : `all ${t.lines} lines shown; the totals cover the whole file`,
  );
  const skipped = t.skipped.skip_lines + t.skipped.comment + t.skipped.header + (t.skipped.control ?? 0);
  const skippedBy = Object.entries(t.skipped)
    .filter(([, n]) => n > 0)
    .map(([why, n]) => `${n} ${why}`)
    .join(', ');
  out.push(`totals over the whole file: ${t.lines} lines`);
  out.push(
    `  ${t.read} data lines: ${t.stage} would stage (${t.invalid} of them ERROR by validation), ${t.rejected} rejected (${t.stagedAsError} of them staged as ERROR)`,
  );
  out.push(`  ${t.discarded} discarded by when; ${skipped} skipped${skippedBy === '' ? '' : ` (${skippedBy})`}`);
  if (result.dryRun.duplicates > 0)
    out.push(`  ${result.dryRun.duplicates} line(s) repeat a source_key a later line has: only the last of a key is staged`);
  if (t.byCode.length > 0) out.push('errors by code:');
  for (const c of t.byCode) out.push(`  ${c.code} (${c.phase}): ${c.lines} line(s), the first line ${c.firstLine}`);
  if (result.extraColumns.length > 0)
    out.push(`columns not loaded (a load ignores them with a warning): ${result.extraColumns.map((c) => escapeControl(c)).join(', ')}`);
  for (const w of result.warnings) out.push(`warning: ${escapeControl(w)}`);
  if (result.stoppedAt !== null) out.push(`STOPPED: the file cannot be read past line ${result.stoppedAt.line - 1}`);
  out.push(`exit code ${result.exitCode}, as load --dry-run`);
  return out.flatMap((l) => wrap(l.trimEnd(), total, '  ')).join('\n');
}

/** `CODE: message`; a message of several problems already starts with the first one's code (`CODE: …; CODE2: …`): not said twice. */
function withCode(code: string, message: string): string {
  return message.startsWith(`${code}: `) ? escapeControl(message) : `${code}: ${escapeControl(message)}`;
}
