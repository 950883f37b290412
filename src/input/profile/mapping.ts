/**
 * The mapping of a profile onto the five order fields: from the text a format reader (CSV or
 * fixed) found for each column to the canonical strings parseOrderRecord reads on its fast path
 * (dates YYYY-MM-DD, amounts plain decimals). Strict: a value that fits no mask or form is a
 * PARSE_* problem of that line naming the profile field and the file's column; nothing is
 * coerced or guessed.
 */
import {
  describeProblems,
  ORDER_COLUMNS,
  orderProblems,
  parseOrderRecord,
  plainValidOrder,
  quoteValue,
  type OrderColumn,
  type ParsedOrder,
  type ParseOutcome,
} from '../order-record.js';
import {
  columnReaders,
  compileColumns,
  memberTest,
  preparer,
  trustedForms,
  type CompiledColumn,
  type FieldReader,
  type FormCount,
  type LineState,
  type MappingProblem,
  type Prepare,
} from './column-reader.js';
import type { SignCurrency } from './amount-form.js';
import { fileNameValues } from './file-name.js';
import type { LoadProfile } from './load-profile.js';
import type { WhenSpec } from './schema.js';

export { canonicalAmount } from './amount-form.js';
export { exclusiveMasks } from './date-mask.js';
export { describeSource, type MappingProblem } from './column-reader.js';

export interface MappedRecord {
  /** The five fields as canonical text ('' when missing); a field with a problem keeps its text as read. */
  fields: Record<OrderColumn, string>;
  /** The first field that could not be read (the line is a PARSE_* error), or null. */
  problem: MappingProblem | null;
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
  const spec = profile.spec;
  const prepare = preparer(memberTest(spec.null_if));
  const carried: SignCurrency = { code: undefined, sign: '' };
  // shared with the column readers: the problem of the record being mapped, the forms' counts
  const state: LineState = { problem: null, counting: false, counts: new Map(), carried };
  const columns = compileColumns(spec, found, fileNameValues(profile, path), carried);
  const [readKey, readCustomer, readDate, readAmount, readCurrency] = columnReaders(columns, prepare, state) as Five<FieldReader>;
  const [, , dateColumn, amountColumn] = columns as Five<CompiledColumn>;
  const trusted = trustedForms(dateColumn, amountColumn);
  let seen = 0; // records mapped while the forms count (up to MASK_CHECK_LINES)
  let said = false;
  const finish = (): void => {
    if (said || warn === undefined) return;
    said = true;
    for (const message of formWarnings(profile.name, columns, state.counts, seen)) warn(message);
  };
  // Each column one function of its text, with its options read once, and the five fields built
  // as one object literal, whose values are evaluated in source order: the first problem kept is
  // the first in column order. A loop storing `fields[c.name]` under five names at one site is a
  // keyed store V8 cannot specialise (bench/RESULTS.md, "Load profiles, third pass").
  let order: ParsedOrder | null = null; // of the record mapped last
  /** The five fields from each column's text as read (undefined for a const column); the line's problem left in `state.problem`. */
  const fieldsOf = (
    key: string | undefined,
    customer: string | undefined,
    date: string | undefined,
    amount: string | undefined,
    currency: string | undefined,
  ): Record<OrderColumn, string> => {
    const counting = warn !== undefined && seen < MASK_CHECK_LINES;
    state.counting = counting;
    if (counting) seen++;
    state.problem = null;
    carried.code = undefined;
    const k = readKey(key);
    const c = readCustomer(customer);
    const d = readDate(date);
    const a = readAmount(amount);
    const x = readCurrency(currency);
    const fields: Record<OrderColumn, string> = { source_key: k, customer_id: c, order_date: d, amount: a, currency: x };
    // the readers above set `state.problem` (TypeScript's narrowing still sees the null set before them)
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
    order = state.problem === null ? plainValidOrder(k, c, d, a, x, trusted) : null;
    if (counting && seen === MASK_CHECK_LINES) finish();
    return fields;
  };
  const recordFields = (record: readonly string[], indexes: readonly number[]): Record<OrderColumn, string> =>
    fieldsOf(
      record[indexes[0] as number],
      record[indexes[1] as number],
      record[indexes[2] as number],
      record[indexes[3] as number],
      record[indexes[4] as number],
    );
  const textOf = (raw: (column: OrderColumn) => string, i: number): string | undefined => columnText(columns[i] as CompiledColumn, raw);
  return {
    profile,
    finish,
    map: (raw) => {
      const fields = fieldsOf(textOf(raw, 0), textOf(raw, 1), textOf(raw, 2), textOf(raw, 3), textOf(raw, 4));
      return { fields, problem: state.problem };
    },
    mapRecord: (record, indexes) => {
      const fields = recordFields(record, indexes);
      return { fields, problem: state.problem };
    },
    recordFields,
    lastProblem: () => state.problem,
    lastOrder: () => order,
    normalize: normalizer(columns, prepare),
    keep: whenTest(spec.when, prepare, spec.normalize === 'nfkc'),
  };
}

type Five<T> = [T, T, T, T, T];

/** A column's text through `raw`, which is not asked for a const column (nor for a currency read from the amount's sign). */
function columnText(c: CompiledColumn, raw: (column: OrderColumn) => string): string | undefined {
  return c.constant === undefined && c.spec.amount_sign === undefined ? raw(c.name) : undefined;
}

/** The warnings at the end of the counted lines: one for each form that read none of the values given to it in the first `seen` lines. */
function formWarnings(
  profileName: string,
  columns: readonly CompiledColumn[],
  counts: ReadonlyMap<OrderColumn, FormCount>,
  seen: number,
): string[] {
  const warnings: string[] = [];
  for (const [name, c] of counts) {
    if (c.read > 0 || c.failed === 0) continue;
    const column = columns.find((x) => x.name === name);
    const form = name === 'order_date' ? `date: ${String(column?.spec.date)}` : `decimal ${JSON.stringify(column?.spec.decimal ?? '.')}`;
    warnings.push(
      `profile ${profileName}: columns.${name}: no value of the first ${seen} line(s) fits ${form} (${column?.where ?? ''}; such as ${quoteValue(c.example)}): each line is rejected`,
    );
  }
  return warnings;
}

/** Mapping.normalize: each column's text prepared as its spec says (const and amount_sign columns are not asked for theirs). */
function normalizer(columns: readonly CompiledColumn[], prepare: Prepare): Mapping['normalize'] {
  return (raw) => {
    const out = {} as Record<OrderColumn, string | null>;
    for (const c of columns) {
      const value = c.constant === undefined && c.spec.amount_sign === undefined ? raw(c.name) : null;
      const v = value === null ? '' : prepare(value, c.trim, c.normalize);
      out[c.name] = v === '' ? null : v;
    }
    return out;
  };
}

/** Mapping.keep: the profile's `when` on a line's tested value (prepared as a field, trimmed). */
function whenTest(when: WhenSpec | undefined, prepare: Prepare, nfkc: boolean): (value: string) => boolean {
  if (when === undefined) return () => true;
  const inWhen = memberTest(when.in ?? when.not_in ?? []);
  return (value) => {
    const v = prepare(value, true, nfkc);
    if (when.equals !== undefined) return v === when.equals;
    if (when.in !== undefined) return inWhen(v);
    return !inWhen(v);
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
  // the rules of the fields it read (parseOrderRecordWithSchema's order), found with the fields
  // that failed left empty: an empty field passes the schema as missing, and the rule that calls
  // it so is a failed column's, filtered out below. Only source_key must be present to parse.
  const failed = new Set<OrderColumn | null>([problem.column, ...rest.issues.map((i) => i.column)]);
  const sound = { ...fields };
  for (const c of failed) if (c !== null) sound[c] = c === 'source_key' ? 'K' : '';
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
