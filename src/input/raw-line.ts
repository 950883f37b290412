import { parse } from 'csv-parse/sync';
import type { FileLayout } from '../engine/types.js';
import { isErrorExportHeader, restoreFormula } from './formula-guard.js';
import { ORDER_COLUMNS, type OrderColumn } from './order-record.js';
import type { FileEncoding } from './order-file.js';
import { splitJsonText } from './formats/json-fields.js';
import { splitFixedText } from './profile/fixed-reader.js';
import { sheetColumnIndex } from './formats/xlsx-columns.js';
import { compileMapping, headerKey } from './profile/mapping.js';
import { profileSchema, type LoadProfileSpec } from './profile/schema.js';
import {
  attributeColumns,
  attributesJson,
  parseAttributes,
  positionalAttributes,
  RESERVED_ATTRIBUTE_NAMES,
  type AttributeColumns,
} from './profile/attributes.js';

/**
 * A rejected line's own values by column, split again from its raw text (as logged) with the
 * header and delimiter its file was read with. Lenient: a stray or unclosed quote, a wrong field
 * count or a cut-off line still give what can be read (missing columns are empty), so that a
 * person fixing the one wrong cell of an exported line does not have to retype the others.
 */
export function splitRawLine(raw: string, layout: FileLayout): Record<OrderColumn, string> {
  if (layout.profile !== undefined) {
    const mapped = splitProfiledLine(raw, layout, layout.profile);
    if (mapped !== null) return mapped;
  }
  const fields = lineFields(raw, layout.delimiter);
  const restore = isErrorExportHeader(layout.header);
  const positions = new Map<string, number>();
  layout.header.forEach((name, index) => {
    const key = name.trim().toLowerCase();
    if (!positions.has(key)) positions.set(key, index);
  });
  const values = {} as Record<OrderColumn, string>;
  for (const column of ORDER_COLUMNS) {
    const index = positions.get(column);
    const value = index === undefined ? '' : (fields[index] ?? '');
    values[column] = restore ? restoreFormula(value) : value;
  }
  return values;
}

/**
 * A line of a file read through a load profile, split and mapped again as the profile maps it:
 * the five fields as they were loaded (a field the profile could not read: its text as found),
 * so that `errors` exports the canonical five columns of any file. Null when the recorded spec
 * is not a profile this version reads (then the plain split is the best reading left).
 */
function splitProfiledLine(
  raw: string,
  layout: FileLayout,
  recorded: NonNullable<FileLayout['profile']>,
): Record<OrderColumn, string> | null {
  const checked = profileSchema.safeParse(recorded.spec);
  if (!checked.success) return null;
  const profile = { name: recorded.name, sha256: recorded.sha256, spec: checked.data };
  const spec = profile.spec;
  if (spec.format === 'fixed') return splitFixedText(raw, profile, recorded.encoding as FileEncoding);
  if (spec.format === 'jsonl') return splitJsonText(raw, profile).fields;
  const fields = lineFields(raw, spec.delimiter ?? ',', spec);
  const indexOf = columnIndex(layout.header, spec.format);
  const mapping = compileMapping(profile);
  return mapping.map((c) => {
    const i = indexOf(spec.columns[c].column);
    return i < 0 ? '' : (fields[i] ?? '');
  }).fields;
}

/** A line's fields, leniently: a stray or unclosed quote still gives what can be read. */
function lineFields(raw: string, delimiter: string, spec?: LoadProfileSpec): string[] {
  try {
    const records = parse(raw, {
      delimiter,
      ...(spec?.quote !== undefined ? { quote: spec.quote } : {}),
      ...(spec?.escape !== undefined ? { escape: spec.escape } : {}),
      record_delimiter: ['\r\n', '\n', '\r'],
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: false,
    });
    // a line holding a quoted line break parses as one record; a broken one may give several
    return records.length <= 1 ? (records[0] ?? []) : records.flat();
  } catch {
    // an unclosed quote: the plain split by the delimiter is the best reading left
    return raw.split(delimiter);
  }
}

/**
 * The record index of a profile's column reference in a header (names as the profile matches
 * them), or -1. A workbook's row is logged as the CSV of its cells from column A: a column letter
 * is its index there.
 */
function columnIndex(header: readonly string[], format?: string): (ref: string | number | string[] | undefined) => number {
  if (format === 'xlsx') return (ref) => sheetColumnIndex(header, ref);
  const keys = header.map(headerKey);
  return (ref) => {
    if (ref === undefined) return -1;
    if (typeof ref === 'number') return ref - 1;
    for (const name of typeof ref === 'string' ? [ref] : ref) {
      const i = keys.indexOf(headerKey(name));
      if (i >= 0) return i;
    }
    return -1;
  };
}

/**
 * A rejected line's attributes, split again from its raw text as the reader kept them (a
 * profile's `extra`, the attribute columns of an `errors` export read back;
 * src/input/profile/attributes.ts), so that `errors` exports them beside the five fields and
 * nothing of the line is lost on the way back. Null: its file kept none (or the line has none).
 */
export function rawLineAttributes(raw: string, layout: FileLayout): Record<string, string> | null {
  let columns: AttributeColumns;
  let fields: string[];
  let restore: ((v: string) => string) | undefined;
  try {
    if (layout.profile !== undefined) {
      const checked = profileSchema.safeParse(layout.profile.spec);
      if (!checked.success) return null;
      const spec = checked.data;
      if (spec.format === 'fixed' || spec.extra === 'ignore') return null;
      if (spec.format === 'jsonl')
        return parseAttributes(splitJsonText(raw, { name: layout.profile.name, sha256: layout.profile.sha256, spec }).attributes);
      fields = lineFields(raw, spec.delimiter ?? ',', spec);
      const indexOf = columnIndex(layout.header, spec.format);
      const used = new Set<number>();
      for (const c of ORDER_COLUMNS) {
        const i = indexOf(spec.columns[c].column);
        if (i >= 0) used.add(i);
      }
      columns =
        layout.header.length === 0
          ? spec.extra === 'keep'
            ? positionalAttributes(used)(fields.length)
            : { indexes: [], names: [], keys: [] }
          : attributeColumns(layout.header, used, spec.extra, headerKey, 'layout');
    } else {
      if (!isErrorExportHeader(layout.header)) return null;
      const reserved = new Set<number>();
      layout.header.forEach((n, i) => {
        if (RESERVED_ATTRIBUTE_NAMES.includes(n.trim().toLowerCase())) reserved.add(i);
      });
      if (reserved.size === layout.header.length) return null;
      fields = lineFields(raw, layout.delimiter);
      columns = attributeColumns(layout.header, reserved, 'keep', (n) => n.trim(), 'layout');
      restore = restoreFormula;
    }
  } catch {
    // a header whose columns the reader would have refused: it loaded nothing to keep
    return null;
  }
  return parseAttributes(attributesJson(fields, columns, restore));
}
