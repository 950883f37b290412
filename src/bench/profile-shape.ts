/**
 * `bench --profile`: the synthetic orders (synthetic-orders.ts) written in a load profile's shape,
 * so that users benchmark their own format: CSV with its delimiter, quote, header names at their
 * places (or positions without a header), banner lines; fixed width at the profile's positions,
 * in bytes or characters; dates in the profile's first mask, amounts with its decimal and group
 * separators; the file in its encoding (UTF-16 with its byte order mark); the value its `when`
 * keeps. A `const` field is not written (the profile gives it).
 *
 * Honest: what it cannot write so that the profile reads it back as written is refused before
 * anything is generated, naming the profile key (`profileShape`); and run-bench.ts reads the
 * written file back through the profile (a dry run) before the cases: a line it rejects refuses
 * the bench. A field too narrow for the amounts that overflow orders.amount makes a file without
 * them (said in the report's notes).
 */
import { UserError } from '../errors.js';
import { charLength, ORDER_COLUMNS, type OrderColumn } from '../input/order-record.js';
import type { LoadProfile } from '../input/profile/load-profile.js';
import { headerKey } from '../input/profile/mapping.js';
import type { ProfileEncoding } from '../input/profile/schema.js';
import { fixedShape } from './fixed-shape.js';
import { patternExample } from './pattern-example.js';
import { jsonLineWriter, type JsonSlot } from './jsonl-shape.js';
import { isAsciiText, keepsAll, keptValue, SAMPLE_ORDER, type FileShape, type Refuse, type ShapeContext } from './shape-context.js';
import { amountWriter, dateWriter, signsByCurrency } from './shape-values.js';
import { syntheticOrders, type GenerateOptions, type GenerateResult, type SyntheticOrder } from './synthetic-orders.js';

export type { FileShape } from './shape-context.js';

const BANNER = 'order-loader bench: synthetic orders';

type Value = (o: SyntheticOrder) => string;

type Encoder = (text: string) => Buffer | null;

/**
 * The bytes of each character of a legacy encoding, found by decoding every byte sequence the
 * reader's TextDecoder knows (so that what is written is what the reader reads), lazily.
 */
function legacyTable(encoding: 'shift_jis' | 'euc-jp' | 'windows-1252'): Map<string, Buffer> {
  const decoder = new TextDecoder(encoding, { fatal: true });
  const table = new Map<string, Buffer>();
  const add = (bytes: number[]) => {
    try {
      const ch = decoder.decode(Uint8Array.from(bytes));
      if (charLength(ch) === 1 && !table.has(ch)) table.set(ch, Buffer.from(bytes));
    } catch {
      // not a character of this encoding
    }
  };
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
  if (encoding === 'windows-1252') for (const b of range(0x80, 0xff)) add([b]);
  else if (encoding === 'shift_jis') {
    for (const b of range(0xa1, 0xdf)) add([b]);
    for (const lead of [...range(0x81, 0x9f), ...range(0xe0, 0xfc)])
      for (const trail of [...range(0x40, 0x7e), ...range(0x80, 0xfc)]) add([lead, trail]);
  } else {
    for (const b of range(0xa1, 0xdf)) add([0x8e, b]);
    for (const lead of range(0xa1, 0xfe)) for (const trail of range(0xa1, 0xfe)) add([lead, trail]);
  }
  return table;
}

function encoderFor(encoding: ProfileEncoding): Encoder {
  if (encoding === 'utf-8') return (text) => Buffer.from(text, 'utf8');
  if (encoding === 'utf-16') return (text) => Buffer.from(text, 'utf16le');
  let table: Map<string, Buffer> | null = null;
  const decoder = new TextDecoder(encoding);
  return (text) => {
    if (isAsciiText(text)) return Buffer.from(text, 'latin1');
    table ??= legacyTable(encoding);
    const parts: Buffer[] = [];
    for (const ch of text) {
      const bytes = ch.charCodeAt(0) < 0x80 ? Buffer.from(ch, 'latin1') : table.get(ch);
      if (bytes === undefined) return null;
      parts.push(bytes);
    }
    const out = Buffer.concat(parts);
    // written as the reader reads it, or not at all
    return decoder.decode(out) === text ? out : null;
  };
}

/**
 * The file's name where the profile takes values from it (file_pattern): one its pattern takes,
 * a currency group holding JPY where it fits. The values it gives, by group.
 */
function nameFor(spec: LoadProfile['spec'], refuse: Refuse, notes: string[]): { fileName: string | null; groups: Record<string, string> } {
  const pattern = spec.file_pattern;
  if (pattern === undefined) return { fileName: null, groups: {} };
  const currencyGroup = spec.columns.currency.file_group;
  const fileName = patternExample(pattern, currencyGroup === undefined ? {} : { [currencyGroup]: 'JPY' });
  if (fileName === null)
    return refuse('file_pattern', `bench cannot write a file name /${pattern}/ takes: measure a real file with load --dry-run`);
  const groups: Record<string, string> = {};
  // a group that took no part in the match is undefined
  const found: Record<string, string | undefined> = new RegExp(`^(?:${pattern})$`).exec(fileName)?.groups ?? {};
  for (const [k, v] of Object.entries(found)) groups[k] = v ?? '';
  for (const c of ORDER_COLUMNS) {
    const g = spec.columns[c].file_group;
    if (g !== undefined)
      notes.push(`${c}: ${JSON.stringify(groups[g] ?? '')} for every order, from the file name ${fileName} (file_pattern)`);
  }
  return { fileName, groups };
}

/**
 * Each order's currency as the profile reads it, and the sign written with its amount: the sign
 * currency_signs gives its code; where the currency is the sign's (amount_sign), an order in a
 * currency no sign names is written in one a sign names. `codes`: the currencies written.
 */
function currencies(
  spec: LoadProfile['spec'],
  groups: Record<string, string>,
  refuse: Refuse,
  notes: string[],
): { currencyOf: (o: SyntheticOrder) => string; signOf: (code: string) => string | undefined; codes: string[] } {
  const bySign = signsByCurrency(spec.columns.amount.currency_signs);
  const signOf = (code: string) => bySign.get(code);
  const currency = spec.columns.currency;
  const signed = [...bySign.keys()];
  if (currency.amount_sign === true) {
    if (signed.length === 0)
      return refuse(
        'columns.currency.amount_sign',
        'no sign of columns.amount.currency_signs names a currency: bench cannot write the one it gives',
      );
    notes.push(`currency: given by the amount's sign; orders in another currency written in ${signed.join(', ')}`);
    return { currencyOf: (o) => (bySign.has(o.currency) ? o.currency : (signed[o.n % signed.length] as string)), signOf, codes: signed };
  }
  const fixed = currency.file_group !== undefined ? (groups[currency.file_group] ?? '') : currency.const;
  if (fixed !== undefined) return { currencyOf: () => fixed, signOf, codes: [fixed] };
  return { currencyOf: (o) => o.currency, signOf, codes: ['JPY', ...signed] };
}

/** What every format's writer is given (shape-context.ts), in the order the profile is checked. */
function shapeContext(profile: LoadProfile, rows: number): ShapeContext {
  const spec = profile.spec;
  const refuse = (key: string, why: string): never => {
    throw new UserError(`bench --profile ${profile.name}: ${key}: ${why}`);
  };
  const encode = encoderFor(spec.encoding);
  const encoded = (text: string, key: string): Buffer =>
    encode(text) ?? refuse(key, `${JSON.stringify(text)} cannot be written in ${spec.encoding}`);
  const dateSpec = spec.columns.order_date.date;
  const writeDate = dateWriter(
    dateSpec === undefined ? 'YYYY-MM-DD' : typeof dateSpec === 'string' ? dateSpec : (dateSpec[0] ?? 'YYYY-MM-DD'),
    spec.timezone,
  );
  const notes: string[] = [];
  const { fileName, groups } = nameFor(spec, refuse, notes);
  const { currencyOf, signOf, codes } = currencies(spec, groups, refuse, notes);
  const amountSpec = spec.columns.amount;
  const writeAmountOf = amountWriter(amountSpec.decimal ?? '.', amountSpec.group, signOf);
  const writeAmount = (amount: string, currency = 'JPY') => writeAmountOf(amount, currency);
  const written = (c: OrderColumn) =>
    spec.columns[c].const === undefined && spec.columns[c].file_group === undefined && spec.columns[c].amount_sign === undefined;
  for (const c of ORDER_COLUMNS)
    if (spec.columns[c].const !== undefined) notes.push(`${c}: not written (const ${JSON.stringify(spec.columns[c].const)})`);
  const comment = spec.comment;
  const checkComment = (start: string, what: string): void => {
    if (comment !== undefined && start.trimStart().startsWith(comment))
      refuse('comment', `${what} would start with ${JSON.stringify(comment)} and be skipped`);
  };
  const encodeText = (text: string): Buffer => encode(text) ?? refuse('encoding', `the file cannot be written in ${spec.encoding}`);
  const textValues: Record<OrderColumn, Value> = {
    source_key: (o) => `SRC-${String(o.n).padStart(9, '0')}`,
    customer_id: (o) => o.customerId,
    order_date: (o) => writeDate(o),
    amount: (o) => writeAmount(o.amount, currencyOf(o)),
    currency: (o) => currencyOf(o),
  };
  const head: string[] = Array.from({ length: spec.skip_lines }, () => BANNER);
  const base = { head, encode: encodeText, bom: spec.encoding === 'utf-16', notes, fileName };
  return { spec, rows, refuse, encoded, writeDate, writeAmount, currencyOf, codes, textValues, written, checkComment, base };
}

/**
 * The shape of the synthetic file for `profile` and `rows` orders. Refuses (UserError, naming the
 * profile key) what it cannot write so that the profile reads it back as written.
 */
export function profileShape(profile: LoadProfile, rows: number): FileShape {
  const ctx = shapeContext(profile, rows);
  if (ctx.spec.format === 'xlsx')
    ctx.refuse(
      'format',
      'bench writes its file as lines of text (CSV, fixed width, JSON Lines) and an xlsx workbook is a zip archive of XML parts, which it has no writer for: measure a workbook with load --dry-run --profile',
    );
  if (ctx.spec.format === 'jsonl') return jsonlShape(ctx);
  if (ctx.spec.format === 'fixed') return fixedShape(ctx);
  return csvShape(ctx);
}

/** JSON Lines: each written field at its path; the value `when` keeps where no field holds it. */
function jsonlShape(ctx: ShapeContext): FileShape {
  const { spec, textValues } = ctx;
  const slots: JsonSlot[] = ORDER_COLUMNS.filter(ctx.written).map((c) => ({
    key: `columns.${c}`,
    column: spec.columns[c].column,
    value: textValues[c],
  }));
  const when = spec.when;
  if (when !== undefined) {
    const shared = slots.find((s) => s.column === when.column);
    if (shared === undefined || !keepsAll(when, shared.value, ctx.rows)) {
      const kept = keptValue(when);
      slots.push({ key: 'when', column: when.column, value: () => kept });
    }
  }
  return { ...ctx.base, line: jsonLineWriter(slots, ctx.refuse), overflow: true };
}

type Slot = { name: string; key: string; value: Value };

/**
 * CSV: each written field at its column, a column a field names by number at that number, the
 * others in the free places in order; a column of the value `when` keeps where no field holds it.
 */
function csvSlots(ctx: ShapeContext): Slot[] {
  const { spec, refuse } = ctx;
  const numbered = new Map<number, Slot>();
  const named: Slot[] = [];
  const place = (ref: string | number | string[] | undefined, key: string, value: Value, fallback: string) => {
    if (ref === undefined) return;
    if (typeof ref === 'number') {
      const taken = numbered.get(ref);
      if (taken !== undefined) refuse(`${key}.column`, `column ${ref} is ${taken.key}'s too: bench writes one value per column`);
      numbered.set(ref, { name: fallback, key, value });
      return;
    }
    const name = typeof ref === 'string' ? ref : (ref[0] ?? fallback);
    named.push({ name, key, value });
  };
  for (const c of ORDER_COLUMNS) if (ctx.written(c)) place(spec.columns[c].column, `columns.${c}`, ctx.textValues[c], c);
  const when = spec.when;
  if (when !== undefined) {
    const ref = when.column;
    const shared =
      typeof ref === 'number'
        ? numbered.get(ref)
        : named.find((s) => ref !== undefined && headerKey(s.name) === headerKey(typeof ref === 'string' ? ref : (ref[0] ?? '')));
    if (shared === undefined || !keepsAll(when, shared.value, ctx.rows)) {
      const kept = keptValue(when);
      place(when.column, 'when', () => kept, 'when');
    }
  }
  const slots: Slot[] = [];
  const count = Math.max(numbered.size + named.length, ...numbered.keys());
  const free = [...named];
  for (let i = 1; i <= count; i++) {
    const slot = numbered.get(i) ?? free.shift();
    slots.push(slot ?? { name: `unused_${i}`, key: '', value: () => '' });
  }
  return slots;
}

/** Refuses a header naming two columns alike (the reader could not tell them apart) or with a line break. */
function checkHeaderNames(slots: readonly Slot[], refuse: Refuse): void {
  const seen = new Map<string, Slot>();
  for (const s of slots) {
    const taken = seen.get(headerKey(s.name));
    if (taken !== undefined)
      refuse(
        `${s.key || taken.key}.column`,
        `${JSON.stringify(s.name)} names ${taken.key}'s column too: bench writes one value per column`,
      );
    seen.set(headerKey(s.name), s);
  }
  if (slots.some((s) => s.name.includes('\n') || s.name.includes('\r'))) refuse('columns', 'a header name with a line break');
}

/** CSV: the header (unless header: false) and each order's line, its fields quoted where needed. */
function csvShape(ctx: ShapeContext): FileShape {
  const { spec } = ctx;
  const delimiter = spec.delimiter ?? ',';
  const quote = spec.quote ?? '"';
  const escape = spec.escape ?? quote;
  const header = spec.header !== false;
  const slots = csvSlots(ctx);
  if (header) checkHeaderNames(slots, ctx.refuse);
  // quoted when it holds the delimiter, the quote or a line break (a quote inside doubled, or escaped)
  const field = (text: string): string => {
    if (!text.includes(delimiter) && !text.includes(quote) && !text.includes('\n') && !text.includes('\r')) return text;
    const inner =
      escape === quote ? text.replaceAll(quote, quote + quote) : text.replaceAll(escape, escape + escape).replaceAll(quote, escape + quote);
    return `${quote}${inner}${quote}`;
  };
  if (header) {
    const names = slots.map((s) => s.name);
    names.forEach((n) => ctx.encoded(n, slots.find((s) => s.name === n)?.key || 'columns'));
    ctx.checkComment(names[0] ?? '', 'the header');
    ctx.base.head.push(names.map(field).join(delimiter));
  }
  const values = slots.map((s) => s.value);
  const first = values[0];
  const line = (o: SyntheticOrder): string => {
    let out = '';
    for (let i = 0; i < values.length; i++) out += (i === 0 ? '' : delimiter) + field((values[i] as Value)(o));
    return out;
  };
  if (first !== undefined) ctx.checkComment(first(SAMPLE_ORDER), 'each line');
  return { ...ctx.base, line, overflow: true };
}

/** The lines of the synthetic file in `shape`, each with its line end (a byte order mark first where the shape has one). */
export function* shapedLines(shape: FileShape, options: GenerateOptions): Generator<string, GenerateResult> {
  if (shape.bom) yield '\uFEFF';
  for (const h of shape.head) yield `${h}\n`;
  const orders = syntheticOrders(shape.overflow ? options : { ...options, overflowRate: 0 });
  for (;;) {
    const next = orders.next();
    if (next.done === true) return next.value;
    yield `${shape.line(next.value)}\n`;
  }
}
