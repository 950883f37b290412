/**
 * A load profile: how another system's file maps onto the five order fields. Written
 * as YAML (or JSON, same schema) by a user; checked here before any file is opened or the
 * database touched (src/input/profile/load-profile.ts). The JSON Schema of this schema is
 * published as schema/profile.schema.json (test/unit/profile-schema.test.ts keeps it equal).
 */
import { z } from 'zod';
import { ORDER_COLUMNS } from '../order-record.js';
import { dateMaskProblem, isTimeZone, maskHasOffset } from './date-mask.js';
import { jsonlSpecProblems } from './jsonl-spec.js';
import { xlsxSpecProblems } from './xlsx-spec.js';

export { dateMaskProblem } from './date-mask.js';

/** Encodings a profile may name, and the aliases each stands for. */
export const PROFILE_ENCODINGS = {
  'utf-8': ['utf-8', 'utf8'],
  shift_jis: ['shift_jis', 'shift-jis', 'sjis', 'cp932', 'windows-31j', 'ms932'],
  'euc-jp': ['euc-jp', 'eucjp'],
  'utf-16': ['utf-16', 'utf16'],
  'windows-1252': ['windows-1252', 'cp1252', 'latin1', 'iso-8859-1'],
} as const;
export type ProfileEncoding = keyof typeof PROFILE_ENCODINGS;

const ENCODING_ALIASES = new Map<string, ProfileEncoding>(
  Object.entries(PROFILE_ENCODINGS).flatMap(([name, aliases]) => aliases.map((a) => [a, name as ProfileEncoding] as const)),
);

const text = z.string();
const nonEmpty = z.string().min(1);
const position = z.number().int().min(1, 'out of range: positions, lengths and column numbers count from 1');

/** The end of a fixed field past which no record reaches (the CSV reader's largest record, in bytes or characters). */
export const FIXED_RECORD_LIMIT = 1_048_576;

/** `at: [start, length]`, 1-based, as SQL*Loader's POSITION. */
const at = z.tuple([position, position]);

/** A header name, a list of aliases (the first found is used), or a 1-based field number. */
const columnRef = z.union([nonEmpty, position, z.array(nonEmpty).min(1)]);

const columnSpec = z.strictObject({
  column: columnRef.optional(),
  at: at.optional(),
  trim: z.boolean().optional(),
  prefix: text.optional(),
  default: text.optional(),
  const: text.optional(),
  date: z.union([nonEmpty, z.array(nonEmpty).min(1)]).optional(),
  decimal: z.enum(['.', ',']).optional(),
  group: z.enum([',', '.', ' ', "'", '\u00a0', '\u202f']).optional(),
  negative: z.array(nonEmpty).min(1).optional(),
  /** Currency signs or words an amount may carry before or after its number, each with the ISO code it stands for (null: none). */
  currency_signs: z
    .record(nonEmpty, z.union([z.string().regex(/^[A-Z]{3}$/, 'a currency code of three capital letters'), z.null()]))
    .optional(),
  /** The value is a named group of `file_pattern` matched on the file's base name. */
  file_group: nonEmpty.optional(),
  /** currency: the code the amount's sign stands for (currency_signs). */
  amount_sign: z.literal(true).optional(),
});
export type ColumnSpec = z.infer<typeof columnSpec>;

const whenSpec = z.strictObject({
  column: columnRef.optional(),
  at: at.optional(),
  equals: text.optional(),
  in: z.array(text).min(1).optional(),
  not_in: z.array(text).min(1).optional(),
});
export type WhenSpec = z.infer<typeof whenSpec>;

/**
 * Where a control value is: a 1-based field of the record (csv, a control file's line), its
 * positions (fixed, a control file's line), a path into the record's object (jsonl) or a
 * column of the row (xlsx: a header name, a letter or a number, as its columns are).
 */
const controlField = z.strictObject({ column: z.union([position, nonEmpty]).optional(), at: at.optional() });
export type ControlField = z.infer<typeof controlField>;

/**
 * Control totals (src/input/control/): the file states its own record count and amount sum, in
 * a trailer or header record or in a control file beside it, and nothing of it is merged unless
 * what was read agrees.
 */
const controlSpec = z.strictObject({
  /** The trailer: the last record that matches this rule (a `when`-style test); it is not a data row. */
  trailer: whenSpec.optional(),
  /** The header record: the first record (before or after the column names, if any) that matches this rule. */
  header: whenSpec.optional(),
  /** A control file beside the data file: a name with {name} (the data file's name) or {stem} (its name without the last extension). */
  file: nonEmpty
    .refine(
      (v) => !v.includes('/') && (v.includes('{name}') || v.includes('{stem}')),
      'a file name with {name} or {stem}, without a folder',
    )
    .optional(),
  /** The field delimiter of a control file's line (default: the profile's delimiter, else ","). */
  delimiter: z.string().length(1).optional(),
  /** The number of data records stated. */
  count: controlField.optional(),
  /** Whether the stated count includes the lines the profile discards (comment, when, skip_lines past the header). */
  count_discarded: z.boolean().default(false),
  /** The sum of the amounts stated, written with the amount column's number rules. */
  sum: controlField.optional(),
  /** The size in bytes of the data file stated. */
  bytes: controlField.optional(),
  /** The SHA-256 of the data file as sent (its bytes on disk, a gzip file compressed), 64 hexadecimal digits. */
  sha256: controlField.optional(),
  /** What a mismatch does: hold (nothing of the file is merged until `accept`) or warn (loaded, said). */
  on_mismatch: z.enum(['hold', 'warn']).default('hold'),
});
export type ControlSpec = z.infer<typeof controlSpec>;

const columnsSpec = z.strictObject({
  source_key: columnSpec,
  customer_id: columnSpec,
  order_date: columnSpec,
  amount: columnSpec,
  currency: columnSpec,
});

export const profileSchema = z
  .strictObject({
    version: z.literal(1),
    /** Shown in reports and metrics; the file name without extension when not given. */
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a name of letters, digits, ".", "_" or "-" (at most 64)')
      .optional(),
    /** Which file names the profile reads when an inbox is routed (`--profiles`, src/input/profile/routing.ts). */
    match: nonEmpty
      .refine((v) => !v.includes('/'), 'a file-name pattern (* and ?) without a folder: it is matched against the name')
      .optional(),
    /** A regular expression with named groups matched against the whole base name of each file: columns take a group by `file_group`. */
    file_pattern: nonEmpty.optional(),
    /** The IANA zone an order date with an offset is taken in (`Asia/Tokyo`). */
    timezone: nonEmpty.optional(),
    format: z.enum(['csv', 'fixed', 'jsonl', 'xlsx']).default('csv'),
    /** format: xlsx: the sheet read, by its name or its 1-based position among the workbook's sheets (default: the first). */
    sheet: z.union([nonEmpty, position]).optional(),
    encoding: z
      .enum([...ENCODING_ALIASES.keys()] as [string, ...string[]])
      .transform((v) => ENCODING_ALIASES.get(v) as ProfileEncoding)
      .default('utf-8'),
    delimiter: z
      .string()
      .length(1)
      .refine((v) => v !== '\n' && v !== '\r', 'not a line break')
      .optional(),
    quote: z.string().length(1).optional(),
    escape: z.string().length(1).optional(),
    header: z.boolean().optional(),
    skip_lines: z.number().int().min(0).default(0),
    comment: nonEmpty.optional(),
    null_if: z.array(text).default(['']),
    normalize: z.enum(['nfkc', 'none']).default('none'),
    when: whenSpec.optional(),
    units: z.enum(['bytes', 'chars']).optional(),
    columns: columnsSpec,
    extra: z.union([z.enum(['keep', 'ignore']), z.array(nonEmpty)]).default('ignore'),
    control: controlSpec.optional(),
  })
  .superRefine((p, ctx) => {
    const issue = (path: Array<string | number>, message: string) => ctx.addIssue({ code: 'custom', path, message });
    const fixed = p.format === 'fixed';
    if (p.format === 'jsonl') jsonlSpecProblems(p, issue);
    xlsxSpecProblems(p, issue);
    if (fixed) {
      for (const key of ['delimiter', 'quote', 'escape', 'header'] as const)
        if (p[key] !== undefined) issue([key], `a ${key} has no meaning for format: fixed`);
      if (p.encoding === 'utf-16') issue(['encoding'], 'utf-16 is not read as format: fixed (use csv)');
    } else if (p.units !== undefined) issue(['units'], 'units is for format: fixed');
    // the other columns kept as attributes (src/input/profile/attributes.ts): named by the header
    if (fixed && p.extra !== 'ignore') issue(['extra'], 'format: fixed has no column names: extra (keep or a list) is for csv');
    else if (p.extra !== 'ignore' && p.extra !== 'keep' && p.header === false)
      issue(['extra'], 'a list of extra column names needs header: true');
    const spans: Array<{ column: string; start: number; end: number }> = [];
    for (const name of ORDER_COLUMNS) {
      const c = p.columns[name];
      const path = ['columns', name];
      const sources = [c.column, c.at, c.const, c.file_group, c.amount_sign].filter((v) => v !== undefined).length;
      if (sources === 0) issue(path, fixed ? 'needs at: [start, length] (or const)' : 'needs column (or const)');
      if (sources > 1)
        issue(
          path,
          c.file_group === undefined && c.amount_sign === undefined
            ? 'takes one of column, at and const'
            : 'takes one of column, at, const, file_group and amount_sign',
        );
      if (c.amount_sign !== undefined && name !== 'currency') issue([...path, 'amount_sign'], 'amount_sign is for currency');
      if (c.amount_sign !== undefined && p.columns.amount.currency_signs === undefined)
        issue([...path, 'amount_sign'], 'amount_sign needs columns.amount.currency_signs');
      if (c.file_group !== undefined) {
        const groups = filePatternGroups(p.file_pattern);
        if (p.file_pattern === undefined) issue([...path, 'file_group'], 'file_group needs file_pattern');
        else if (groups !== null && !groups.includes(c.file_group))
          issue([...path, 'file_group'], `file_pattern has no group (?<${c.file_group}>…)`);
      }
      if (c.currency_signs !== undefined && name !== 'amount') issue([...path, 'currency_signs'], 'currency_signs is for amount');
      if (fixed && c.column !== undefined) issue([...path, 'column'], 'format: fixed reads columns by at: [start, length]');
      if (!fixed && c.at !== undefined) issue([...path, 'at'], `at is for format: fixed (${p.format} reads by column)`);
      if (!fixed && p.format !== 'xlsx' && p.header === false && c.column !== undefined && typeof c.column !== 'number')
        issue([...path, 'column'], 'header: false: a column is its 1-based number');
      if (c.const !== undefined && c.default !== undefined) issue(path, 'takes const or default, not both');
      if (name === 'source_key' && (c.const !== undefined || c.default !== undefined))
        issue(path, 'source_key is read from the file: no const or default');
      if (c.date !== undefined) {
        if (name !== 'order_date') issue([...path, 'date'], 'date masks are for order_date');
        const masks = typeof c.date === 'string' ? [c.date] : c.date;
        masks.forEach((m, i) => {
          const problem = dateMaskProblem(m);
          if (problem !== null) issue([...path, 'date', ...(typeof c.date === 'string' ? [] : [i])], problem);
          else if (p.timezone === undefined && maskHasOffset(m))
            issue(
              [...path, 'date', ...(typeof c.date === 'string' ? [] : [i])],
              `mask ${JSON.stringify(m)} reads an offset (Z): set timezone (an IANA name such as Asia/Tokyo): the order date is the calendar date there`,
            );
        });
      }
      if (name !== 'amount')
        for (const key of ['decimal', 'group', 'negative'] as const)
          if (c[key] !== undefined) issue([...path, key], `${key} is for amount`);
      if (c.decimal !== undefined && c.group !== undefined && c.decimal === c.group)
        issue([...path, 'group'], 'the group separator cannot be the decimal separator');
      if (c.decimal === ',' && c.group === undefined && p.delimiter === undefined && p.format === 'csv')
        issue([...path, 'decimal'], 'a decimal comma in a comma-separated file: set delimiter');
      if (c.at !== undefined) {
        spans.push({ column: name, start: c.at[0], end: c.at[0] + c.at[1] });
        if (c.at[0] + c.at[1] - 1 > FIXED_RECORD_LIMIT)
          issue([...path, 'at'], `out of range: ends at ${c.at[0] + c.at[1] - 1}, past the longest record read (${FIXED_RECORD_LIMIT})`);
      }
    }
    if (p.timezone !== undefined && !isTimeZone(p.timezone))
      issue(['timezone'], `unknown time zone ${JSON.stringify(p.timezone)} (an IANA name such as Asia/Tokyo or UTC)`);
    if (p.file_pattern !== undefined && filePatternGroups(p.file_pattern) === null) issue(['file_pattern'], 'not a regular expression');
    overlappingSpans(spans, issue);
    if (p.when !== undefined) whenSpecProblems(p.when, fixed, issue);
    if (p.control !== undefined) controlSpecProblems(p.control, p.format, issue);
  });

/** Fixed-width columns whose `at` spans overlap: each said once, against the column before it. */
function overlappingSpans(
  spans: Array<{ column: string; start: number; end: number }>,
  issue: (path: Array<string | number>, message: string) => void,
): void {
  spans.sort((a, b) => a.start - b.start);
  for (let i = 1; i < spans.length; i++) {
    const a = spans[i - 1];
    const b = spans[i];
    if (a !== undefined && b !== undefined && b.start < a.end)
      issue(['columns', b.column, 'at'], `overlaps columns.${a.column} (${a.start}–${a.end - 1})`);
  }
}

/** What a `when:` rule must hold: one test, and a column or an `at` span as the format reads. */
function whenSpecProblems(w: WhenSpec, fixed: boolean, issue: (path: Array<string | number>, message: string) => void): void {
  const tests = [w.equals, w.in, w.not_in].filter((v) => v !== undefined).length;
  if (tests !== 1) issue(['when'], 'takes one of equals, in and not_in');
  if (fixed && w.at === undefined) issue(['when'], 'format: fixed: when needs at: [start, length]');
  if (w.at !== undefined && w.at[0] + w.at[1] - 1 > FIXED_RECORD_LIMIT)
    issue(['when', 'at'], `out of range: ends at ${w.at[0] + w.at[1] - 1}, past the longest record read (${FIXED_RECORD_LIMIT})`);
  if (!fixed && w.column === undefined) issue(['when'], 'when needs column');
  if (fixed && w.column !== undefined) issue(['when', 'column'], 'format: fixed reads by at');
  if (!fixed && w.at !== undefined) issue(['when', 'at'], 'at is for format: fixed');
}

/** What a `control:` section must hold, for the format it reads. */
function controlSpecProblems(c: ControlSpec, format: string, issue: (path: Array<string | number>, message: string) => void): void {
  const fixed = format === 'fixed';
  const where = [c.trailer, c.header, c.file].filter((v) => v !== undefined).length;
  if (where !== 1) issue(['control'], 'takes one of trailer, header and file');
  if (c.count === undefined && c.sum === undefined && c.bytes === undefined && c.sha256 === undefined)
    issue(['control'], 'states count, sum, bytes or sha256');
  const record = c.trailer !== undefined ? 'trailer' : c.header !== undefined ? 'header' : null;
  const jsonl = record !== null && format === 'jsonl';
  // a workbook's row is read by column as its columns are: a header name, a letter or a number (src/input/profile/xlsx-spec.ts)
  const columnType = jsonl ? 'string' : record !== null && format === 'xlsx' ? null : 'number';
  if (c.delimiter !== undefined && c.file === undefined) issue(['control', 'delimiter'], 'delimiter is for a control file');
  const rule = c.trailer ?? c.header;
  if (rule !== undefined && record !== null) {
    if ([rule.equals, rule.in, rule.not_in].filter((v) => v !== undefined).length !== 1)
      issue(['control', record], 'takes one of equals, in and not_in');
    if (fixed ? rule.at === undefined : rule.column === undefined)
      issue(['control', record], fixed ? 'format: fixed: needs at: [start, length]' : `needs column: ${columnWord(jsonl)}`);
    if (!fixed && rule.column !== undefined && columnType !== null && typeof rule.column !== columnType)
      issue(['control', record, 'column'], `a control record is read by ${columnWord(jsonl)}`);
    if (fixed && rule.column !== undefined) issue(['control', record, 'column'], 'format: fixed reads by at');
    if (!fixed && rule.at !== undefined) issue(['control', record, 'at'], 'at is for format: fixed');
  }
  for (const key of ['count', 'sum', 'bytes', 'sha256'] as const) {
    const f = c[key];
    if (f === undefined) continue;
    if ((f.column === undefined) === (f.at === undefined)) issue(['control', key], 'takes one of column and at');
    else if (record !== null && fixed && f.column !== undefined) issue(['control', key, 'column'], 'format: fixed reads by at');
    else if (record !== null && !fixed && f.at !== undefined)
      issue(['control', key, 'at'], `at is for format: fixed (${format} reads by column)`);
    else if (f.column !== undefined && columnType !== null && typeof f.column !== columnType)
      issue(['control', key, 'column'], `reads ${columnWord(jsonl)}`);
  }
}

function columnWord(jsonl: boolean): string {
  return jsonl ? "a path into the record's object ('type', 'totals.count')" : 'its 1-based field number';
}

/** The named groups of a file-name pattern, or null when it is not a regular expression. */
export function filePatternGroups(pattern: string | undefined): string[] | null {
  if (pattern === undefined) return [];
  try {
    new RegExp(pattern);
  } catch {
    return null;
  }
  return [...pattern.matchAll(/\(\?<([A-Za-z_$][\w$]*)>/g)].map((m) => m[1] ?? '');
}

export type LoadProfileSpec = z.infer<typeof profileSchema>;

/** The JSON Schema published as schema/profile.schema.json (what a profile may hold, for editors). */
export function profileJsonSchema(): unknown {
  return z.toJSONSchema(profileSchema, { io: 'input', unrepresentable: 'any' });
}
