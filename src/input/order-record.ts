import { z } from 'zod';
import type { OrderValues } from '../engine/types.js';

/** The columns of an order file, by header name. */
export const ORDER_COLUMNS = ['source_key', 'customer_id', 'order_date', 'amount', 'currency'] as const;
export type OrderColumn = (typeof ORDER_COLUMNS)[number];

export const MAX_SOURCE_KEY_LENGTH = 100;
/** order_stage.amount is numeric(18,2): at most 16 digits before the point. */
const STAGE_AMOUNT_INTEGER_DIGITS = 16;
const MAX_BIGINT = 9223372036854775807n;

/** A field's value as we quote it in an error message: trimmed to a readable length. */
export function quoteValue(value: string): string {
  // eslint-disable-next-line @typescript-eslint/no-misused-spread -- code points on purpose: lengths are counted in characters, not UTF-16 units
  const chars = [...value];
  const shown = chars.length > 40 ? `${chars.slice(0, 40).join('')}…` : value;
  return JSON.stringify(shown);
}

/**
 * v.trim(), without the call when v starts and ends with a printable ASCII character (no blank
 * to remove: String.prototype.trim's white space is never one of them). Ten trims per line (the
 * mapping's and the parse's) were the largest item of a profile's mapping (bench/RESULTS.md,
 * "The quote-free split").
 */
export function trimText(v: string): string {
  const n = v.length;
  if (n === 0) return v;
  const first = v.charCodeAt(0);
  const last = v.charCodeAt(n - 1);
  return first > 0x20 && first < 0x7f && last > 0x20 && last < 0x7f ? v : v.trim();
}

type Ctx = z.RefinementCtx;

function fail(ctx: Ctx, message: string): never {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
}

/**
 * Empty field = missing value. Surrounding blanks are not part of a value. (The apostrophe of
 * the `errors` export's formula guard is removed when the file is read, and only from such a
 * file: src/input/formula-guard.ts.)
 */
const text = z.string().transform((v) => v.trim());

/**
 * Length in characters (Unicode code points), as PostgreSQL's varchar(n) and Oracle's
 * VARCHAR2(n CHAR) count them: "𠮷" is one character, two UTF-16 units in a JS string.
 */
export function charLength(v: string): number {
  let n = 0;
  for (const _ of v) n++;
  return n;
}

const sourceKey = text.transform((v, ctx) => {
  if (v === '') return fail(ctx, 'source_key is missing');
  const length = charLength(v);
  if (length > MAX_SOURCE_KEY_LENGTH) return fail(ctx, `source_key is longer than ${MAX_SOURCE_KEY_LENGTH} characters (${length})`);
  return v;
});

const customerId = text.transform((v, ctx): string | null => {
  if (v === '') return null;
  if (!/^[+-]?\d+$/.test(v)) return fail(ctx, `customer_id is not an integer: ${quoteValue(v)}`);
  const n = BigInt(v);
  if (n > MAX_BIGINT || -n > MAX_BIGINT) return fail(ctx, `customer_id is out of range: ${quoteValue(v)}`);
  return n.toString();
});

/**
 * The order dates every engine stores alike. Oracle's calendar is Julian before 1582-10-15
 * (1582-10-05 … 1582-10-14 do not exist there, and TO_DATE refuses them) while PostgreSQL's is
 * proleptic Gregorian; from 1900 on they agree. An order date before 1900 is a typing error in
 * practice, so it is refused when the line is read, on every engine, and a file behaves the same
 * on Oracle, PostgreSQL and PGlite.
 */
export const ORDER_DATE_RANGE = { first: '1900-01-01', last: '9999-12-31' } as const;

/** Days in each month of a common year (February 29 is checked against the leap-year rule). */
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The value of `count` ASCII digits of `v` from `at` (a float past 2^53), or -1 when one of them is not a digit. */
function digitsAt(v: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const d = v.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/** YYYY-MM-DD, a date of the proleptic Gregorian calendar from 1900-01-01 on. */
export function isValidIsoDate(v: string): boolean {
  if (v.length !== 10 || v.charCodeAt(4) !== 45 || v.charCodeAt(7) !== 45) return false;
  const year = digitsAt(v, 0, 4);
  const month = digitsAt(v, 5, 2);
  const day = digitsAt(v, 8, 2);
  if (year < 1900 || month < 1 || month > 12 || day < 1) return false;
  const daysInMonth = month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
  return day <= daysInMonth;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const orderDate = text.transform((v, ctx): string | null => {
  if (v === '') return null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(v) && v < ORDER_DATE_RANGE.first) {
    return fail(ctx, `order_date is before ${ORDER_DATE_RANGE.first} (the dates every engine stores alike): ${quoteValue(v)}`);
  }
  if (!isValidIsoDate(v)) return fail(ctx, `order_date is not a valid date (YYYY-MM-DD): ${quoteValue(v)}`);
  return v;
});

/**
 * Plain decimal text, at most 2 decimal digits as written, within the stage's precision.
 * Returned in canonical form ("-0" → "0", no "+", no leading zeros, no trailing zeros).
 *
 * A third decimal digit is refused even when it is 0: in a file written with a decimal comma and
 * a point for thousands (`--delimiter ';'`, a German `1.200` is one thousand two hundred), `1.200`
 * read as 1.20 would be stored without a word. The point is the decimal point of this format.
 */
export function parseAmount(v: string): { value: string } | { error: string } {
  const m = /^([+-]?)(\d+)(?:\.(\d+))?$/.exec(v);
  if (m === null) {
    const hint = /^[+-]?[\d,]+(\.\d+)?$/.test(v) ? ' (no thousands separators)' : /e/i.test(v) ? ' (no exponent notation)' : '';
    return { error: `amount is not a decimal number${hint}: ${quoteValue(v)}` };
  }
  const sign = m[1] === '-' ? '-' : '';
  const integer = (m[2] ?? '0').replace(/^0+(?=\d)/, '');
  const written = m[3] ?? '';
  if (written.length > 2) {
    // 1.200, 12.345.678: what a point as thousands separator looks like
    const hint = written.length === 3 ? ' (the point is the decimal point: no thousands separators)' : '';
    return { error: `amount has more than 2 decimals${hint}: ${quoteValue(v)}` };
  }
  const fraction = written.replace(/0+$/, '');
  if (integer.length > STAGE_AMOUNT_INTEGER_DIGITS)
    return { error: `amount is too large (more than ${STAGE_AMOUNT_INTEGER_DIGITS} digits before the point): ${quoteValue(v)}` };
  const isZero = /^0*$/.test(integer) && fraction === '';
  return { value: `${isZero ? '' : sign}${integer}${fraction === '' ? '' : `.${fraction}`}` };
}

const amount = text.transform((v, ctx): string | null => {
  if (v === '') return null;
  const parsed = parseAmount(v);
  return 'error' in parsed ? fail(ctx, parsed.error) : parsed.value;
});

const currency = text.transform((v, ctx): string | null => {
  if (v === '') return null;
  if (charLength(v) > 3) return fail(ctx, `currency is longer than 3 characters: ${quoteValue(v)}`);
  return v;
});

/** PARSE: can each field be stored in order_stage? (Types and sizes, not business rules.) */
export const orderRecordSchema = z.object({
  source_key: sourceKey,
  customer_id: customerId,
  order_date: orderDate,
  amount,
  currency,
});

export type ParsedOrder = { sourceKey: string } & OrderValues;

export interface ParseIssue {
  column: OrderColumn | null;
  message: string;
}

export type ParseOutcome =
  | { ok: true; order: ParsedOrder }
  | {
      ok: false;
      sourceKey: string | null;
      issues: ParseIssue[];
      /** error_code and error_message of the line: every problem, the parse ones first (see describeProblems). */
      error: ValidationFailure;
    };

/**
 * The common case of parseOrderRecord without zod: every field in the plain form it is usually
 * written in, for which the schema's result is known (the same trimmed or canonical text).
 * Anything else returns null and the schema decides, so that one set of rules and messages holds
 * (test/unit/order-record.test.ts compares the two over edge cases). Measured: zod and its
 * per-field objects were ≈ 10 % of the dry run's CPU (bench/RESULTS.md, run 10).
 */
function parsePlainRecord(fields: Record<OrderColumn, string>): ParsedOrder | null {
  const { source_key: k, customer_id: c, order_date: d, amount: a, currency: x } = fields as Partial<Record<OrderColumn, unknown>>;
  if (typeof k !== 'string' || typeof c !== 'string' || typeof d !== 'string' || typeof a !== 'string' || typeof x !== 'string')
    return null;
  const key = trimText(fields.source_key);
  // UTF-16 units ≥ characters: within the limit in units is within it in characters
  if (key === '' || key.length > MAX_SOURCE_KEY_LENGTH) return null;
  const customer = trimText(fields.customer_id);
  let customerId: string | null = null;
  if (customer !== '') {
    // 1–18 digits, no sign, no leading zero: BigInt(v).toString() is v and within bigint
    if (customer.length > 18 || customer.charCodeAt(0) === 48 || digitsAt(customer, 0, customer.length) < 0) return null;
    customerId = customer;
  }
  const date = trimText(fields.order_date);
  let orderDate: string | null = null;
  if (date !== '') {
    if (!isValidIsoDate(date)) return null;
    orderDate = date;
  }
  const amountText = trimText(fields.amount);
  let amountValue: string | null = null;
  if (amountText !== '') {
    amountValue = plainAmount(amountText);
    if (amountValue === null) return null;
  }
  const currencyText = trimText(fields.currency);
  let currencyValue: string | null = null;
  if (currencyText !== '') {
    if (currencyText.length > 3) return null;
    currencyValue = currencyText;
  }
  return { sourceKey: key, customerId, orderDate, amount: amountValue, currency: currencyValue };
}

/**
 * Digits with no leading zero (or a single 0), optionally a point and one or two digits not
 * ending in 0, at most STAGE_AMOUNT_INTEGER_DIGITS before the point: parseAmount returns it as is.
 */
function isCanonicalAmount(v: string): boolean {
  const point = v.indexOf('.');
  const integerDigits = point === -1 ? v.length : point;
  if (integerDigits === 0 || integerDigits > STAGE_AMOUNT_INTEGER_DIGITS) return false;
  if (integerDigits > 1 && v.charCodeAt(0) === 48) return false;
  if (digitsAt(v, 0, integerDigits) < 0) return false;
  if (point === -1) return true;
  const fractionDigits = v.length - point - 1;
  if (fractionDigits < 1 || fractionDigits > 2 || v.charCodeAt(v.length - 1) === 48) return false;
  return digitsAt(v, point + 1, fractionDigits) >= 0;
}

/**
 * An amount in plain form, canonical: digits with no leading zero (or a single 0), optionally a
 * point and one or two digits, at most STAGE_AMOUNT_INTEGER_DIGITS before the point; returned as
 * parseAmount returns it (trailing zeros of the fraction, and a point left alone, removed: "12.50"
 * → "12.5", "12.00" → "12"). Anything else: null (parseAmount decides). A file that writes every
 * amount with two decimals has a tenth of them end in 0: through the schema, such a line cost
 * several times a plain one (bench/RESULTS.md, run 18).
 */
export function plainAmount(v: string): string | null {
  if (isCanonicalAmount(v)) return v;
  const point = v.indexOf('.');
  // only a fraction ending in 0 is left to canonicalize here
  if (point <= 0 || v.length - point - 1 > 2 || v.charCodeAt(v.length - 1) !== 48) return null;
  let end = v.length - 1;
  while (end > point + 1 && v.charCodeAt(end - 1) === 48) end--;
  // v[point+1 .. end) is the fraction without its trailing zeros (empty: no point either)
  const trimmed = end === point + 1 ? v.slice(0, point) : v.slice(0, end);
  return isCanonicalAmount(trimmed) && digitsAt(v, point + 1, v.length - point - 1) >= 0 ? trimmed : null;
}

/** What a caller already made of a field, so that it is not read again: a date as YYYY-MM-DD from 1900 on, an amount in canonical form. */
export interface CheckedForms {
  /** order_date's text, when not empty, is a valid date as isValidIsoDate takes it. */
  date: boolean;
  /** amount's text, when not empty, is canonical (as parseAmount returns it: at most two decimals, no trailing zero, "-" only before a non-zero). */
  amount: boolean;
}

/**
 * parseOrderRecord and validateOrder of a valid line in one pass, for a profile's mapping: the
 * order when the five texts are plainly a valid order (the same order parseOrderRecord returns,
 * and one validateOrder accepts), else null (then parseOrderRecord and validateOrder decide, with
 * their messages). The forms `checked` are not read again: a mapped line's date and amount were
 * read by the profile's mask and form, and reading them again as a plain record's text, then a
 * third time in validateOrder, cost a sixth of the CPU of a dry run with a profile (bench/RESULTS.md,
 * "The mapping hands over parsed orders").
 */
export function plainValidOrder(
  key: string,
  customer: string,
  date: string,
  amountText: string,
  currencyText: string,
  checked: CheckedForms,
): ParsedOrder | null {
  const sourceKey = trimText(key);
  // UTF-16 units ≥ characters: within the limit in units is within it in characters
  if (sourceKey === '' || sourceKey.length > MAX_SOURCE_KEY_LENGTH) return null;
  // 1–18 digits, no sign, no leading zero: canonical, within bigint and positive
  if (customer.length === 0 || customer.length > 18 || customer.charCodeAt(0) === 48 || digitsAt(customer, 0, customer.length) < 0)
    return null;
  if (checked.date ? date === '' : !isValidIsoDate(date)) return null;
  let amountValue: string | null;
  if (checked.amount) {
    const point = amountText.indexOf('.');
    amountValue =
      amountText === '' || amountText.charCodeAt(0) === 45 || (point === -1 ? amountText.length : point) > STAGE_AMOUNT_INTEGER_DIGITS
        ? null
        : amountText;
  } else amountValue = plainAmount(amountText);
  if (amountValue === null || currencyText.length !== 3) return null;
  for (let i = 0; i < 3; i++) {
    const c = currencyText.charCodeAt(i);
    if (c < 65 || c > 90) return null;
  }
  return { sourceKey, customerId: customer, orderDate: date, amount: amountValue, currency: currencyText };
}

/** Parse one record (fields by column name; a missing optional column is an empty value). */
export function parseOrderRecord(fields: Record<OrderColumn, string>): ParseOutcome {
  const plain = parsePlainRecord(fields);
  if (plain !== null) return { ok: true, order: plain };
  return parseOrderRecordWithSchema(fields);
}

/** parseOrderRecord by the zod schema alone: every rule and every message (exported for the tests). */
export function parseOrderRecordWithSchema(fields: Record<OrderColumn, string>): ParseOutcome {
  const result = orderRecordSchema.safeParse(fields);
  if (result.success) {
    const d = result.data;
    return {
      ok: true,
      order: { sourceKey: d.source_key, customerId: d.customer_id, orderDate: d.order_date, amount: d.amount, currency: d.currency },
    };
  }
  const issues = result.error.issues.map((issue) => {
    const column = issue.path[0];
    return { column: typeof column === 'string' ? (column as OrderColumn) : null, message: issue.message };
  });
  const key = sourceKey.safeParse(fields.source_key);
  // A person fixing the line wants all its problems at once: the business rules of the columns
  // that did parse are checked too (a column that failed to parse is not also called "missing").
  const failed = new Set(issues.map((i) => i.column));
  const field = <T>(column: OrderColumn, schema: z.ZodType<T>): T | null => {
    if (failed.has(column)) return null;
    const r = schema.safeParse(fields[column]);
    return r.success ? r.data : null;
  };
  const values: OrderValues = {
    customerId: field('customer_id', customerId),
    orderDate: field('order_date', orderDate),
    amount: field('amount', amount),
    currency: field('currency', currency),
  };
  const problems: ValidationFailure[] = [
    ...issues.map((i) => ({ code: i.column === null ? 'PARSE' : `PARSE_${i.column.toUpperCase()}`, message: i.message })),
    ...orderProblems(values).filter((p) => !failed.has(p.column)),
  ];
  return {
    ok: false,
    sourceKey: key.success ? key.data : null,
    issues,
    error: describeProblems(problems) ?? { code: 'PARSE', message: 'the record cannot be read' },
  };
}

export interface ValidationFailure {
  code: string;
  message: string;
}

/**
 * One error_code and error_message for a row with any number of problems. error_code stays one
 * filterable value: the first problem's code. With several problems the message names each one
 * as `CODE: message`, separated by "; ", so that no problem goes unreported.
 */
export function describeProblems(problems: readonly ValidationFailure[]): ValidationFailure | null {
  const first = problems[0];
  if (first === undefined) return null;
  if (problems.length === 1) return { code: first.code, message: first.message };
  return { code: first.code, message: problems.map((p) => `${p.code}: ${p.message}`).join('; ') };
}

/** Every business-rule problem of a row's values, in column order. */
export function orderProblems(values: OrderValues): Array<ValidationFailure & { column: OrderColumn }> {
  const problems: Array<ValidationFailure & { column: OrderColumn }> = [];
  const add = (column: OrderColumn, code: string, message: string) => problems.push({ column, code, message });
  if (values.customerId === null) add('customer_id', 'INVALID_CUSTOMER_ID', 'customer_id is missing');
  else if (!/^\+?0*[1-9]\d*$/.test(values.customerId)) add('customer_id', 'INVALID_CUSTOMER_ID', 'customer_id must be a positive integer');
  if (values.orderDate === null) add('order_date', 'INVALID_ORDER_DATE', 'order_date is missing');
  else if (!isValidIsoDate(values.orderDate)) add('order_date', 'INVALID_ORDER_DATE', 'order_date is not a valid date');
  if (values.amount === null) add('amount', 'INVALID_AMOUNT', 'amount is missing');
  else {
    const parsed = parseAmount(values.amount);
    if ('error' in parsed) add('amount', 'INVALID_AMOUNT', parsed.error);
    else if (parsed.value.startsWith('-')) add('amount', 'INVALID_AMOUNT', 'amount must be zero or greater');
  }
  if (values.currency === null) add('currency', 'INVALID_CURRENCY', 'currency is missing');
  else if (!/^[A-Z]{3}$/.test(values.currency)) add('currency', 'INVALID_CURRENCY', 'currency must be three upper-case letters');
  return problems;
}

/**
 * VALIDATE: the business rules, applied to a staged row before the MERGE (and by
 * --dry-run to a parsed row, without a database). The precision of orders.amount is
 * deliberately not checked here: the database rejects it.
 */
export function validateOrder(values: OrderValues): ValidationFailure | null {
  if (isPlainValidOrder(values)) return null;
  return describeProblems(orderProblems(values).map(({ code, message }) => ({ code, message })));
}

/**
 * validateOrder's common case without building the list of problems: every value present and in
 * the form parseOrderRecord returns (canonical customer_id; an amount plainAmount takes, as the
 * database writes one: "12.50"). Otherwise orderProblems decides.
 */
function isPlainValidOrder(values: OrderValues): boolean {
  const { customerId, orderDate, amount: value, currency: code } = values;
  if (customerId === null || orderDate === null || value === null || code === null) return false;
  if (
    customerId.length === 0 ||
    customerId.length > 18 ||
    customerId.charCodeAt(0) === 48 ||
    digitsAt(customerId, 0, customerId.length) < 0
  )
    return false;
  if (!isValidIsoDate(orderDate) || plainAmount(value) === null) return false;
  if (code.length !== 3) return false;
  for (let i = 0; i < 3; i++) {
    const c = code.charCodeAt(i);
    if (c < 65 || c > 90) return false;
  }
  return true;
}
