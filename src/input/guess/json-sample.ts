/**
 * guess on JSON Lines: the sample's objects as columns, one per leaf path (`customer.id`,
 * `lines[0].sku`: an array by its first element), named by the path's last name for the
 * detectors and by the whole path in the draft, each with
 * its values as the JSON Lines reader reads them (numbers as written, true/false as text, null as
 * empty), so that the detectors of a CSV's columns judge them. Pure.
 */
import { JsonNumber, JsonSyntaxError, parseJsonText, type JsonValue } from '../formats/json-text.js';
import type { GuessColumn } from './fields.js';

/** Paths no deeper than this are columns (a deeper value is not an order's field). */
const MAX_DEPTH = 4;
/** Columns drafted at most: a wide object's first leaves. */
const MAX_PATHS = 200;

const BARE = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A path as a profile writes it: names joined by dots, an odd name as a JSON string in brackets, an index in brackets. */
export function pathText(segments: ReadonlyArray<string | number>): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (BARE.test(s)) out += out === '' ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

function leaves(value: JsonValue, path: Array<string | number>, out: Map<string, string>): void {
  if (value instanceof Map) {
    if (path.length >= MAX_DEPTH) return;
    for (const [name, v] of value) leaves(v, [...path, name], out);
    return;
  }
  if (Array.isArray(value)) {
    if (path.length >= MAX_DEPTH || value.length === 0) return;
    leaves(value[0] ?? null, [...path, 0], out);
    return;
  }
  const text = value === null ? '' : value instanceof JsonNumber ? value.text : typeof value === 'boolean' ? String(value) : value;
  if (path.length > 0) out.set(pathText(path), text);
}

/** The last object of a file, set apart from the columns as a trailer: its text and its leaf paths' values. */
export interface JsonTrailer {
  text: string;
  values: Array<[string, string]>;
}

/**
 * Whether the last object is no order but a trailer: it lacks most of the paths every other
 * object has (`{"type":"trailer","records":3,…}` after orders). Only when the sample is the whole file.
 */
function isTrailer(last: Map<string, string>, others: ReadonlyArray<Map<string, string>>): boolean {
  if (others.length < 2) return false;
  const common = [...(others[0]?.keys() ?? [])].filter((p) => others.every((r) => r.has(p)));
  return common.length > 0 && common.filter((p) => !last.has(p)).length * 2 > common.length;
}

/**
 * The sample's leaf paths as columns, or null when its whole lines are not all JSON objects (or
 * there is none). `wholeFile`: the sample is the whole file, so its last object may be a trailer (set apart).
 */
export function jsonLinesColumns(
  text: string,
  complete: boolean,
  wholeFile = false,
): { columns: GuessColumn[]; paths: string[]; objects: number; trailer: JsonTrailer | null } | null {
  const lines = text.split(/\r?\n|\r/).filter((l) => l.trim() !== '');
  // the sample's last line may be cut
  const whole = complete ? lines : lines.slice(0, -1);
  const rows: Array<Map<string, string>> = [];
  for (const line of whole) {
    let value: JsonValue;
    try {
      value = parseJsonText(line);
    } catch (error) {
      if (error instanceof JsonSyntaxError) return null;
      throw error;
    }
    if (!(value instanceof Map)) return null;
    const row = new Map<string, string>();
    leaves(value, [], row);
    rows.push(row);
  }
  if (rows.length === 0) return null;
  const lastObject = rows[rows.length - 1];
  let trailer: JsonTrailer | null = null;
  if (wholeFile && lastObject !== undefined && isTrailer(lastObject, rows.slice(0, -1))) {
    trailer = { text: whole.at(-1) ?? '', values: [...lastObject.entries()] };
    rows.pop();
  }
  const paths: string[] = [];
  const seen = new Set<string>();
  for (const row of rows)
    for (const p of row.keys())
      if (!seen.has(p) && paths.length < MAX_PATHS) {
        seen.add(p);
        paths.push(p);
      }
  // judged by the path's last name (`total.currency` is a currency, not a total) where no other
  // path ends in it; the draft names each column by its path (`paths`)
  const last = paths.map((p) => /([A-Za-z_$][A-Za-z0-9_$]*|"(?:[^"\\]|\\.)*")\]?$/.exec(p)?.[1]?.replace(/^"|"$/g, '') ?? p);
  const columns = paths.map((path, i) => ({
    index: i + 1,
    name: last.filter((l) => l === last[i]).length === 1 ? (last[i] ?? path) : path,
    at: null,
    values: rows.map((r) => (r.get(path) ?? '').trim()),
  }));
  return { columns, paths, objects: rows.length, trailer };
}
