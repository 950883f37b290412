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

/** One export row as CSV cells; a cell a spreadsheet would run as a formula gets the formula guard. */
function cells(r: ErrorExportRow): string[] {
  return [r.sourceKey, r.customerId, r.orderDate, r.amount, r.currency, r.errorCode, r.errorMessage, r.lineNo, r.loadId, r.rawRecord].map(
    (v) => (v === null ? '' : neutraliseFormula(String(v))),
  );
}

const CSV_OPTIONS = { header: true, columns: [...ERROR_EXPORT_COLUMNS], record_delimiter: 'unix' } as const;

/** The rows as one CSV text (a library convenience for a few rows; `errors` streams with writeErrorsCsv). */
export function errorsToCsv(rows: ErrorExportRow[]): string {
  return stringifySync(rows.map(cells), CSV_OPTIONS);
}

/** Stream the rows as CSV to `out`, with backpressure: memory holds a page of rows, not the export. */
export async function writeErrorsCsv(rows: AsyncIterable<ErrorExportRow>, out: Writable): Promise<void> {
  async function* records() {
    for await (const r of rows) yield cells(r);
  }
  await pipeline(Readable.from(records()), stringify(CSV_OPTIONS), out, { end: false });
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
