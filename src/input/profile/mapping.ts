/**
 * The mapping of a profile onto the five order fields: from the text a format reader (CSV or
 * fixed) found for each column to the canonical strings parseOrderRecord reads on its fast path
 * (dates YYYY-MM-DD, amounts plain decimals). Strict: a value that fits no mask or form is a
 * PARSE_* problem of that line naming the profile field and the file's column; nothing is
 * coerced or guessed.
 */
import {
  describeProblems,
  isValidIsoDate,
  ORDER_COLUMNS,
  orderProblems,
  parseOrderRecord,
  quoteValue,
  trimText,
  type OrderColumn,
  type ParseOutcome,
} from '../order-record.js';
import type { LoadProfile } from './load-profile.js';
import type { ColumnSpec, LoadProfileSpec, WhenSpec } from './schema.js';

export interface MappingProblem {
  column: OrderColumn;
  code: string;
  message: string;
}

export interface MappedRecord {
  /** The five fields as canonical text ('' when missing); a field with a problem keeps its text as read. */
  fields: Record<OrderColumn, string>;
  /** The first field that could not be read (the line is a PARSE_* error), or null. */
  problem: MappingProblem | null;
}

type Convert = (value: string) => string | { error: string };

interface CompiledColumn {
  name: OrderColumn;
  spec: ColumnSpec;
  /** How the file's column is named in messages: `column "Date"`, `column 3`, `at 10–17`. */
  where: string;
  convert: Convert | null;
  /** Read once from spec: the per-field loop does no property lookups of the profile. */
  constant: string | undefined;
  trim: boolean;
  normalize: boolean;
  fallback: string;
  prefix: string | undefined;
}

/**
 * A test of membership in a few strings (null_if, when's list) that hashes nothing: a field is
 * compared only with the members of its length (a Set hashed every field of every line: the
 * largest part of the mapping after the amounts). A Set past 8 members.
 */
function memberTest(values: readonly string[]): (v: string) => boolean {
  if (values.length > 8) {
    const set = new Set(values);
    return (v) => set.has(v);
  }
  const list = [...new Set(values)];
  if (list.length === 0) return () => false;
  if (list.length === 1) {
    const only = list[0] as string;
    return only === '' ? (v) => v.length === 0 : (v) => v.length === only.length && v === only;
  }
  let lengths = 0; // bit n: a member of length n (n < 31)
  for (const m of list) lengths |= m.length < 31 ? 1 << m.length : 0;
  const long = list.some((m) => m.length >= 31);
  return (v) => {
    if (v.length < 31 && (lengths & (1 << v.length)) === 0) return false;
    if (v.length >= 31 && !long) return false;
    for (const m of list) if (v === m) return true;
    return false;
  };
}

/** NFKC changes no text of ASCII characters only: the common case needs no normalization. */
function isAsciiText(v: string): boolean {
  for (let i = 0; i < v.length; i++) if (v.charCodeAt(i) > 0x7f) return false;
  return true;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** Days in each month of a common year. */
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The number of the `count` ASCII digits at `at` of `v`, or -1. */
function digitsAt(v: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const d = v.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * A mask of fixed-width tokens only (YYYY, MM, DD and separators: DD.MM.YYYY, YYYYMMDD) read by
 * position, without a regular expression (the common case; measured a third of the mapping).
 * The date is checked from its numbers as isValidIsoDate checks it (from 1900 on; a unit test
 * compares the two), and the ISO text built only for a date that is one.
 */
function fixedDateMatcher(mask: string): ((v: string) => string | null) | null {
  if (/(^|[^M])M([^M]|$)|(^|[^D])D([^D]|$)/.test(mask)) return null;
  const y = mask.indexOf('YYYY');
  const m = mask.indexOf('MM');
  const d = mask.indexOf('DD');
  if (y < 0 || m < 0 || d < 0) return null;
  const separatorAt: number[] = [];
  const separatorCode: number[] = [];
  for (let i = 0; i < mask.length; i++) {
    const inToken = (i >= y && i < y + 4) || (i >= m && i < m + 2) || (i >= d && i < d + 2);
    if (!inToken) {
      separatorAt.push(i);
      separatorCode.push(mask.charCodeAt(i));
    }
  }
  const length = mask.length;
  const separators = separatorAt.length;
  return (v) => {
    if (v.length !== length) return null;
    for (let i = 0; i < separators; i++) if (v.charCodeAt(separatorAt[i] as number) !== separatorCode[i]) return null;
    const year = digitsAt(v, y, 4);
    const month = digitsAt(v, m, 2);
    const day = digitsAt(v, d, 2);
    if (year < 1900 || month < 1 || month > 12 || day < 1) return null;
    const leap = month === 2 && ((year % 4 === 0 && year % 100 !== 0) || year % 400 === 0);
    if (day > (leap ? 29 : (DAYS_IN_MONTH[month - 1] as number))) return null;
    // one string made from its ten characters (slices and "+" made four intermediate strings)
    return String.fromCharCode(
      v.charCodeAt(y),
      v.charCodeAt(y + 1),
      v.charCodeAt(y + 2),
      v.charCodeAt(y + 3),
      45,
      v.charCodeAt(m),
      v.charCodeAt(m + 1),
      45,
      v.charCodeAt(d),
      v.charCodeAt(d + 1),
    );
  };
}

/** A date mask as a matcher: the date YYYY-MM-DD it reads, or null. */
function dateMatcher(mask: string): (v: string) => string | null {
  const fixed = fixedDateMatcher(mask);
  if (fixed !== null) return fixed;
  const order: Array<'Y' | 'M' | 'D'> = [];
  let pattern = '^';
  let rest = mask;
  while (rest.length > 0) {
    const token = /^(YYYY|MM|DD|M|D)/.exec(rest)?.[1];
    if (token !== undefined) {
      order.push(token[0] as 'Y' | 'M' | 'D');
      pattern += token === 'YYYY' ? '(\\d{4})' : token.length === 2 ? '(\\d{2})' : '(\\d{1,2})';
      rest = rest.slice(token.length);
    } else {
      pattern += escapeRegex(rest[0] ?? '');
      rest = rest.slice(1);
    }
  }
  const re = new RegExp(`${pattern}$`);
  return (v) => {
    const m = re.exec(v);
    if (m === null) return null;
    const parts: Record<string, string> = {};
    order.forEach((k, i) => (parts[k] = m[i + 1] ?? ''));
    const iso = `${parts.Y ?? ''}-${(parts.M ?? '').padStart(2, '0')}-${(parts.D ?? '').padStart(2, '0')}`;
    return isValidIsoDate(iso) ? iso : null;
  };
}

/**
 * Whether no text can fit two of the masks: each is of fixed-width tokens and every two differ in
 * length or have a separator at a place where the other has another separator or a digit. Then
 * the first mask that reads a value is the only one (the others need not be tried for ambiguity).
 */
export function exclusiveMasks(masks: readonly string[]): boolean {
  const fixed = /^(YYYY|MM|DD|[^YMD])+$/;
  if (!masks.every((m) => fixed.test(m))) return false;
  const separators = (m: string): Map<number, string> => {
    const at = new Map<number, string>();
    for (let i = 0; i < m.length; i++) if (!'YMD'.includes(m[i] as string)) at.set(i, m[i] as string);
    return at;
  };
  for (let a = 0; a < masks.length; a++)
    for (let b = a + 1; b < masks.length; b++) {
      const [x, y] = [masks[a] as string, masks[b] as string];
      if (x.length !== y.length) continue;
      const sx = separators(x);
      const sy = separators(y);
      const differ = [...sx].some(([i, c]) => sy.get(i) !== c) || [...sy].some(([i, c]) => sx.get(i) !== c);
      if (!differ) return false;
    }
  return true;
}

function dateConverter(masks: string[], where: string): Convert {
  const matchers = masks.map(dateMatcher);
  const list = masks.join(', ');
  if (exclusiveMasks(masks)) {
    // at most one mask reads any text: the first that does is the date
    return (v) => {
      for (let i = 0; i < matchers.length; i++) {
        const d = (matchers[i] as (v: string) => string | null)(v);
        if (d !== null) return d;
      }
      return { error: `order_date: ${quoteValue(v)} matches none of ${list} (${where})` };
    };
  }
  return (v) => {
    let found: string | null = null;
    let foundMask = '';
    for (let i = 0; i < matchers.length; i++) {
      const d = (matchers[i] as (v: string) => string | null)(v);
      if (d === null) continue;
      if (found === null) {
        found = d;
        foundMask = masks[i] ?? '';
      } else if (d !== found) {
        return { error: `order_date: ${quoteValue(v)} is ambiguous: ${foundMask} reads ${found}, ${masks[i] ?? ''} reads ${d} (${where})` };
      }
    }
    return found ?? { error: `order_date: ${quoteValue(v)} matches none of ${list} (${where})` };
  };
}

/**
 * An amount as written with the profile's decimal and group separators, in canonical form (no
 * group separators, no leading zeros, no trailing zeros of the fraction, "." for the point), or
 * null when it is not one: digits, optionally grouped by threes (`1.234.567`: the first group of
 * one to three digits, the others of three), then optionally the decimal separator and digits.
 * One pass over the text instead of a regular expression and replaceAll (measured the largest
 * part of the mapping); test/unit/profile.test.ts compares it with the regular expression.
 */
export function canonicalAmount(s: string, decimal: string, group: string | undefined): string | null {
  const decimalCode = decimal.charCodeAt(0);
  const groupCode = group === undefined ? -1 : group.charCodeAt(0);
  const n = s.length;
  let i = 0;
  // the integer part: digits, or digits grouped by threes
  let digits = 0; // digits since the last group separator (or the start)
  let groups = 0;
  let leadingZeros = 0;
  let significant = false;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      digits++;
      if (!significant) {
        if (c === 48) leadingZeros++;
        else significant = true;
      }
    } else if (c === groupCode) {
      // a group separator follows one to three digits at first, exactly three after that
      if (digits === 0 || (groups === 0 ? digits > 3 : digits !== 3)) return null;
      groups++;
      digits = 0;
    } else break;
  }
  if (digits === 0 || (groups > 0 && digits !== 3)) return null;
  const integerEnd = i;
  let fractionEnd = n;
  if (i < n) {
    if (s.charCodeAt(i) !== decimalCode || i + 1 === n) return null;
    for (let j = i + 1; j < n; j++) {
      const c = s.charCodeAt(j);
      if (c < 48 || c > 57) return null;
    }
    // trailing zeros of the fraction dropped
    while (fractionEnd > i + 1 && s.charCodeAt(fractionEnd - 1) === 48) fractionEnd--;
  }
  const hasFraction = fractionEnd > integerEnd + 1;
  // leading zeros dropped, one digit kept ("0", "0.5")
  let integerStart = leadingZeros;
  if (!significant) integerStart = leadingZeros - 1;
  if (groups > 0) {
    // the zeros counted may stand before a group separator: count them again without separators
    let integer = '';
    let from = 0;
    for (let k = 0; k < integerEnd; k++) {
      if (s.charCodeAt(k) === groupCode) {
        integer += s.slice(from, k);
        from = k + 1;
      }
    }
    integer += s.slice(from, integerEnd);
    let zeros = 0;
    while (zeros < integer.length - 1 && integer.charCodeAt(zeros) === 48) zeros++;
    if (zeros > 0) integer = integer.slice(zeros);
    return hasFraction ? integer + '.' + s.slice(integerEnd + 1, fractionEnd) : integer;
  }
  if (!hasFraction) return integerStart === 0 && integerEnd === n ? s : s.slice(integerStart, integerEnd);
  // already canonical as written (a "." point, nothing to drop): the text itself, no copy
  if (decimalCode === 46 && integerStart === 0 && fractionEnd === n) return s;
  return s.slice(integerStart, integerEnd) + '.' + s.slice(integerEnd + 1, fractionEnd);
}

function amountConverter(spec: ColumnSpec, where: string): Convert {
  const decimal = spec.decimal ?? '.';
  const group = spec.group;
  const negatives = spec.negative ?? ['-'];
  const form = `decimal ${JSON.stringify(decimal)}${group === undefined ? '' : `, group ${JSON.stringify(group)}`}`;
  // the usual sign alone ("-"): the text needs no search for the others
  const minusOnly = negatives.length === 1 && negatives[0] === '-';
  return (v) => {
    let s = v;
    let negative = false;
    const first = v.charCodeAt(0);
    // a text that starts with a digit has no sign: with "-" alone, no search for one
    const signless = minusOnly && first >= 48 && first <= 57;
    if (!signless)
      for (const n of negatives) {
        if (n === '()') {
          if (s.length > 2 && s.startsWith('(') && s.endsWith(')')) {
            s = s.slice(1, -1).trim();
            negative = true;
            break;
          }
        } else if (s.startsWith(n)) {
          s = s.slice(n.length).trim();
          negative = true;
          break;
        }
      }
    if (!negative && s.charCodeAt(0) === 43) s = s.slice(1); // "+"
    const amount = canonicalAmount(s, decimal, group);
    if (amount === null) return { error: `amount: ${quoteValue(v)} is not a number with ${form} (${where})` };
    return negative && amount !== '0' ? '-' + amount : amount;
  };
}

/** How a column reference is named in messages. */
export function describeSource(
  spec: { column?: string | number | string[] | undefined; at?: [number, number] | undefined },
  found?: string,
): string {
  if (spec.at !== undefined) return `at ${spec.at[0]}–${spec.at[0] + spec.at[1] - 1}`;
  if (typeof spec.column === 'number') return `column ${spec.column}`;
  if (found !== undefined) return `column ${JSON.stringify(found)}`;
  const names = typeof spec.column === 'string' ? [spec.column] : (spec.column ?? []);
  return `column ${names.map((n) => JSON.stringify(n)).join(' or ')}`;
}

/** A header name as matched: case, surrounding blanks and full-width/half-width differences ignored. */
export function headerKey(name: string): string {
  return name.normalize('NFKC').trim().toLowerCase();
}

/** Lines after which a mask that matched none of them is said (then every line is still rejected on its own). */
export const MASK_CHECK_LINES = 1000;

export interface Mapping {
  profile: LoadProfile;
  /** The end of the file (or of its first MASK_CHECK_LINES lines): a form that read none of its values is said once. */
  finish(): void;
  /** The five fields (and the line's problem) from the text found for each column ('' for a const column). */
  map(raw: (column: OrderColumn) => string): MappedRecord;
  /**
   * map() of a record's fields: `indexes[i]` is the index in `record` of ORDER_COLUMNS[i] (-1: a
   * const column). The CSV reader's path: no function called per record to find a field.
   */
  mapRecord(record: readonly string[], indexes: readonly number[]): MappedRecord;
  /** Whether a line is kept by `when` (its tested value as read); always true without `when`. */
  keep(value: string): boolean;
  /**
   * Each field's text as `map` reads it before its date or number form and prefix: trimmed (unless
   * `trim: false`), `null_if` and `normalize` applied; null when missing (its `default` applies)
   * or not in the file (`const`, or `raw` gives null). For `preview`; `map` does the same.
   */
  normalize(raw: (column: OrderColumn) => string | null): Record<OrderColumn, string | null>;
}

/** Compile a profile's columns. `found` gives the header name each column was found under (CSV with a header). */
export function compileMapping(
  profile: LoadProfile,
  found: Partial<Record<OrderColumn, string>> = {},
  warn?: (message: string) => void,
): Mapping {
  const spec: LoadProfileSpec = profile.spec;
  const nfkc = spec.normalize === 'nfkc';
  const isNull = memberTest(spec.null_if);
  const columns: CompiledColumn[] = ORDER_COLUMNS.map((name) => {
    const c = spec.columns[name];
    const where = describeSource(c, found[name]);
    let convert: Convert | null = null;
    if (name === 'order_date' && c.date !== undefined) convert = dateConverter(typeof c.date === 'string' ? [c.date] : c.date, where);
    if (name === 'amount' && (c.decimal !== undefined || c.group !== undefined || c.negative !== undefined))
      convert = amountConverter(c, where);
    return {
      name,
      spec: c,
      where,
      convert,
      constant: c.const,
      trim: c.trim !== false,
      normalize: nfkc && name !== 'source_key',
      fallback: c.default ?? '',
      prefix: c.prefix,
    };
  });
  const when: WhenSpec | undefined = spec.when;
  const inWhen = memberTest(when?.in ?? when?.not_in ?? []);
  const prepare = (value: string, trim: boolean, normalize: boolean): string => {
    let v = trim ? trimText(value) : value;
    if (isNull(v)) return '';
    if (normalize && !isAsciiText(v)) {
      v = v.normalize('NFKC');
      if (trim) v = trimText(v);
      if (isNull(v)) return '';
    }
    return v;
  };
  /** A column's text as read, prepared as its spec says (map and normalize). */
  const prepareColumn = (c: CompiledColumn, value: string): string =>
    prepare(value, c.spec.trim !== false, nfkc && c.name !== 'source_key');
  // how many values each form (date masks, number form) read and failed to read in the first lines
  const checked = new Map<OrderColumn, { read: number; failed: number; example: string }>();
  let seen = 0;
  let said = false;
  const finish = (): void => {
    if (said || warn === undefined) return;
    said = true;
    for (const [name, c] of checked) {
      if (c.read > 0 || c.failed === 0) continue;
      const column = columns.find((x) => x.name === name);
      const form = name === 'order_date' ? `date: ${String(column?.spec.date)}` : `decimal ${JSON.stringify(column?.spec.decimal ?? '.')}`;
      warn(
        `profile ${profile.name}: columns.${name}: no value of the first ${seen} line(s) fits ${form} (${column?.where ?? ''}; such as ${quoteValue(c.example)}): each line is rejected`,
      );
    }
  };
  // Each column one function of its text, with its options read once, and the five fields built
  // as one object literal, whose values are evaluated in source order: the first problem kept is
  // the first in column order. A loop storing `fields[c.name]` under five names at one site is a
  // keyed store V8 cannot specialise (bench/RESULTS.md, "Load profiles, third pass").
  let problem: MappingProblem | null = null; // of the record being mapped
  let counting = false; // within the first MASK_CHECK_LINES records: each form counts what it read
  const reader = (c: CompiledColumn): ((text: string | undefined) => string) => {
    const constant = c.constant;
    if (constant !== undefined) return () => constant;
    const { name, trim, normalize, fallback, prefix, convert } = c;
    const code = `PARSE_${name.toUpperCase()}`;
    return (text) => {
      let v = prepare(text ?? '', trim, normalize);
      if (v === '') return fallback;
      if (convert !== null) {
        const out = convert(v);
        if (counting) {
          const counts = checked.get(name) ?? { read: 0, failed: 0, example: v };
          if (typeof out === 'string') counts.read++;
          else counts.failed++;
          checked.set(name, counts);
        }
        if (typeof out !== 'string') {
          problem ??= { column: name, code, message: out.error };
          return v;
        }
        v = out;
      }
      return prefix === undefined ? v : prefix + v;
    };
  };
  const [readKey, readCustomer, readDate, readAmount, readCurrency] = columns.map(reader) as [
    (text: string | undefined) => string,
    (text: string | undefined) => string,
    (text: string | undefined) => string,
    (text: string | undefined) => string,
    (text: string | undefined) => string,
  ];
  /** The five fields from each column's text as read (undefined for a const column). */
  const mapFields = (
    key: string | undefined,
    customer: string | undefined,
    date: string | undefined,
    amount: string | undefined,
    currency: string | undefined,
  ): MappedRecord => {
    counting = warn !== undefined && seen < MASK_CHECK_LINES;
    if (counting) seen++;
    problem = null;
    const fields: Record<OrderColumn, string> = {
      source_key: readKey(key),
      customer_id: readCustomer(customer),
      order_date: readDate(date),
      amount: readAmount(amount),
      currency: readCurrency(currency),
    };
    if (counting && seen === MASK_CHECK_LINES) finish();
    return { fields, problem };
  };
  /** A column's text through `raw`, which is not asked for a const column. */
  const textOf = (raw: (column: OrderColumn) => string, i: number): string | undefined => {
    const c = columns[i] as CompiledColumn;
    return c.constant === undefined ? raw(c.name) : undefined;
  };
  return {
    profile,
    finish,
    map: (raw) => mapFields(textOf(raw, 0), textOf(raw, 1), textOf(raw, 2), textOf(raw, 3), textOf(raw, 4)),
    mapRecord: (record, indexes) =>
      mapFields(
        record[indexes[0] as number],
        record[indexes[1] as number],
        record[indexes[2] as number],
        record[indexes[3] as number],
        record[indexes[4] as number],
      ),
    normalize(raw) {
      const out = {} as Record<OrderColumn, string | null>;
      for (const c of columns) {
        const value = c.spec.const === undefined ? raw(c.name) : null;
        const v = value === null ? '' : prepareColumn(c, value);
        out[c.name] = v === '' ? null : v;
      }
      return out;
    },
    keep(value) {
      if (when === undefined) return true;
      const v = prepare(value, true, nfkc);
      if (when.equals !== undefined) return v === when.equals;
      if (when.in !== undefined) return inWhen(v);
      return !inWhen(v);
    },
  };
}

/**
 * parseOrderRecord of a line whose field `problem.column` the profile could not map: the line is
 * that PARSE_* error (staged as ERROR when its source_key is usable, as a line of the built-in
 * format with an unreadable field is), with every other problem of its fields said too.
 */
export function parseMappedRecord(fields: Record<OrderColumn, string>, problem: MappingProblem): ParseOutcome {
  const rest = parseOrderRecord({ ...fields, [problem.column]: '' });
  const issue = { column: problem.column, message: problem.message };
  if (rest.ok) {
    const others = orderProblems(rest.order)
      .filter((p) => p.column !== problem.column)
      .map(({ code, message }) => ({ code, message }));
    return { ok: false, sourceKey: rest.order.sourceKey, issues: [issue], error: describeProblems([problem, ...others]) ?? problem };
  }
  // Another field fails the schema too. rest.error cannot be quoted as one problem: with several
  // it is already "CODE: message; …" (the code was said twice), and it calls the field the mapping
  // could not read, left empty here, "missing". The problems one by one instead: the schema's, then
  // the rules of the fields it read (parseOrderRecordWithSchema's order), found with values that
  // break no rule in place of the fields that failed.
  const failed = new Set<OrderColumn | null>([problem.column, ...rest.issues.map((i) => i.column)]);
  const sound = { ...fields };
  const soundValues: Record<OrderColumn, string> = {
    source_key: 'K',
    customer_id: '1',
    order_date: '2000-01-01',
    amount: '0',
    currency: 'EUR',
  };
  for (const c of failed) if (c !== null) sound[c] = soundValues[c];
  const soundRecord = parseOrderRecord(sound);
  const rules = soundRecord.ok ? orderProblems(soundRecord.order).filter((p) => !failed.has(p.column)) : [];
  const others = [
    ...rest.issues.map((i) => ({ code: i.column === null ? 'PARSE' : `PARSE_${i.column.toUpperCase()}`, message: i.message })),
    ...rules.map(({ code, message }) => ({ code, message })),
  ];
  return {
    ok: false,
    sourceKey: rest.sourceKey,
    issues: [issue, ...rest.issues],
    error: describeProblems([problem, ...others]) ?? problem,
  };
}
