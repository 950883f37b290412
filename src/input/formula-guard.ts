/**
 * The formula guard of the `errors` CSV export. A cell a spreadsheet would run as a formula
 * (=, +, -, @, tab or CR first) is written with a leading apostrophe; a value that already starts
 * with apostrophes before such a character gets one more, so that removing exactly one apostrophe
 * gives back every value byte for byte (`'=x` → `''=x` → `'=x`). Only a file recognisably
 * exported by `errors` (isErrorExportHeader) has the apostrophe removed on load: any other file's
 * values are kept as written, an apostrophe included.
 */
const GUARDED = /^'*[=+\-@\t\r]/;
const NEUTRALISED = /^'+[=+\-@\t\r]/;

export function neutraliseFormula(value: string): string {
  return GUARDED.test(value) ? `'${value}` : value;
}

export function restoreFormula(value: string): string {
  return NEUTRALISED.test(value) ? value.slice(1) : value;
}

/** The columns `errors` adds to the order columns: a header naming all four is our export's. */
export const ERROR_EXPORT_MARKER_COLUMNS = ['error_code', 'error_message', 'line_no', 'load_id'] as const;

/** A header (names as in the file) of a file written by `errors --format csv`: it names every marker column. */
export function isErrorExportHeader(names: readonly string[]): boolean {
  const lower = new Set(names.map((n) => n.trim().toLowerCase()));
  return ERROR_EXPORT_MARKER_COLUMNS.every((c) => lower.has(c));
}
