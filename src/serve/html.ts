/**
 * HTML built from parts that are either our own markup (Html) or text, which is always escaped.
 * Partners' raw lines reach the page through here: nothing they hold can become markup, and what
 * would act on a reader's view of the text (control characters, bidi marks) is shown as an escape.
 */
import { escapeControl } from '../cli/escape.js';
import type { FileLine } from './file-lines.js';

/** Markup we wrote (or text already escaped): inserted as it is. */
export class Html {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

type Part = Html | string | number | null | undefined | false | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.markup;
  if (Array.isArray(part)) return (part as readonly Part[]).map(render).join('');
  return escapeHtml(String(part));
}

/** A template whose values are escaped unless they are Html (arrays are joined). */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new Html(out);
}

/** Marks that change the direction of the text around them without being overrides (LRM, RLM, ALM). */
const BIDI_MARKS = /[\u200e\u200f\u061c]/g;

/**
 * Text from outside with its control characters and bidi controls as visible escapes, for where
 * no markup may go (an attribute's value, a form's input): escaped as HTML by the template.
 */
export function plain(text: string): string {
  return escapeControl(text).replace(BIDI_MARKS, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`);
}

/** Characters of a line shown on the list (the row's own page shows more). */
export const LIST_CHARS = 300;
/** Characters of a line shown on a row's own page. */
export const ROW_CHARS = 20_000;

/**
 * Text from outside shown as text: control characters and bidi controls as visible escapes
 * (\x1b, \u{202e}), cut at `max` characters with what was left out said.
 */
export function shown(text: string | null | undefined, max: number = LIST_CHARS): Html {
  if (text === null || text === undefined) return html`<span class="none">—</span>`;
  const cut = text.length > max ? text.slice(0, max) : text;
  const visible = plain(cut);
  const more = text.length - cut.length;
  return html`<bdi class="text">${visible}</bdi
    >${more > 0 ? html`<span class="more"> … ${more.toLocaleString('en')} more characters</span>` : ''}`;
}

/** A time as UTC text (the page says UTC once, in its footer). */
export function when(date: Date | null | undefined): Html {
  return date === null || date === undefined
    ? html`<span class="none">—</span>`
    : html`<time>${date.toISOString().replace('T', ' ').slice(0, 19)}</time>`;
}

/** A CSV field as a line of the built-in format holds it: quoted when it must be. */
function csvField(value: string | null): string {
  if (value === null) return '';
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** The fields of a row as the database holds them. */
export interface StagedFields {
  sourceKey: string | null;
  customerId: string | null;
  orderDate: string | null;
  amount: string | null;
  currency: string | null;
}

/**
 * A row's raw line, and where it came from: its own text in the error log (a line rejected while
 * parsing), else the line read again from its file (the database keeps no text of a line that
 * parsed) while that file is where and as its load read it, else the row's staged fields as a
 * line of the built-in format, said to be rebuilt (the file is gone or changed).
 */
export function rawLine(
  row: StagedFields & { stageId: number | null; rawRecord: string | null },
  fromFiles: ReadonlyMap<number, FileLine>,
  max = LIST_CHARS,
): Html {
  if (row.rawRecord !== null) return shown(row.rawRecord, max);
  // the list says where from in a few words; the row's own page says why
  const full = max > LIST_CHARS;
  const line = row.stageId === null ? undefined : fromFiles.get(row.stageId);
  if (line !== undefined)
    return full
      ? html`${shown(line.text, max)}
          <span class="hint"
            >(read again from ${shown(line.file, 200)} line ${line.lineNo}: the database keeps no text of a line that parsed)</span
          >`
      : html`${shown(line.text, max)} <span class="hint">(read again from its file)</span>`;
  const rebuilt = [row.sourceKey, row.customerId, row.orderDate, row.amount, row.currency].map(csvField).join(',');
  const why = full ? ': the database keeps no text of a line that parsed, and its file is gone or changed' : '';
  return html`${shown(rebuilt, max)} <span class="hint">(rebuilt from the staged fields${why})</span>`;
}
