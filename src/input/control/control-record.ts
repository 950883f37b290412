/**
 * A control record (a profile's `control: trailer` or `control: header`): a record of the file that
 * states the file's own totals. The readers (formats/delimited-items.ts for csv,
 * src/input/profile/fixed-reader.ts, formats/jsonl.ts, formats/xlsx-control.ts) pass it over as no data row and keep it here; the check
 * (control-check.ts) decides which one is the trailer or header and reads its figures.
 */
import { parseJsonPath, valueAt } from '../formats/json-path.js';
import { JsonNumber, parseJsonText, type JsonValue } from '../formats/json-text.js';
import type { ControlField, LoadProfileSpec, WhenSpec } from '../profile/schema.js';

/** A record that matched the control rule: its fields (csv, xlsx) or its text (fixed, jsonl). */
export interface ControlRecord {
  lineNo: number;
  /** The record's fields as the CSV reader split them, or a row's cells; null for a fixed-width or JSON line. */
  fields: readonly string[] | null;
  /** The line's text as decoded (fixed width: what `at` positions read; JSON Lines: the object, read by path). */
  text: string;
  /** A workbook row's: the 0-based cell of a column as the profile names it (a header name, a letter or a number), -1 when none. */
  cellIndex?: (column: string | number) => number;
}

/** A control value of a record or a control file's line: the field by its 1-based number, or the characters at [start, length]. */
export function controlValue(record: Pick<ControlRecord, 'fields' | 'text' | 'cellIndex'>, field: ControlField): string | null {
  if (record.cellIndex !== undefined && field.column !== undefined) {
    const i = record.cellIndex(field.column);
    return i < 0 ? null : (record.fields?.[i]?.trim() ?? null);
  }
  if (typeof field.column === 'string') return jsonValueText(record.text, field.column);
  if (field.column !== undefined) return record.fields?.[field.column - 1]?.trim() ?? null;
  if (field.at !== undefined) {
    const chars = Array.from(record.text);
    if (chars.length < field.at[0]) return null;
    return chars
      .slice(field.at[0] - 1, field.at[0] - 1 + field.at[1])
      .join('')
      .trim();
  }
  return null;
}

/** The value at a path of a JSON object's text: a string, or a number as written; null when absent or neither. */
function jsonValueText(text: string, pathText: string): string | null {
  let root: JsonValue;
  try {
    root = parseJsonText(text);
  } catch {
    return null;
  }
  return valueText(root, pathText);
}

function valueText(root: JsonValue, pathText: string): string | null {
  const path = parseJsonPath(pathText);
  // the profile's schema has checked the path (src/input/profile/jsonl-spec.ts)
  if ('problem' in path) return null;
  const v = valueAt(root, path);
  if (typeof v === 'string') return v.trim();
  return v instanceof JsonNumber ? v.text : null;
}

/** The test a control rule makes of a value (`equals`, `in` or `not_in`). */
export function ruleTest(rule: WhenSpec): (value: string) => boolean {
  if (rule.equals !== undefined) {
    const equals = rule.equals;
    return (v) => v === equals;
  }
  const list = new Set(rule.in ?? rule.not_in ?? []);
  return rule.in !== undefined ? (v) => list.has(v) : (v) => !list.has(v);
}

/**
 * The test of the profile's control record rule, or null when its control values are not in a
 * record (none, or a control file). CSV: the record's fields; fixed: the line's text.
 */
export function controlRecordRule(
  spec: LoadProfileSpec,
): { fields(record: readonly string[]): boolean; text(line: string): boolean; json(root: JsonValue): boolean } | null {
  const rule = spec.control?.trailer ?? spec.control?.header;
  if (rule === undefined) return null;
  const test = ruleTest(rule);
  const column = typeof rule.column === 'number' ? rule.column : undefined;
  const at = rule.at;
  return {
    fields: (record) => column !== undefined && record.length >= column && test((record[column - 1] ?? '').trim()),
    text: (line) => at !== undefined && test(controlValue({ fields: null, text: line }, { at }) ?? ''),
    json: (root) => {
      if (typeof rule.column !== 'string') return false;
      const v = valueText(root, rule.column);
      return v !== null && test(v);
    },
  };
}
