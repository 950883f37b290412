import type { ErrorRowReport } from '../engine/types.js';

export const ERROR_EXPORT_COLUMNS = [
  'source_key', 'customer_id', 'order_date', 'amount', 'currency', 'error_code', 'error_message', 'line_no', 'load_id',
] as const;

/**
 * A cell a spreadsheet would run as a formula (=, +, -, @, tab, CR first) gets a leading
 * apostrophe; the loader strips that apostrophe again when the file comes back, so the value is
 * recoverable (src/input/order-record.ts).
 */
export function neutraliseFormula(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

function csvCell(value: string | number | null): string {
  if (value === null) return '';
  const text = neutraliseFormula(String(value));
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The ERROR rows as a CSV that `load` accepts back once fixed (the extra columns are ignored). */
export function errorsToCsv(rows: ErrorRowReport[]): string {
  const lines = [ERROR_EXPORT_COLUMNS.join(',')];
  for (const r of rows) {
    lines.push(
      [r.sourceKey, r.customerId, r.orderDate, r.amount, r.currency, r.errorCode, r.errorMessage, r.lineNo, r.loadId].map(csvCell).join(','),
    );
  }
  return `${lines.join('\n')}\n`;
}
