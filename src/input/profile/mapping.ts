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
  plainAmount,
  plainValidOrder,
  quoteValue,
  trimText,
  type CheckedForms,
  type OrderColumn,
  type ParsedOrder,
  type ParseOutcome,
} from '../order-record.js';
import { unwrapExcelGuard } from '../excel-guard.js';
import { amountConverter, type SignCurrency } from './amount-form.js';
import { dateConverter } from './date-mask.js';
import { fileNameValues } from './file-name.js';
import type { LoadProfile } from './load-profile.js';
import type { ColumnSpec, LoadProfileSpec, WhenSpec } from './schema.js';

export { canonicalAmount } from './amount-form.js';
export { exclusiveMasks } from './date-mask.js';

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

/**
 * A header name as matched: case, full-width/half-width differences and blanks around ignored,
 * every run of blanks inside read as one space (`Order Ref`, `order  ref` and `ＯＲＤＥＲ ＲＥＦ` with an ideographic space
 * are one name). Blanks are folded, not removed: `OrderRef` is another name (list both).
 */
export function headerKey(name: string): string {
  return name.normalize('NFKC').trim().toLowerCase().replace(/\s+/g, ' ');
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
  /** mapRecord's fields alone, its problem then read by lastProblem(): no object per record around the two. */
  recordFields(record: readonly string[], indexes: readonly number[]): Record<OrderColumn, string>;
  /** The problem of the record recordFields mapped last, or null. */
  lastProblem(): MappingProblem | null;
  /**
   * The order of the record mapped last (by any of map, mapRecord, recordFields) when its fields
   * are plainly a valid one (what parseOrderRecord returns for them and validateOrder accepts),
   * read once here; null: its fields are to be parsed and judged.
   */
  lastOrder(): ParsedOrder | null;
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
  /** The file read: `file_pattern`'s groups are taken from its name (a name it does not match is refused here). */
  path?: string,
): Mapping {
  const spec: LoadProfileSpec = profile.spec;
  const nfkc = spec.normalize === 'nfkc';
  const isNull = memberTest(spec.null_if);
  const fromName = fileNameValues(profile, path);
  // the currency sign of the amount being read (amountConverter sets it)
  const carried: SignCurrency = { code: undefined, sign: '' };
  const columns: CompiledColumn[] = ORDER_COLUMNS.map((name) => {
    const c = spec.columns[name];
    const where =
      c.file_group !== undefined
        ? `file name group ${c.file_group}`
        : c.amount_sign === true
          ? "the amount's sign"
          : describeSource(c, found[name]);
    let convert: Convert | null = null;
    if (name === 'order_date' && c.date !== undefined)
      convert = dateConverter(typeof c.date === 'string' ? [c.date] : c.date, where, spec.timezone);
    if (
      name === 'amount' &&
      (c.decimal !== undefined || c.group !== undefined || c.negative !== undefined || c.currency_signs !== undefined)
    )
      convert = amountConverter(c, where, carried);
    return {
      name,
      spec: c,
      where,
      convert,
      constant: c.file_group !== undefined ? (fromName[c.file_group] ?? '') : c.const,
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
    if (v.charCodeAt(0) === 61) v = unwrapExcelGuard(v); // ="000123"
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
  let order: ParsedOrder | null = null; // of the record mapped last
  const formed = checkedForms(columns);
  let counting = false; // within the first MASK_CHECK_LINES records: each form counts what it read
  const reader = (c: CompiledColumn): ((text: string | undefined) => string) => {
    const { name, trim, normalize, fallback, prefix } = c;
    let constant = c.constant;
    if (c.spec.file_group !== undefined) {
      // the file name's text, read as a column's would be
      const v = prepare(constant ?? '', trim, normalize);
      constant = v === '' ? fallback : prefix === undefined ? v : prefix + v;
    }
    if (constant !== undefined) {
      const value = constant;
      return name === 'currency' ? () => signAgrees(value) : () => value;
    }
    if (c.spec.amount_sign === true) return () => (typeof carried.code === 'string' ? carried.code : fallback);
    const code = `PARSE_${name.toUpperCase()}`;
    if (name === 'currency') {
      const read = readerOf(c, code);
      return (text) => signAgrees(read(text));
    }
    return readerOf(c, code);
  };
  /** The currency of a line: an amount whose sign stands for another one is refused (PARSE_AMOUNT). */
  const signAgrees = (currency: string): string => {
    const code = carried.code;
    if (typeof code === 'string' && currency !== '' && currency !== code)
      problem ??= {
        column: 'amount',
        code: 'PARSE_AMOUNT',
        message: `amount: its sign ${JSON.stringify(carried.sign)} stands for ${code}, but the line's currency is ${quoteValue(currency)} (${columns[4]?.where ?? ''})`,
      };
    return currency;
  };
  const readerOf = (c: CompiledColumn, code: string): ((text: string | undefined) => string) => {
    const { name, trim, normalize, fallback, prefix, convert } = c;
    // A field without a date or number form has readers of its own: one function for every
    // column made V8 compile a single body, which tested for a converter on every field of every line
    if (convert === null) {
      if (prefix === undefined)
        return (text) => {
          const v = prepare(text ?? '', trim, normalize);
          return v === '' ? fallback : v;
        };
      const before: string = prefix;
      return (text) => {
        const v = prepare(text ?? '', trim, normalize);
        return v === '' ? fallback : before + v;
      };
    }
    return (text) => {
      const v = prepare(text ?? '', trim, normalize);
      if (v === '') return fallback;
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
      return prefix === undefined ? out : prefix + out;
    };
  };
  const [readKey, readCustomer, readDate, readAmount, readCurrency] = columns.map(reader) as [
    (text: string | undefined) => string,
    (text: string | undefined) => string,
    (text: string | undefined) => string,
    (text: string | undefined) => string,
    (text: string | undefined) => string,
  ];
  /** The five fields from each column's text as read (undefined for a const column); the line's problem left in `problem`. */
  const fieldsOf = (
    key: string | undefined,
    customer: string | undefined,
    date: string | undefined,
    amount: string | undefined,
    currency: string | undefined,
  ): Record<OrderColumn, string> => {
    counting = warn !== undefined && seen < MASK_CHECK_LINES;
    if (counting) seen++;
    problem = null;
    carried.code = undefined;
    const k = readKey(key);
    const c = readCustomer(customer);
    const d = readDate(date);
    const a = readAmount(amount);
    const x = readCurrency(currency);
    const fields: Record<OrderColumn, string> = { source_key: k, customer_id: c, order_date: d, amount: a, currency: x };
    // the readers above set `problem` (in closures: TypeScript's narrowing still sees the null set before them)
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
    order = problem === null ? plainValidOrder(k, c, d, a, x, formed) : null;
    if (counting && seen === MASK_CHECK_LINES) finish();
    return fields;
  };
  const mapFields = (...texts: Parameters<typeof fieldsOf>): MappedRecord => {
    const fields = fieldsOf(...texts);
    return { fields, problem };
  };
  const recordFields = (record: readonly string[], indexes: readonly number[]): Record<OrderColumn, string> =>
    fieldsOf(
      record[indexes[0] as number],
      record[indexes[1] as number],
      record[indexes[2] as number],
      record[indexes[3] as number],
      record[indexes[4] as number],
    );
  /** A column's text through `raw`, which is not asked for a const column. */
  const textOf = (raw: (column: OrderColumn) => string, i: number): string | undefined => {
    const c = columns[i] as CompiledColumn;
    return c.constant === undefined && c.spec.amount_sign === undefined ? raw(c.name) : undefined;
  };
  return {
    profile,
    finish,
    map: (raw) => mapFields(textOf(raw, 0), textOf(raw, 1), textOf(raw, 2), textOf(raw, 3), textOf(raw, 4)),
    mapRecord: (record, indexes) => {
      const fields = recordFields(record, indexes);
      return { fields, problem };
    },
    recordFields,
    lastProblem: () => problem,
    lastOrder: () => order,
    normalize(raw) {
      const out = {} as Record<OrderColumn, string | null>;
      for (const c of columns) {
        const value = c.constant === undefined && c.spec.amount_sign === undefined ? raw(c.name) : null;
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
 * Which of the mapped date and amount are made by the profile's mask or form alone, and so are
 * valid in canonical form whenever the line has no problem: not when a prefix, a `const` or a
 * `default` that is not in that form can stand in their place.
 */
function checkedForms(columns: readonly CompiledColumn[]): CheckedForms {
  const formed = (name: OrderColumn, fits: (v: string) => boolean): boolean => {
    const c = columns.find((x) => x.name === name);
    return (
      c !== undefined &&
      c.convert !== null &&
      c.constant === undefined && // a `const` or the file name's group (file_group)
      c.prefix === undefined &&
      (c.fallback === '' || fits(c.fallback))
    );
  };
  return {
    date: formed('order_date', isValidIsoDate),
    amount: formed('amount', (v) => plainAmount(v) === v),
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
  // parse problems first, in column order (the built-in format's order: its first is the line's code), then the rules
  const parse = [
    { column: problem.column, code: problem.code, message: problem.message },
    ...rest.issues.map((i) => ({
      column: i.column,
      code: i.column === null ? 'PARSE' : `PARSE_${i.column.toUpperCase()}`,
      message: i.message,
    })),
  ].sort((a, b) => columnRank(a.column) - columnRank(b.column));
  const problems = [...parse, ...rules].map(({ code, message }) => ({ code, message }));
  return {
    ok: false,
    sourceKey: rest.sourceKey,
    issues: [issue, ...rest.issues],
    error: describeProblems(problems) ?? problem,
  };
}

/** A column's place in ORDER_COLUMNS (a problem of no column, first). */
function columnRank(column: OrderColumn | null): number {
  return column === null ? -1 : ORDER_COLUMNS.indexOf(column);
}
