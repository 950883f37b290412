import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { stringify as stringifySync } from 'csv-stringify/sync';
import { neutraliseFormula } from '../input/formula-guard.js';
import type { ErrorExportRow } from '../pipeline/errors-export.js';

export { neutraliseFormula } from '../input/formula-guard.js';

/**
 * The CSV columns of `errors`: the order columns (what `load` reads back), then what went wrong,
 * where, and the line as it was read. `error_code`, `error_message`, `line_no` and `load_id`
 * together mark the file as our export when it is loaded back (src/input/formula-guard.ts).
 * After them, one column per attribute name of the exported rows (a profile's `extra`), in
 * code-unit order of the names, which the built-in reader keeps again as the rows' attributes
 * when the file is loaded back (src/input/order-file.ts, describeHeader); none without attributes.
 */
export const ERROR_EXPORT_COLUMNS = [
  'source_key',
  'customer_id',
  'order_date',
  'amount',
  'currency',
  'error_code',
  'error_message',
  'line_no',
  'load_id',
  'raw_record',
] as const;

/**
 * The columns `--format excel` writes as Excel's text guard `="…"`: a key or id of digits loses
 * its leading zeros (`000127` → `127`) or its digits (`1.23457E+15`), a date its form, when
 * Excel opens the file and saves it again. The guard keeps each as text; `load` unwraps it.
 */
const EXCEL_TEXT_COLUMNS = new Set([0, 1, 2, 3, 5]);

/** `="…"`, a quote inside doubled (the text of a formula). */
const excelText = (v: string): string => `="${v.replaceAll('"', '""')}"`;

/** One export row as CSV cells; a cell a spreadsheet would run as a formula gets the formula guard. */
function cells(r: ErrorExportRow, attributeNames: readonly string[], excel: boolean): string[] {
  const base = [r.sourceKey, r.customerId, r.orderDate, r.amount, r.currency, r.errorCode, r.errorMessage, r.lineNo, r.loadId, r.rawRecord];
  const attributes = r.attributes;
  const all = attributeNames.length === 0 ? base : [...base, ...attributeNames.map((n) => attributes?.[n] ?? null)];
  return all.map((v, i) => {
    if (v === null) return '';
    const text = neutraliseFormula(String(v));
    return excel && EXCEL_TEXT_COLUMNS.has(i) ? excelText(text) : text;
  });
}

/** `excel`: CRLF line ends and a byte order mark, as Excel reads UTF-8 (without the mark it reads the ANSI code page). */
function csvOptions(attributeNames: readonly string[], excel = false) {
  return {
    header: true,
    columns: [...ERROR_EXPORT_COLUMNS, ...attributeNames],
    record_delimiter: excel ? 'windows' : 'unix',
    bom: excel,
  } as const;
}

/** The attribute names of some rows, added to `names`. */
function addNames(names: Set<string>, r: ErrorExportRow): void {
  if (r.attributes !== undefined) for (const n of Object.keys(r.attributes)) names.add(n);
}

/** The attribute columns of the export: every name of the rows, in code-unit order (the same on every engine). */
function sortedNames(names: Set<string>): string[] {
  return [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The rows as one CSV text (a library convenience for a few rows; `errors` streams with writeErrorsCsv). */
export function errorsToCsv(rows: ErrorExportRow[], options: { excel?: boolean } = {}): string {
  const names = new Set<string>();
  for (const r of rows) addNames(names, r);
  const attributeNames = sortedNames(names);
  const excel = options.excel === true;
  return stringifySync(
    rows.map((r) => cells(r, attributeNames, excel)),
    csvOptions(attributeNames, excel),
  );
}

/** Rows held while the attribute names are gathered: an export of at most this many rows is read once. */
export const ERRORS_CSV_HELD_ROWS = 5000;

/**
 * Stream the rows as CSV to `out`, with backpressure: memory holds a page of rows (and at most
 * ERRORS_CSV_HELD_ROWS), not the export. The header names every attribute column before the first
 * row, so the rows are gathered first: an export of at most ERRORS_CSV_HELD_ROWS rows is written
 * from those; a longer one is read to its end for the names alone, then read again (`rows` is
 * called twice) and written. Rows added between the two reads with an attribute name the first
 * did not see lose that cell (the export is not a snapshot, as it never was: pages).
 */
export async function writeErrorsCsv(
  rows: () => AsyncIterable<ErrorExportRow>,
  out: Writable,
  options: { excel?: boolean } = {},
): Promise<void> {
  const excel = options.excel === true;
  const names = new Set<string>();
  const held: ErrorExportRow[] = [];
  let complete = true;
  for await (const r of rows()) {
    addNames(names, r);
    if (complete && held.length < ERRORS_CSV_HELD_ROWS) held.push(r);
    else if (complete) {
      complete = false;
      held.length = 0;
    }
  }
  const attributeNames = sortedNames(names);
  async function* records() {
    for await (const r of complete ? held : rows()) yield cells(r, attributeNames, excel);
  }
  await pipeline(Readable.from(records()), stringify(csvOptions(attributeNames, excel)), out, { end: false });
}

/** Stream the rows as one JSON array, written element by element. */
export async function writeErrorsJson(rows: AsyncIterable<ErrorExportRow>, out: Writable): Promise<void> {
  async function* chunks() {
    let first = true;
    yield '[';
    for await (const r of rows) {
      yield `${first ? '' : ','}${JSON.stringify(r)}`;
      first = false;
    }
    yield ']\n';
  }
  await pipeline(Readable.from(chunks()), out, { end: false });
}
