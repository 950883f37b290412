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
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/**
 * A mask of fixed-width tokens only (YYYY, MM, DD and separators: DD.MM.YYYY, YYYYMMDD) read by
 * position, without a regular expression (the common case; measured a third of the mapping).
 */
function fixedDateMatcher(mask: string): ((v: string) => string | null) | null {
  if (/(^|[^M])M([^M]|$)|(^|[^D])D([^D]|$)/.test(mask)) return null;
  const y = mask.indexOf('YYYY');
  const m = mask.indexOf('MM');
  const d = mask.indexOf('DD');
  if (y < 0 || m < 0 || d < 0) return null;
  const separators: Array<[number, number]> = [];
  for (let i = 0; i < mask.length; i++) {
    const inToken = (i >= y && i < y + 4) || (i >= m && i < m + 2) || (i >= d && i < d + 2);
    if (!inToken) separators.push([i, mask.charCodeAt(i)]);
  }
  const length = mask.length;
  const isDigits = (v: string, at: number, n: number): boolean => {
    for (let i = at; i < at + n; i++) {
      const c = v.charCodeAt(i);
      if (c < 48 || c > 57) return false;
    }
    return true;
  };
  return (v) => {
    if (v.length !== length) return null;
    for (const [i, c] of separators) if (v.charCodeAt(i) !== c) return null;
    if (!isDigits(v, y, 4) || !isDigits(v, m, 2) || !isDigits(v, d, 2)) return null;
    const iso = `${v.slice(y, y + 4)}-${v.slice(m, m + 2)}-${v.slice(d, d + 2)}`;
    return isValidIsoDate(iso) ? iso : null;
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

function dateConverter(masks: string[], where: string): Convert {
  const matchers = masks.map(dateMatcher);
  const list = masks.join(', ');
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

function amountConverter(spec: ColumnSpec, where: string): Convert {
  const decimal = spec.decimal ?? '.';
  const group = spec.group;
  const negatives = spec.negative ?? ['-'];
  const d = escapeRegex(decimal);
  const body =
    group === undefined
      ? new RegExp(`^(\\d+)(?:${d}(\\d+))?$`)
      : new RegExp(`^(\\d{1,3}(?:${escapeRegex(group)}\\d{3})+|\\d+)(?:${d}(\\d+))?$`);
  const form = `decimal ${JSON.stringify(decimal)}${group === undefined ? '' : `, group ${JSON.stringify(group)}`}`;
  return (v) => {
    let s = v;
    let negative = false;
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
    if (!negative && s.startsWith('+')) s = s.slice(1);
    const m = body.exec(s);
    if (m === null) return { error: `amount: ${quoteValue(v)} is not a number with ${form} (${where})` };
    // canonical, as parseOrderRecord's fast path reads it: no leading zeros, no trailing zeros
    let integer = m[1] ?? '';
    if (group !== undefined && integer.includes(group)) integer = integer.replaceAll(group, '');
    if (integer.length > 1 && integer.charCodeAt(0) === 48) integer = integer.replace(/^0+(?=\d)/, '');
    let fraction = m[2] ?? '';
    if (fraction.charCodeAt(fraction.length - 1) === 48) fraction = fraction.replace(/0+$/, '');
    const zero = integer === '0' && fraction === '';
    return `${negative && !zero ? '-' : ''}${integer}${fraction === '' ? '' : `.${fraction}`}`;
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
  const nulls = new Set(spec.null_if);
  const columns: CompiledColumn[] = ORDER_COLUMNS.map((name) => {
    const c = spec.columns[name];
    const where = describeSource(c, found[name]);
    let convert: Convert | null = null;
    if (name === 'order_date' && c.date !== undefined) convert = dateConverter(typeof c.date === 'string' ? [c.date] : c.date, where);
    if (name === 'amount' && (c.decimal !== undefined || c.group !== undefined || c.negative !== undefined))
      convert = amountConverter(c, where);
    return { name, spec: c, where, convert };
  });
  const when: WhenSpec | undefined = spec.when;
  const whenSet = when?.in !== undefined ? new Set(when.in) : when?.not_in !== undefined ? new Set(when.not_in) : null;
  const prepare = (value: string, trim: boolean, normalize: boolean): string => {
    let v = trim ? value.trim() : value;
    if (nulls.has(v)) return '';
    if (normalize) {
      v = v.normalize('NFKC');
      if (trim) v = v.trim();
      if (nulls.has(v)) return '';
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
  return {
    profile,
    finish,
    map(raw) {
      const out: Record<OrderColumn, string> = { source_key: '', customer_id: '', order_date: '', amount: '', currency: '' };
      const counting = warn !== undefined && seen < MASK_CHECK_LINES;
      if (counting) seen++;
      const fields = out;
      let problem: MappingProblem | null = null;
      for (const c of columns) {
        const s = c.spec;
        if (s.const !== undefined) {
          fields[c.name] = s.const;
          continue;
        }
        let v = prepareColumn(c, raw(c.name));
        if (v === '') {
          fields[c.name] = s.default ?? '';
          continue;
        }
        if (c.convert !== null) {
          const out = c.convert(v);
          if (counting) {
            const counts = checked.get(c.name) ?? { read: 0, failed: 0, example: v };
            if (typeof out === 'string') counts.read++;
            else counts.failed++;
            checked.set(c.name, counts);
          }
          if (typeof out !== 'string') {
            fields[c.name] = v;
            problem ??= { column: c.name, code: `PARSE_${c.name.toUpperCase()}`, message: out.error };
            continue;
          }
          v = out;
        }
        fields[c.name] = s.prefix === undefined ? v : `${s.prefix}${v}`;
      }
      if (counting && seen === MASK_CHECK_LINES) finish();
      return { fields, problem };
    },
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
      if (when.in !== undefined) return whenSet?.has(v) === true;
      return whenSet?.has(v) !== true;
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
  return {
    ok: false,
    sourceKey: rest.sourceKey,
    issues: [issue, ...rest.issues],
    error: describeProblems([problem, rest.error]) ?? problem,
  };
}
