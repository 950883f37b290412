import { parse } from 'csv-parse/sync';
import type { FileLayout } from '../engine/types.js';
import { isErrorExportHeader, restoreFormula } from './formula-guard.js';
import { ORDER_COLUMNS, type OrderColumn } from './order-record.js';

/**
 * A rejected line's own values by column, split again from its raw text (as logged) with the
 * header and delimiter its file was read with. Lenient: a stray or unclosed quote, a wrong field
 * count or a cut-off line still give what can be read (missing columns are empty), so that a
 * person fixing the one wrong cell of an exported line does not have to retype the others.
 */
export function splitRawLine(raw: string, layout: FileLayout): Record<OrderColumn, string> {
  let fields: string[];
  try {
    const records = parse(raw, {
      delimiter: layout.delimiter,
      record_delimiter: ['\r\n', '\n', '\r'],
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: false,
    });
    // a line holding a quoted line break parses as one record; a broken one may give several
    fields = records.length <= 1 ? (records[0] ?? []) : records.flat();
  } catch {
    // an unclosed quote: the plain split by the delimiter is the best reading left
    fields = raw.split(layout.delimiter);
  }
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
