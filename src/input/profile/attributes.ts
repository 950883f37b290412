/**
 * The columns of a file that are not order fields, kept (a profile's `extra: keep`
 * or `extra: [names]`; and the attribute columns of an `errors` export loaded back) as the
 * row's attributes: one JSON object of column name → text, stored in order_stage.attributes and
 * orders.attributes (jsonb on PostgreSQL, a CLOB checked IS JSON on Oracle).
 *
 * The JSON text is canonical, so that the same values are the same text on every engine (Oracle
 * compares the text; PostgreSQL's jsonb compares values): keys in code-unit order, values trimmed
 * as the order fields are, an empty value left out, no whitespace; no value at all → null (the
 * built-in format's rows, whose attributes stay NULL).
 */
import { UserError } from '../../errors.js';
import { ERROR_EXPORT_MARKER_COLUMNS } from '../formula-guard.js';
import { ORDER_COLUMNS } from '../order-record.js';

/**
 * Column names an attribute cannot have: the columns of the `errors` export
 * (src/cli/errors-csv.ts), in which each attribute is a column of its own name.
 */
export const RESERVED_ATTRIBUTE_NAMES: readonly string[] = [...ORDER_COLUMNS, ...ERROR_EXPORT_MARKER_COLUMNS, 'raw_record'];
const RESERVED = new Set(RESERVED_ATTRIBUTE_NAMES);

/** The name of an attribute column: its header name as written (trimmed), or its 1-based number when it has none. */
export function attributeName(names: readonly string[], index: number): string {
  const name = names[index]?.trim() ?? '';
  return name === '' ? String(index + 1) : name;
}

/** Which columns of a record become its attributes, and how. */
export interface AttributeColumns {
  /** Record indexes, in the order of their names (code units): the JSON's key order. */
  readonly indexes: readonly number[];
  readonly names: readonly string[];
  /** `"name":` of each, JSON-escaped once. */
  readonly keys: readonly string[];
}

function columnsOf(entries: Array<{ index: number; name: string }>): AttributeColumns {
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.index - b.index));
  return {
    indexes: sorted.map((e) => e.index),
    names: sorted.map((e) => e.name),
    keys: sorted.map((e) => `${JSON.stringify(e.name)}:`),
  };
}

/**
 * The attribute columns of a header: every column not in `used` (`keep`), or the columns a list
 * names (found as the profile finds its columns: `key` of each header name). A name the header
 * lacks, a name used twice, or a name the `errors` export holds already (an order field, error_code
 * …) is refused before anything is read or written: keeping it could not be loaded back.
 */
export function attributeColumns(
  names: readonly string[],
  used: ReadonlySet<number>,
  extra: 'keep' | readonly string[],
  key: (name: string) => string,
  where: string,
): AttributeColumns {
  const entries: Array<{ index: number; name: string }> = [];
  if (extra === 'keep') {
    names.forEach((_, index) => {
      if (!used.has(index)) entries.push({ index, name: attributeName(names, index) });
    });
  } else {
    const keys = names.map(key);
    for (const wanted of extra) {
      const index = keys.indexOf(key(wanted));
      if (index < 0) throw new UserError(`${where}: extra: column ${JSON.stringify(wanted)} is not in the header`);
      if (!entries.some((e) => e.index === index)) entries.push({ index, name: attributeName(names, index) });
    }
  }
  const seen = new Set<string>();
  for (const { name } of entries) {
    if (RESERVED.has(name.toLowerCase()))
      throw new UserError(
        `${where}: extra: the column ${JSON.stringify(name)} has the name of a column of the errors export (${RESERVED_ATTRIBUTE_NAMES.join(', ')}): it cannot be kept as an attribute (list the columns to keep in extra:, without it)`,
      );
    if (seen.has(name)) throw new UserError(`${where}: extra: the column ${JSON.stringify(name)} appears twice in the header`);
    seen.add(name);
  }
  return columnsOf(entries);
}

/**
 * The attribute columns of a header-less record (`header: false`, `extra: keep`): every field
 * not in `used`, named by its 1-based number. Records may differ in length: one set per length.
 */
export function positionalAttributes(used: ReadonlySet<number>): (length: number) => AttributeColumns {
  const byLength = new Map<number, AttributeColumns>();
  return (length) => {
    let columns = byLength.get(length);
    if (columns === undefined) {
      const entries: Array<{ index: number; name: string }> = [];
      for (let index = 0; index < length; index++) if (!used.has(index)) entries.push({ index, name: String(index + 1) });
      columns = columnsOf(entries);
      byLength.set(length, columns);
    }
    return columns;
  };
}

/** The canonical JSON text of a record's attributes, or null when every kept value is empty. */
export function attributesJson(record: readonly string[], columns: AttributeColumns, restore?: (value: string) => string): string | null {
  let out = '';
  const { indexes, keys } = columns;
  for (let i = 0; i < indexes.length; i++) {
    const raw = record[indexes[i] as number];
    if (raw === undefined) continue;
    let value = raw.trim();
    if (value === '') continue;
    if (restore !== undefined) value = restore(value);
    out += `${out === '' ? '{' : ','}${keys[i] as string}${JSON.stringify(value)}`;
  }
  return out === '' ? null : `${out}}`;
}

/** The canonical JSON text of name → text pairs (an operator's values, a test's), or null when none is non-empty. */
export function canonicalAttributes(values: Readonly<Record<string, string>> | null | undefined): string | null {
  if (values === null || values === undefined) return null;
  const names = Object.keys(values);
  return attributesJson(
    names.map((n) => values[n] ?? ''),
    columnsOf(names.map((name, index) => ({ index, name }))),
  );
}

/** Attributes as stored (JSON text of an object of texts), read back; null for none or for text that is not such an object. */
export function parseAttributes(text: string | null | undefined): Record<string, string> | null {
  if (text === null || text === undefined || text === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const out: Record<string, string> = {};
  // defined, not assigned: a column named __proto__ is an attribute like any other (assigned, it would set the prototype)
  for (const [k, v] of Object.entries(value as Record<string, unknown>))
    Object.defineProperty(out, k, {
      value: typeof v === 'string' ? v : JSON.stringify(v),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}
