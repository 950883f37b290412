/**
 * The per-column half of a profile's mapping (mapping.ts): each of the five order fields compiled
 * once from its column's spec, then read on every line by a function of its own (its options read
 * once, no lookup of the profile per field), and which of the date and amount the order handed
 * over may trust as the mask or form made them (trustedForms).
 */
import { isValidIsoDate, ORDER_COLUMNS, plainAmount, quoteValue, trimText, type CheckedForms, type OrderColumn } from '../order-record.js';
import { unwrapExcelGuard } from '../excel-guard.js';
import { amountConverter, type SignCurrency } from './amount-form.js';
import { dateConverter } from './date-mask.js';
import type { ColumnSpec, LoadProfileSpec } from './schema.js';

export interface MappingProblem {
  column: OrderColumn;
  code: string;
  message: string;
}

type Convert = (value: string) => string | { error: string };

export interface CompiledColumn {
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

/** A field's reader: its text as read (undefined for a column not in the file) to its canonical text. */
export type FieldReader = (text: string | undefined) => string;

/** A field's text trimmed (or not), Excel's guard unwrapped, `null_if` and NFKC applied; '' for a null. */
export type Prepare = (value: string, trim: boolean, normalize: boolean) => string;

/** How many values a form (date mask, number form) read and failed to read in the first lines. */
export interface FormCount {
  read: number;
  failed: number;
  example: string;
}

/** What the readers of one mapping share with it while a line is mapped. */
export interface LineState {
  /** The first problem of the line being mapped (in column order), or null. */
  problem: MappingProblem | null;
  /** Within the first MASK_CHECK_LINES lines: each form counts what it read in `counts`. */
  counting: boolean;
  counts: Map<OrderColumn, FormCount>;
  /** The currency sign of the amount being read (amountConverter sets it). */
  carried: SignCurrency;
}

/**
 * A test of membership in a few strings (null_if, when's list) that hashes nothing: a field is
 * compared only with the members of its length (a Set hashed every field of every line: the
 * largest part of the mapping after the amounts). A Set past 8 members.
 */
export function memberTest(values: readonly string[]): (v: string) => boolean {
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

/** The preparation of every field of a profile whose `null_if` is `isNull`. */
export function preparer(isNull: (v: string) => boolean): Prepare {
  return (value, trim, normalize) => {
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
 * The five columns of a profile in ORDER_COLUMNS' order, their options read once. `found`: the
 * header name each was found under; `fromName`: the file name's groups (file_group); `carried`:
 * where the amount's converter leaves the currency of its sign.
 */
export function compileColumns(
  spec: LoadProfileSpec,
  found: Partial<Record<OrderColumn, string>>,
  fromName: Record<string, string | undefined>,
  carried: SignCurrency,
): CompiledColumn[] {
  const nfkc = spec.normalize === 'nfkc';
  return ORDER_COLUMNS.map((name) => {
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
}

/**
 * The readers of the five columns (in their order). Each sets `state.problem` (the first one of
 * the line only) when its form cannot read its text, and counts what its form read while
 * `state.counting`.
 */
export function columnReaders(columns: readonly CompiledColumn[], prepare: Prepare, state: LineState): FieldReader[] {
  const { carried } = state;
  /** The currency of a line: an amount whose sign stands for another one is refused (PARSE_AMOUNT). */
  const signAgrees = (currency: string): string => {
    const code = carried.code;
    if (typeof code === 'string' && currency !== '' && currency !== code)
      state.problem ??= {
        column: 'amount',
        code: 'PARSE_AMOUNT',
        message: `amount: its sign ${JSON.stringify(carried.sign)} stands for ${code}, but the line's currency is ${quoteValue(currency)} (${columns[4]?.where ?? ''})`,
      };
    return currency;
  };
  return columns.map((c): FieldReader => {
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
    if (name === 'currency') {
      const read = fieldReader(c, prepare, state);
      return (text) => signAgrees(read(text));
    }
    return fieldReader(c, prepare, state);
  });
}

/** The reader of a column read from the file. */
function fieldReader(c: CompiledColumn, prepare: Prepare, state: LineState): FieldReader {
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
  const code = `PARSE_${name.toUpperCase()}`;
  return (text) => {
    const v = prepare(text ?? '', trim, normalize);
    if (v === '') return fallback;
    const out = convert(v);
    if (state.counting) {
      const counts = state.counts.get(name) ?? { read: 0, failed: 0, example: v };
      if (typeof out === 'string') counts.read++;
      else counts.failed++;
      state.counts.set(name, counts);
    }
    if (typeof out !== 'string') {
      state.problem ??= { column: name, code, message: out.error };
      return v;
    }
    return prefix === undefined ? out : prefix + out;
  };
}

/**
 * Which of the mapped date and amount the order handed over (plainValidOrder) may take as they
 * are, without reading them again: those made by the profile's mask or form alone, which are
 * valid in canonical form whenever the line has no problem. Not when a prefix, a `const` (or the
 * file name's group) or a `default` that is not in that form can stand in their place, nor
 * without a mask or form. A form not trusted is read again: the same order, more CPU.
 */
export function trustedForms(date: CompiledColumn, amount: CompiledColumn): CheckedForms {
  return { date: madeByForm(date, isValidIsoDate), amount: madeByForm(amount, (v) => plainAmount(v) === v) };
}

function madeByForm(c: CompiledColumn, fits: (v: string) => boolean): boolean {
  return c.convert !== null && c.constant === undefined && c.prefix === undefined && (c.fallback === '' || fits(c.fallback));
}
