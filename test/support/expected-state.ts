/**
 * What the database must hold after order files were loaded, computed from the files alone: an
 * oracle for the survival and integration tests. Pure (no I/O, no product code): the rules are
 * written here again, from the documentation, so that a bug in the product's parser or
 * validator cannot make the check agree with it.
 *
 * Semantics (docs/ARCHITECTURE.md section 2 "The staging rule", README "The staging rule";
 * src/pipeline/load.ts `runLoad`):
 *
 * - A **round** is what one `load` of an inbox does once it has run to its end, however many
 *   times it was killed and rerun on the way: every file of the round is staged, in load order
 *   (file name order), before any row is processed (phases in sequence, the default; not
 *   `--overlap`). A kill never lets processing start before the round's last file is staged: a
 *   rerun skips the files fully staged, resumes the one it stopped in, and processes only then.
 * - **Staging** (per file, in load order): each data line is
 *   - *rejected* (no stage row; a `PARSE` error-log row with its line number): wrong field
 *     count (`PARSE_FIELD_COUNT`), or no usable source_key (`PARSE_SOURCE_KEY`);
 *   - a *parse error* with a usable key: a `PARSE` error-log row, and the key's stage row becomes
 *     `ERROR` with null values and the parse code (whatever it held before);
 *   - a *row*: the key's stage row takes its values and becomes `READY` (unless its values are
 *     those the stage row already holds, and that row is not a parse error: then it is untouched).
 *   Within a file only the LAST line of a key that reaches the stage counts (the staging rule:
 *   the last occurrence wins); the earlier ones are *overridden* (their PARSE rows stay). Across
 *   the files of a round, a later file's line replaces an earlier file's in the stage: the
 *   earlier file's line is never processed.
 * - **Processing** (at the end of the round): every `READY` row is validated (`VALIDATE`, codes
 *   `INVALID_*`, the first failing column's code) and merged; the database refuses an amount of
 *   10^10 or more (orders.amount numeric(12,2): `MERGE`, SQLSTATE 22003). A failure sets the stage
 *   row `ERROR` and adds one error-log row; success sets it `DONE` and `orders` takes its values.
 *   A failed row leaves `orders` as it was before the round: the value of the key's latest line
 *   merged in an EARLIER round, or no row.
 *
 * - **Rules of the site's own** (`SiteRules`, optional): a line a CHECK on order_stage refuses
 *   drops alone while staging (as a rejected line, with its key); a row a rule on orders refuses
 *   fails in the MERGE like an overflow.
 *
 * Consequence to keep in mind: within one round, a key whose last line is refused has no order
 * (or keeps the earlier round's), even when an earlier file of the same round had a valid line
 * for it: "the last line wins" is a rule of the stage, not "the last VALID line wins".
 *
 * The oracle covers plain CSV (no quotes, LF line ends, the five columns in header order); it
 * throws on anything else rather than guess, and on a case whose outcome depends on where the
 * staging batches fall (see `stageLine`): generated files avoid them by giving every line its own
 * customer_id.
 */
import { dbCode } from './engine-expect.js';

export const ORDER_HEADER = 'source_key,customer_id,order_date,amount,currency';

export interface InputFile {
  /** The file's name in the inbox (its load order is the order of the names). */
  name: string;
  text: string;
}

export interface OrderValues {
  customerId: string | null;
  orderDate: string | null;
  amount: string | null;
  currency: string | null;
}

export type LineOutcome =
  | { kind: 'rejected'; lineNo: number; code: string }
  | { kind: 'parse-error'; lineNo: number; key: string; code: string }
  | { kind: 'row'; lineNo: number; key: string; values: OrderValues };

export type Status = 'READY' | 'DONE' | 'ERROR';

export interface ExpectedStageRow {
  status: Status;
  values: OrderValues;
  errorCode: string | null;
  /** The file and line the stage row points at (load_id → the file's load, line_no). */
  file: string;
  lineNo: number;
  /**
   * Processing attempts over every version of the key: attempt_count is never reset (the seed's
   * rule: a corrected row counts its failed attempt too). Each processing attempt that commits
   * adds one; a kill that rolls a chunk back adds none.
   */
  attempts: number;
}

export interface ExpectedErrorRow {
  phase: 'PARSE' | 'VALIDATE' | 'MERGE';
  code: string;
  file: string;
  lineNo: number;
  /** null for a rejected line without a usable key (and for any PARSE_FIELD_COUNT line). */
  key: string | null;
}

export type LineFate = 'rejected' | 'staged' | 'overridden' | 'unchanged';

/**
 * Rules of the site's own on the database (docs/operations.md: a CHECK constraint or a trigger),
 * said again here as predicates on a line's values: `stage` refuses a row written to order_stage
 * (the line drops alone, as a line the reader rejects: a PARSE error-log row with its key and the
 * rule's code, no stage row; the key keeps its previous line that reached the stage), `orders`
 * refuses a row the MERGE writes (the stage row ERROR with the rule's code, a MERGE error-log row,
 * orders as it was before the round). Each returns whether the rule refuses the values.
 */
export interface SiteRules {
  stage?: { code: string; refuses(values: OrderValues): boolean };
  orders?: { code: string; refuses(values: OrderValues): boolean };
}

export interface ExpectedState {
  stage: Map<string, ExpectedStageRow>;
  orders: Map<string, OrderValues>;
  /** Every error-log row, exactly once each. */
  errorLog: ExpectedErrorRow[];
  /**
   * Error-log rows that may be there, at most once each: a line the site's CHECK refuses that a
   * later line of its key in the same file replaces. In one staging batch with that line it is
   * never sent (the last line of a key in a batch is staged; its earlier lines only when the
   * database refuses it), so its refusal is not known; in an earlier batch it is refused and
   * logged. Either way the key ends with the later line.
   */
  maybeErrorLog: ExpectedErrorRow[];
  /** Files whose header is refused: not staged (with --failed-dir, moved there). */
  refusedFiles: string[];
  /** Files staged (with --archive-dir, archived). */
  loadedFiles: string[];
  /** What became of each data line, by file then line number. */
  fates: Map<string, Map<number, LineFate>>;
  /** What the files exercise (a test asserts each is above zero). */
  stats: {
    lines: number;
    /** Keys with lines in more than one file. */
    keysAcrossFiles: number;
    /** Keys with more than one line in one file. */
    keysRepeatedInAFile: number;
    /** Keys whose last line (in load order) is valid while an earlier line of the key was not. */
    lastValidAfterRejected: number;
    /** Keys whose last line is refused (validation, database or parse) while an earlier one was valid. */
    lastRejectedAfterValid: number;
    /** Keys whose order holds an earlier round's value because this round's line failed. */
    ordersKeptFromEarlierRound: number;
  };
  /** Lines the site's rules (SiteRules) refused: while staging, and in the MERGE. */
  siteRefusals: { staging: number; merge: number };
}

const MAX_KEY_CHARS = 100;
const MAX_STAGE_INTEGER_DIGITS = 16;
const MAX_BIGINT = 2n ** 63n - 1n;
/** orders.amount numeric(12,2): 10 digits before the point. */
const MAX_ORDER_INTEGER_DIGITS = 10;

function codePoints(v: string): number {
  return Array.from(v).length;
}

/** Canonical decimal text (no '+', no leading zeros, no trailing fractional zeros, no "-0"); null if not a plain decimal. */
export function canonicalDecimal(v: string): string | null {
  const m = /^([+-]?)(\d+)(?:\.(\d*))?$/.exec(v);
  if (m === null) return null;
  const integer = (m[2] ?? '').replace(/^0+/, '') || '0';
  const fraction = (m[3] ?? '').replace(/0+$/, '');
  const zero = integer === '0' && fraction === '';
  return `${m[1] === '-' && !zero ? '-' : ''}${integer}${fraction === '' ? '' : `.${fraction}`}`;
}

function isCalendarDate(v: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (m === null) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1900) return false;
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** A field's parse problem (its code), or its stored value. */
type Field = { value: string | null } | { code: string };

function parseCustomer(v: string): Field {
  if (v === '') return { value: null };
  if (!/^[+-]?\d+$/.test(v)) return { code: 'PARSE_CUSTOMER_ID' };
  const n = BigInt(v);
  return n > MAX_BIGINT || -n > MAX_BIGINT ? { code: 'PARSE_CUSTOMER_ID' } : { value: n.toString() };
}

function parseDate(v: string): Field {
  if (v === '') return { value: null };
  return isCalendarDate(v) ? { value: v } : { code: 'PARSE_ORDER_DATE' };
}

function parseAmountField(v: string): Field {
  if (v === '') return { value: null };
  if (!/^[+-]?\d+(\.\d+)?$/.test(v)) return { code: 'PARSE_AMOUNT' };
  const canonical = canonicalDecimal(v);
  if (canonical === null) return { code: 'PARSE_AMOUNT' };
  const [integer = '', fraction = ''] = canonical.replace(/^-/, '').split('.');
  if (fraction.length > 2 || integer.length > MAX_STAGE_INTEGER_DIGITS) return { code: 'PARSE_AMOUNT' };
  return { value: canonical };
}

function parseCurrency(v: string): Field {
  if (v === '') return { value: null };
  return codePoints(v) > 3 ? { code: 'PARSE_CURRENCY' } : { value: v };
}

/** One data line of a plain CSV order file (fields already split off the header's five). */
export function parseLine(line: string, lineNo: number): LineOutcome {
  if (line.includes('"') || line.includes('\r')) throw new Error(`expected-state: line ${lineNo} is not plain CSV: ${line}`);
  const fields = line.split(',');
  if (fields.length !== 5) return { kind: 'rejected', lineNo, code: 'PARSE_FIELD_COUNT' };
  const [rawKey = '', customer = '', date = '', amount = '', currency = ''] = fields.map((f) => f.trim());
  if (rawKey === '' || codePoints(rawKey) > MAX_KEY_CHARS) return { kind: 'rejected', lineNo, code: 'PARSE_SOURCE_KEY' };
  const parsed = [parseCustomer(customer), parseDate(date), parseAmountField(amount), parseCurrency(currency)];
  const failed = parsed.find((f): f is { code: string } => 'code' in f);
  if (failed !== undefined) return { kind: 'parse-error', lineNo, key: rawKey, code: failed.code };
  const [c, d, a, x] = parsed.map((f) => ('value' in f ? f.value : null));
  return {
    kind: 'row',
    lineNo,
    key: rawKey,
    values: { customerId: c ?? null, orderDate: d ?? null, amount: a ?? null, currency: x ?? null },
  };
}

/** The business rules (VALIDATE): the first failing column's code, or null. */
export function validationCode(v: OrderValues): string | null {
  if (v.customerId === null || BigInt(v.customerId) <= 0n) return 'INVALID_CUSTOMER_ID';
  if (v.orderDate === null) return 'INVALID_ORDER_DATE';
  if (v.amount === null || v.amount.startsWith('-')) return 'INVALID_AMOUNT';
  if (v.currency === null || !/^[A-Z]{3}$/.test(v.currency)) return 'INVALID_CURRENCY';
  return null;
}

/**
 * What the database refuses in the MERGE (orders.amount numeric(12,2), then the site's rule on
 * orders): its code in the engine-neutral vocabulary (db:overflow: 22003 on PostgreSQL, ORA-01438
 * on Oracle), or null.
 */
export function mergeRefusal(v: OrderValues, rules: SiteRules = {}): string | null {
  const integer = (v.amount ?? '0').replace(/^-/, '').split('.')[0] ?? '';
  if (integer.length > MAX_ORDER_INTEGER_DIGITS) return dbCode('overflow');
  return rules.orders?.refuses(v) === true ? rules.orders.code : null;
}

const NO_VALUES: OrderValues = { customerId: null, orderDate: null, amount: null, currency: null };

/** Whether the site's CHECK on order_stage refuses the row a line writes (a parse error's row holds no values). */
export function refusedWhileStaging(o: LineOutcome, rules: SiteRules): boolean {
  const values = o.kind === 'row' ? o.values : o.kind === 'parse-error' ? NO_VALUES : null;
  return rules.stage !== undefined && values !== null && rules.stage.refuses(values);
}

/** The data lines of a file, or null when its header is not the order header. */
export function fileLines(file: InputFile): LineOutcome[] | null {
  const lines = file.text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines[0]?.trim() !== ORDER_HEADER) return null;
  return lines.slice(1).map((line, i) => parseLine(line, i + 2));
}

function sameValues(a: OrderValues, b: OrderValues): boolean {
  return a.customerId === b.customerId && a.orderDate === b.orderDate && a.amount === b.amount && a.currency === b.currency;
}

interface StageSlot extends ExpectedStageRow {
  /** The file and line whose fate is 'staged' while the row points at them. */
  holder: { file: string; lineNo: number };
}

/**
 * The state after `rounds` (each a list of files, loaded as one inbox run to its end, in name
 * order), starting from an empty database.
 */
export function expectedState(rounds: InputFile[][], rules: SiteRules = {}): ExpectedState {
  const stage = new Map<string, StageSlot>();
  const orders = new Map<string, OrderValues>();
  const errorLog: ExpectedErrorRow[] = [];
  const maybeErrorLog: ExpectedErrorRow[] = [];
  const fates = new Map<string, Map<number, LineFate>>();
  const refusedFiles: string[] = [];
  const loadedFiles: string[] = [];
  const filesOfKey = new Map<string, Set<string>>();
  const repeatedInFile = new Set<string>();
  /** Per key, in load order over all rounds: was each line that reached the stage a valid order? */
  const history = new Map<string, boolean[]>();
  let lines = 0;
  let keptFromEarlier = 0;
  const siteRefusals = { staging: 0, merge: 0 };

  const fate = (file: string, lineNo: number, f: LineFate) => {
    let m = fates.get(file);
    if (m === undefined) fates.set(file, (m = new Map<number, LineFate>()));
    m.set(lineNo, f);
  };

  for (const round of rounds) {
    for (const file of [...round].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const outcomes = fileLines(file);
      if (outcomes === null) {
        refusedFiles.push(file.name);
        continue;
      }
      loadedFiles.push(file.name);
      lines += outcomes.length;
      const last = new Map<string, LineOutcome & { key: string }>();
      /** Per key, this file's lines refused while staging since its last line that reached the stage. */
      const refusedSince = new Map<string, ExpectedErrorRow[]>();
      const linesOfKey = new Map<string, Array<LineOutcome & { key: string }>>();
      for (const o of outcomes) {
        if (o.kind === 'rejected') {
          errorLog.push({ phase: 'PARSE', code: o.code, file: file.name, lineNo: o.lineNo, key: null });
          fate(file.name, o.lineNo, 'rejected');
          continue;
        }
        if (o.kind === 'parse-error') errorLog.push({ phase: 'PARSE', code: o.code, file: file.name, lineNo: o.lineNo, key: o.key });
        if (refusedWhileStaging(o, rules)) {
          // refused by the database while staging: dropped alone, as a rejected line
          const refusal: ExpectedErrorRow = {
            phase: 'PARSE',
            code: rules.stage?.code ?? '',
            file: file.name,
            lineNo: o.lineNo,
            key: o.key,
          };
          (refusedSince.get(o.key) ?? refusedSince.set(o.key, []).get(o.key))?.push(refusal);
          fate(file.name, o.lineNo, 'rejected');
          siteRefusals.staging++;
          continue;
        }
        for (const refusal of refusedSince.get(o.key) ?? []) {
          maybeErrorLog.push(refusal);
          fate(file.name, refusal.lineNo, 'overridden');
        }
        refusedSince.delete(o.key);
        const previous = last.get(o.key);
        if (previous !== undefined) {
          fate(file.name, previous.lineNo, 'overridden');
          repeatedInFile.add(o.key);
        }
        last.set(o.key, o);
        const list = linesOfKey.get(o.key) ?? [];
        list.push(o);
        linesOfKey.set(o.key, list);
        (filesOfKey.get(o.key) ?? filesOfKey.set(o.key, new Set()).get(o.key))?.add(file.name);
        const valid = o.kind === 'row' && validationCode(o.values) === null && mergeRefusal(o.values, rules) === null;
        (history.get(o.key) ?? history.set(o.key, []).get(o.key))?.push(valid);
      }
      for (const refusals of refusedSince.values()) errorLog.push(...refusals);
      for (const [key, o] of last) {
        const prior = stage.get(key);
        if (prior !== undefined && prior.holder.file !== file.name) fate(prior.holder.file, prior.holder.lineNo, 'overridden');
        if (o.kind === 'parse-error') {
          stage.set(key, {
            status: 'ERROR',
            values: { customerId: null, orderDate: null, amount: null, currency: null },
            errorCode: o.code,
            file: file.name,
            lineNo: o.lineNo,
            attempts: prior?.attempts ?? 0,
            holder: { file: file.name, lineNo: o.lineNo },
          });
          fate(file.name, o.lineNo, 'staged');
          continue;
        }
        if (o.kind !== 'row') continue;
        const parseErrorRow = prior?.status === 'ERROR' && (prior.errorCode ?? '').startsWith('PARSE');
        if (prior !== undefined && !parseErrorRow && sameValues(prior.values, o.values)) {
          // Untouched. If an earlier line of the key in this file differed, a batch boundary
          // between the two (which a kill and resume moves) decides whether the row changed.
          if ((linesOfKey.get(key) ?? []).some((l) => l.kind !== 'row' || !sameValues(l.values, o.values)))
            throw new Error(`expected-state: ${file.name} line ${o.lineNo} (${key}): outcome depends on staging batch boundaries`);
          if (prior.status !== 'DONE') {
            prior.file = file.name;
            prior.lineNo = o.lineNo;
            prior.holder = { file: file.name, lineNo: o.lineNo };
          }
          fate(file.name, o.lineNo, 'unchanged');
          continue;
        }
        stage.set(key, {
          status: 'READY',
          values: o.values,
          errorCode: null,
          file: file.name,
          lineNo: o.lineNo,
          attempts: prior?.attempts ?? 0,
          holder: { file: file.name, lineNo: o.lineNo },
        });
        fate(file.name, o.lineNo, 'staged');
      }
    }
    // processing, once the round's files are all staged
    for (const [key, row] of stage) {
      if (row.status !== 'READY') continue;
      row.attempts++;
      const invalid = validationCode(row.values);
      const refused = invalid === null ? mergeRefusal(row.values, rules) : null;
      if (refused !== null && refused !== dbCode('overflow')) siteRefusals.merge++;
      if (invalid === null && refused === null) {
        row.status = 'DONE';
        orders.set(key, row.values);
        continue;
      }
      row.status = 'ERROR';
      row.errorCode = invalid ?? refused;
      errorLog.push({ phase: invalid !== null ? 'VALIDATE' : 'MERGE', code: row.errorCode ?? '', file: row.file, lineNo: row.lineNo, key });
      if (orders.has(key)) keptFromEarlier++;
    }
  }

  let lastValidAfterRejected = 0;
  let lastRejectedAfterValid = 0;
  for (const valid of history.values()) {
    const last = valid.at(-1);
    const earlier = valid.slice(0, -1);
    if (last === true && earlier.includes(false)) lastValidAfterRejected++;
    if (last === false && earlier.includes(true)) lastRejectedAfterValid++;
  }
  const plainStage = new Map<string, ExpectedStageRow>();
  for (const [key, { holder: _holder, ...row }] of stage) plainStage.set(key, row);
  return {
    stage: plainStage,
    orders,
    errorLog,
    maybeErrorLog,
    refusedFiles,
    loadedFiles,
    fates,
    stats: {
      lines,
      keysAcrossFiles: [...filesOfKey.values()].filter((s) => s.size > 1).length,
      keysRepeatedInAFile: repeatedInFile.size,
      lastValidAfterRejected,
      lastRejectedAfterValid,
      ordersKeptFromEarlierRound: keptFromEarlier,
    },
    siteRefusals,
  };
}
