/**
 * The text of a worksheet cell as the xlsx reader hands it to the profile's mapping, and the
 * helpers around it: column letters, Excel's date serials, a row's raw text. Pure.
 *
 * Numbers: a cell holds an IEEE double (the XML writes it with up to 17 significant digits, and
 * a formula's cached result often carries float noise: 1234.4999999999998). Excel itself never
 * shows more than 15 significant digits, so the number is read as its 15-significant-digit
 * decimal text with trailing zeros dropped, built from the digits of toPrecision(15) — never by
 * arithmetic on the double — so 1234.5 is "1234.5" (an amount 1234.50) and 0.1 stays "0.1".
 */

/** A cell's value as exceljs's streaming reader gives it (the kinds this reader reads). */
export type CellValue =
  | null
  | undefined
  | number
  | string
  | boolean
  | Date
  | { richText: Array<{ text: string }> }
  | { formula?: string; sharedFormula?: string; result?: unknown }
  | { error: string }
  | { text: string; hyperlink: string }
  | { sharedString: number };

/** What a cell reads as: its text ('' when empty; an error cell: the error), and why a field cannot take it (an error value, a date that never was). */
export interface CellText {
  text: string;
  date?: boolean;
  problem?: string;
}

/** A number's text as Excel shows it at most: 15 significant digits, plain decimal, no trailing zeros. */
export function numberText(n: number): string | null {
  if (!Number.isFinite(n)) return null;
  if (n === 0) return '0';
  if (Number.isInteger(n) && Math.abs(n) < 1e15) return String(n);
  const [mantissa = '', exponentText = '0'] = n.toPrecision(15).split('e');
  const negative = mantissa.startsWith('-');
  const unsigned = negative ? mantissa.slice(1) : mantissa;
  const dot = unsigned.indexOf('.');
  const digits = dot < 0 ? unsigned : unsigned.slice(0, dot) + unsigned.slice(dot + 1);
  // where the decimal point falls in `digits`
  const point = (dot < 0 ? unsigned.length : dot) + Number(exponentText);
  let whole: string;
  let fraction: string;
  if (point <= 0) {
    whole = '0';
    fraction = '0'.repeat(-point) + digits;
  } else if (point >= digits.length) {
    whole = digits + '0'.repeat(point - digits.length);
    fraction = '';
  } else {
    whole = digits.slice(0, point);
    fraction = digits.slice(point);
  }
  whole = whole.replace(/^0+(?=\d)/, '');
  fraction = fraction.replace(/0+$/, '');
  const text = fraction === '' ? whole : `${whole}.${fraction}`;
  return negative && text !== '0' ? `-${text}` : text;
}

/** Formats seen, and whether each shows a date: a workbook has a few, its cells many. */
const DATE_FORMATS = new Map<string, boolean>();

/** Whether a number format shows a date (or time): its y, m, d, h, s outside quotes and brackets. */
export function isDateFormat(format: string | undefined): boolean {
  if (format === undefined || format === '') return false;
  let known = DATE_FORMATS.get(format);
  if (known === undefined) {
    known = showsDate(format);
    if (DATE_FORMATS.size < 1000) DATE_FORMATS.set(format, known);
  }
  return known;
}

function showsDate(format: string): boolean {
  const bare = format.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, '');
  return /[ymdhsYMDHS]/.test(bare.replace(/\\./g, ''));
}

const DAY_MS = 86_400_000;
/** Days from Excel's day 0 to 1970-01-01: 1899-12-30 in the 1900 system (the leap-year bug folded in), 1904-01-01 in the 1904 system. */
const EPOCH_1900 = 25_569;
const EPOCH_1904 = 24_107;

const iso = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * The calendar date of a date serial (its day; a time of day is dropped). The 1900 system counts
 * a 29 February 1900 that never was (Lotus's bug, kept by Excel): serial 60 is that day and is
 * refused; the serials before it are one day later than the plain count says.
 */
export function serialDate(serial: number, date1904: boolean): CellText {
  if (!Number.isFinite(serial) || serial < (date1904 ? 0 : 1))
    return { text: String(serial), problem: `the date serial ${String(serial)} is before the first day of the workbook's date system` };
  const day = Math.floor(serial);
  if (date1904) return { text: iso((day - EPOCH_1904) * DAY_MS), date: true };
  if (day === 60)
    return { text: '1900-02-29', problem: 'the date is 29 February 1900, a day that does not exist (Excel’s 1900 leap-year bug)' };
  return { text: iso((day - EPOCH_1900 + (day < 60 ? 1 : 0)) * DAY_MS), date: true };
}

/** The serial exceljs read for a date cell it made into a Date (its day count back from the Unix epoch). */
export function dateSerial(date: Date, date1904: boolean): number {
  return date.getTime() / DAY_MS + (date1904 ? EPOCH_1904 : EPOCH_1900);
}

/** A cell's text: strings as they are, numbers as Excel shows them, dates as YYYY-MM-DD, a formula by its cached result. */
export function cellText(value: CellValue, numFmt: string | undefined, date1904: boolean): CellText {
  if (value === null || value === undefined) return { text: '' };
  if (typeof value === 'string') return { text: value };
  if (typeof value === 'boolean') return { text: value ? 'true' : 'false' };
  if (typeof value === 'number') {
    if (isDateFormat(numFmt)) return serialDate(value, date1904);
    const text = numberText(value);
    return text === null ? { text: String(value), problem: 'the cell holds no number' } : { text };
  }
  if (value instanceof Date) return serialDate(dateSerial(value, date1904), date1904);
  if ('richText' in value) return { text: value.richText.map((r) => r.text).join('') };
  if ('error' in value) return { text: value.error, problem: `the cell holds the error ${value.error}` };
  if ('sharedString' in value)
    return {
      text: '',
      problem: 'the cell refers to a shared string, but the workbook has no shared-strings part (a damaged workbook)',
    };
  if ('hyperlink' in value) return { text: value.text };
  // a formula: its cached result, as the same cell holding that value would read
  const result = value.result;
  if (result === undefined || result === null) return { text: '' };
  if (typeof result === 'number' && Number.isNaN(result)) return { text: '', problem: 'the formula’s cached result is an error' };
  if (typeof result === 'number' || typeof result === 'string' || typeof result === 'boolean' || result instanceof Date)
    return cellText(result, numFmt, date1904);
  if (typeof result === 'object' && 'error' in result) {
    const error = String(result.error);
    return { text: error, problem: `the formula’s cached result is the error ${error}` };
  }
  return { text: '', problem: 'the formula’s cached result is not a value' };
}

/** A column's letters (A, Z, AA, XFD) from its 1-based number. */
export function columnLetters(n: number): string {
  let s = '';
  for (let i = n; i > 0; i = Math.floor((i - 1) / 26)) s = String.fromCharCode(65 + ((i - 1) % 26)) + s;
  return s;
}

/** The last column of a sheet (XFD): a letter reference past it is not a column. */
export const MAX_COLUMN = 16_384;

/** A column letter reference (A to XFD) as its 1-based number, or null. */
export function columnNumber(letters: string): number | null {
  if (!/^[A-Z]{1,3}$/.test(letters)) return null;
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n <= MAX_COLUMN ? n : null;
}

/** A row's cells as one CSV line (its raw text in the error log): quoted where a comma, quote or line break needs it. */
export function csvLine(cells: readonly string[]): string {
  return cells.map((c) => (/[",\r\n]/.test(c) ? `"${c.replaceAll('"', '""')}"` : c)).join(',');
}
