/**
 * A JSON Lines profile's fields read from one line: each column's path (or list of paths, the
 * first present is used) into the line's object, its value as text — a string as it is, a number
 * as written, true/false, null as missing — and the properties kept as attributes (`extra`).
 */
import { ORDER_COLUMNS, type OrderColumn } from '../order-record.js';
import { canonicalAttributes, RESERVED_ATTRIBUTE_NAMES } from '../profile/attributes.js';
import type { LoadProfile } from '../profile/load-profile.js';
import { compileMapping } from '../profile/mapping.js';
import { parseJsonPath, valueAt, type JsonPath } from './json-path.js';
import { JsonNumber, jsonText, parseJsonText, JsonSyntaxError, type JsonValue } from './json-text.js';

interface JsonField {
  name: OrderColumn | 'when';
  paths: JsonPath[];
  /** How the field is named in messages: `columns.amount (path "total.gross")`. */
  what: string;
  /** A missing path takes the column's default rather than rejecting the line. */
  hasDefault: boolean;
}

export interface JsonFields {
  fields: JsonField[];
  /** Top-level properties kept as attributes: every one no path starts with, the listed ones, or none. */
  keep: ((name: string) => boolean) | null;
}

function pathsOf(ref: string | number | string[] | undefined): JsonPath[] {
  if (ref === undefined || typeof ref === 'number') return [];
  return (typeof ref === 'string' ? [ref] : ref).map((p) => {
    const path = parseJsonPath(p);
    // the profile's schema has checked every path
    if ('problem' in path) throw new Error(path.problem);
    return path;
  });
}

/** The fields a profile reads from each line of a JSON Lines file. */
export function compileJsonFields(profile: LoadProfile): JsonFields {
  const spec = profile.spec;
  const fields: JsonField[] = [];
  for (const c of ORDER_COLUMNS) {
    const ref = spec.columns[c].column;
    if (ref !== undefined)
      fields.push({
        name: c,
        paths: pathsOf(ref),
        what: `columns.${c} (${describePaths(ref)})`,
        hasDefault: spec.columns[c].default !== undefined,
      });
  }
  if (spec.when?.column !== undefined)
    fields.push({ name: 'when', paths: pathsOf(spec.when.column), what: `when (${describePaths(spec.when.column)})`, hasDefault: false });
  const used = new Set(fields.flatMap((f) => f.paths.map((p) => p[0])));
  const extra = spec.extra;
  const keep =
    extra === 'ignore'
      ? null
      : extra === 'keep'
        ? (name: string) => !used.has(name) && !RESERVED_ATTRIBUTE_NAMES.includes(name.toLowerCase())
        : (name: string) => extra.includes(name);
  return { fields, keep };
}

function describePaths(ref: string | number | string[]): string {
  const list = typeof ref === 'string' ? [ref] : Array.isArray(ref) ? ref : [String(ref)];
  return `path ${list.map((p) => JSON.stringify(p)).join(' or ')}`;
}

/** A value's text as a field holds it; null: missing (JSON null). */
function fieldText(v: JsonValue): string | null | { nested: string } {
  if (v === null) return null;
  if (typeof v === 'string') return v;
  if (v instanceof JsonNumber) return v.text;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return { nested: Array.isArray(v) ? 'an array' : 'an object' };
}

export type JsonLineReading = { values: Map<OrderColumn | 'when', string>; attributes: string | null } | { code: string; message: string };

/** One line's fields (or why the line is rejected). `lenient`: what cannot be read is empty (an exported line read again). */
export function readJsonLine(text: string, compiled: JsonFields, lenient = false): JsonLineReading {
  let root: JsonValue;
  try {
    root = parseJsonText(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) return { code: 'PARSE_JSON', message: error.message };
    throw error;
  }
  if (!(root instanceof Map))
    return {
      code: 'PARSE_JSON_NOT_OBJECT',
      message: `the line is ${Array.isArray(root) ? 'a JSON array' : 'a JSON value'}, not an object: each line of a JSON Lines file is one object`,
    };
  const values = new Map<OrderColumn | 'when', string>();
  for (const f of compiled.fields) {
    let found: JsonValue | undefined;
    for (const p of f.paths) {
      found = valueAt(root, p);
      if (found !== undefined) break;
    }
    if (found === undefined) {
      if (lenient || f.hasDefault) continue;
      return { code: 'PARSE_JSON_PATH', message: `${f.what}: the object has no such path` };
    }
    const t = fieldText(found);
    if (t !== null && typeof t === 'object') {
      if (lenient) continue;
      return { code: 'PARSE_JSON_VALUE', message: `${f.what}: holds ${t.nested}, not a string, number or true/false` };
    }
    if (t !== null) values.set(f.name, t);
  }
  return { values, attributes: compiled.keep === null ? null : attributesOf(root, compiled.keep) };
}

function attributesOf(root: Map<string, JsonValue>, keep: (name: string) => boolean): string | null {
  const kept: Array<[string, string]> = [];
  for (const [name, v] of root) {
    if (!keep(name)) continue;
    const t = fieldText(v);
    if (t !== null) kept.push([name, typeof t === 'string' ? t : jsonText(v)]);
  }
  // fromEntries defines each property: a key __proto__ is an attribute like any other
  return kept.length === 0 ? null : canonicalAttributes(Object.fromEntries(kept));
}

/**
 * A line of a JSON Lines file exported again (its text, as logged) read as the profile maps it,
 * leniently: a path it lacks is empty; a line that is not a JSON object gives empty fields.
 */
export function splitJsonText(raw: string, profile: LoadProfile): { fields: Record<OrderColumn, string>; attributes: string | null } {
  const read = readJsonLine(raw, compileJsonFields(profile), true);
  const values = 'code' in read ? new Map<string, string>() : read.values;
  return {
    fields: compileMapping(profile).map((c) => values.get(c) ?? '').fields,
    attributes: 'code' in read ? null : read.attributes,
  };
}
