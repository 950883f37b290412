import { UserError } from '../../errors.js';
import type { OraBindDef, OraBinds, OraConstants } from './oracledb-types.js';
import { int } from './rows.js';
import { byteLength } from './sql-text.js';

/**
 * How values are bound on Oracle: the bind definitions (types and byte sizes), the value
 * binds, the slot lists of the queries that take a list of ids or codes, and the limits.
 *
 * Values cross the engine interface as text and are bound as text; the SQL converts them with
 * explicit formats (TO_NUMBER(..., 'NLS_NUMERIC_CHARACTERS=''.,'''), TO_DATE(..., 'YYYY-MM-DD'))
 * so that no session NLS setting changes their meaning.
 */

/** NJS-141: more than 65,535 batch errors in one executeMany cannot be reported. Also the
 * largest bind array any executeMany here sends. */
export const ORACLE_MAX_CHUNK = 65_535;

/** bindDefs maxSize values, in bytes (node-oracledb compares UTF-8 byte lengths): the
 * column size in characters times 4 (AL32UTF8), or a generous size for text converted by
 * TO_NUMBER / TO_DATE (the database, not the driver, should judge those). */
export const MAX_BYTES = {
  sourceKey: 400, // VARCHAR2(100 CHAR)
  numberText: 64,
  dateText: 64,
  currency: 12, // VARCHAR2(3 CHAR)
  code: 120, // VARCHAR2(30 CHAR)
  message: 4000, // VARCHAR2(1000 CHAR)
  batchId: 256, // VARCHAR2(64 CHAR)
  phase: 40, // VARCHAR2(10 CHAR)
  status: 80, // VARCHAR2(20 CHAR)
  event: 160, // VARCHAR2(40 CHAR)
  timestampText: 32,
  /** An encoding name or a delimiter, compared with a JSON_VALUE of a run's 'invoked' event (staging_history.sql). */
  readAs: 160,
  /** A dictionary name: 128 characters (12.2+). */
  identifier: 512,
  /** order_stage_audit.operator, VARCHAR2(128 CHAR). */
  operator: 512,
  /** Longest VARCHAR2 bind in SQL under MAX_STRING_SIZE = STANDARD; longer text goes to CLOB
   * columns as a CLOB bind (Binds.longText; the limit is raised where EXTENDED is detected). */
  varchar: 4000,
} as const;

/** Column sizes in characters (text is cut to them before binding), and the run message in bytes. */
export const LIMITS = {
  sourceKey: 100,
  code: 30,
  message: 1000,
  batchId: 64,
  event: 40,
  command: 20,
  fileName: 1000,
  host: 255,
  runMessageBytes: 4000,
  operator: 128,
  reason: 1000,
} as const;

/** Bind slots :id1..:id20 (and :<name>1..:<name>20) of the queries that take a list. */
export const ID_SLOTS = 20;

function fitsVarchar(value: string | null, limitBytes: number): boolean {
  return value === null || byteLength(value) <= limitBytes;
}

/**
 * The rows of one executeMany split into consecutive runs whose long-text columns take the
 * same bind type (Binds.longText): one call per run, so that only rows with a value over
 * `limitBytes` (Binds.varcharLimit) are bound as CLOB. The rows keep their order (identity
 * columns number them in it).
 */
export function textRuns<R>(rows: readonly R[], texts: (row: R) => readonly (string | null)[], limitBytes: number): R[][] {
  const runs: R[][] = [];
  let key: string | undefined;
  for (const row of rows) {
    const rowKey = texts(row)
      .map((v) => (fitsVarchar(v, limitBytes) ? 'v' : 'c'))
      .join('');
    const last = runs.at(-1);
    if (last !== undefined && rowKey === key) last.push(row);
    else runs.push([row]);
    key = rowKey;
  }
  return runs;
}

export function slices<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** A stage bind's attributes (JSON text or NULL). */
export function attributesOf(v: OraBinds): string | null {
  return typeof v.attributes === 'string' ? v.attributes : null;
}

/** One executeMany's rows: `start`, the index of its first row in the batch (batch error offsets are the run's). */
export interface BindRun {
  start: number;
  part: OraBinds[];
}

/**
 * The executeMany calls of a staging batch's inserts (into order_stage_batch, and straight into
 * order_stage): at most ORACLE_MAX_CHUNK rows each, and split where the attributes' bind type
 * changes ({@link textRuns}: VARCHAR2 while every value fits the database's VARCHAR2 limit, a CLOB
 * bind, a temporary LOB per value, only for the rows whose attributes pass it). One call for the
 * whole batch would bind every row's attributes as a CLOB as soon as one passes the limit: a
 * temporary LOB, two round trips, per non-empty value (lib/thin/connection.js, the CLOB binds'
 * loop), about 10,000 round trips for a 5,000-line batch. A batch without attributes is one
 * call per ORACLE_MAX_CHUNK rows.
 */
export function attributeRuns(values: readonly OraBinds[], binds: Binds): BindRun[] {
  const runs: BindRun[] = [];
  let start = 0;
  for (const slice of slices(values, ORACLE_MAX_CHUNK)) {
    for (const part of binds.textRuns(slice, (v) => [attributesOf(v)])) {
      runs.push({ start, part });
      start += part.length;
    }
  }
  return runs;
}

type BindValue<V> = OraBindDef & { val: V };

/** The bind definitions and value binds, written once over the driver's type constants. */
export class Binds {
  /**
   * The longest text bound as VARCHAR2 into a CLOB column, in bytes: 4000, or 32767 once the
   * engine found MAX_STRING_SIZE = EXTENDED when it opened (string-size.ts).
   */
  varcharLimit: number = MAX_BYTES.varchar;

  constructor(readonly c: OraConstants) {}

  /** {@link textRuns} at this database's VARCHAR2 limit. */
  textRuns<R>(rows: readonly R[], texts: (row: R) => readonly (string | null)[]): R[][] {
    return textRuns(rows, texts, this.varcharLimit);
  }

  number(): OraBindDef {
    return { type: this.c.DB_TYPE_NUMBER };
  }

  varchar(maxSize: number): OraBindDef {
    return { type: this.c.DB_TYPE_VARCHAR, maxSize };
  }

  /**
   * VARCHAR2 bind when every value fits {@link varcharLimit} bytes (4000, or 32767 under
   * MAX_STRING_SIZE = EXTENDED: the common case), else a CLOB bind. A CLOB bind costs a
   * temporary LOB per value (two round trips each: create, write; lib/thin/connection.js), so
   * calls over many rows bind CLOB only for the rows that need it (see {@link textRuns}).
   */
  longText(values: readonly (string | null)[]): OraBindDef {
    const limit = this.varcharLimit;
    return values.every((v) => fitsVarchar(v, limit)) ? this.varchar(limit) : { type: this.c.DB_TYPE_CLOB };
  }

  /** The columns every order_bulk_error insert binds (the chunk's failures, staging's rejects). */
  errorLogDefs(): Record<string, OraBindDef> {
    return {
      stage_id: this.number(),
      source_key: this.varchar(MAX_BYTES.sourceKey),
      load_id: this.number(),
      line_no: this.number(),
      batch_id: this.varchar(MAX_BYTES.batchId),
      attempt_no: this.number(),
      phase: this.varchar(MAX_BYTES.phase),
      error_code: this.varchar(MAX_BYTES.code),
      error_message: this.varchar(MAX_BYTES.message),
    };
  }

  num(val: number | null): BindValue<number | null> {
    return { val, ...this.number() };
  }

  str(val: string | null, maxSize: number): BindValue<string | null> {
    return { val, ...this.varchar(maxSize) };
  }

  longStr(val: string | null): BindValue<string | null> {
    return { val, ...this.longText([val]) };
  }

  /** An OUT bind of a NUMBER (RETURNING ... INTO). */
  outNumber(): OraBindDef {
    return { dir: this.c.BIND_OUT, type: this.c.DB_TYPE_NUMBER };
  }

  /** An OUT bind of a VARCHAR2 of at most `maxSize` bytes (a PL/SQL block's OUT parameter). */
  outVarchar(maxSize: number): OraBindDef {
    return { dir: this.c.BIND_OUT, type: this.c.DB_TYPE_VARCHAR, maxSize };
  }

  /** The bind sets that together cover these slot lists (see {@link slotCombinations}). */
  slotSets(lists: readonly SlotList[]): OraBinds[] {
    return slotCombinations(this.c, lists);
  }

  /** :id1..:id20 for one slice (at most ID_SLOTS ids), unused slots NULL. */
  idSlots(ids: readonly number[]): OraBinds {
    const binds: OraBinds = {};
    for (let i = 0; i < ID_SLOTS; i++) binds[`id${i + 1}`] = this.num(ids[i] ?? null);
    return binds;
  }
}

/**
 * A list bound into the slots of lock_error_rows.sql / error_rows.sql: `null` when the list
 * is not given (:by_<name> = 0), else its values (:by_<name> = 1). `maxSize` set: VARCHAR2
 * slots of that many bytes; unset: NUMBER slots.
 */
export interface SlotList {
  name: string;
  values: readonly (number | string)[] | null;
  maxSize?: number | undefined;
}

/** :by_<name> and :<name>1..:<name>20 for one slice (at most ID_SLOTS values) of a list. */
export function slotBinds(c: OraConstants, name: string, part: readonly (number | string)[] | null, maxSize?: number): OraBinds {
  if (part !== null && part.length > ID_SLOTS) throw new Error(`Oracle engine: more than ${ID_SLOTS} values for the ${name} slots`);
  const binds: OraBinds = { [`by_${name}`]: { val: part === null ? 0 : 1, type: c.DB_TYPE_NUMBER } };
  for (let i = 0; i < ID_SLOTS; i++) {
    const val = part?.[i] ?? null;
    binds[`${name}${i + 1}`] = maxSize === undefined ? { val, type: c.DB_TYPE_NUMBER } : { val, type: c.DB_TYPE_VARCHAR, maxSize };
  }
  return binds;
}

/**
 * The most bind sets (executions) one slot-list query may take. Lists longer than ID_SLOTS
 * multiply (⌈n₁/20⌉ × ⌈n₂/20⌉ × …): one long list of 1280 values is 64 executions, two lists
 * of 160 values are 64; past this the query is refused before anything is sent, rather than
 * run thousands of times per batch.
 */
export const MAX_SLOT_SETS = 64;

/**
 * The bind sets that together cover some slot lists: every combination of one ID_SLOTS-sized
 * slice of each given list. The slices of a list are disjoint (values de-duplicated first)
 * and a row has one value per column, so each row matches exactly one combination: the union
 * of the executions' rows is the answer, with no duplicates. One list of up to 20 values (the
 * common case) is one execution. More than MAX_SLOT_SETS combinations: a UserError naming the
 * lists' sizes.
 */
export function slotCombinations(c: OraConstants, lists: readonly SlotList[]): OraBinds[] {
  const sizes = lists.map((l) => (l.values === null ? 0 : new Set(l.values).size));
  const count = sizes.reduce((n, size) => n * Math.max(1, Math.ceil(size / ID_SLOTS)), 1);
  if (count > MAX_SLOT_SETS) {
    const given = lists.flatMap((l, i) => (l.values === null ? [] : [`${sizes[i] ?? 0} ${l.name} values`])).join(', ');
    throw new UserError(
      `Oracle: the selection (${given}) needs ${count} queries (lists of more than ${ID_SLOTS} values multiply); at most ${MAX_SLOT_SETS}: give fewer values, or run the command once per part of a list`,
    );
  }
  let combos: OraBinds[] = [{}];
  for (const list of lists) {
    const parts = list.values === null ? [null] : slices([...new Set(list.values)], ID_SLOTS);
    const next: OraBinds[] = [];
    for (const combo of combos) {
      for (const part of parts) next.push({ ...combo, ...slotBinds(c, list.name, part, list.maxSize) });
    }
    combos = next;
  }
  return combos;
}

/** A selector list as slot values: undefined or empty = not given (null). Integers are checked. */
export function idList(values: readonly number[] | undefined, what: string): number[] | null {
  return values === undefined || values.length === 0 ? null : values.map((v) => int(v, what));
}

/** A text selector list: undefined or empty = not given (null). Values longer than the column
 * (`maxChars`) cannot match a row and are left out, so a given list may come back empty. */
export function textList(values: readonly string[] | undefined, maxChars: number): string[] | null {
  if (values === undefined || values.length === 0) return null;
  return values.filter((v) => Array.from(v).length <= maxChars);
}

/** Slot lists of which a given one has no value that can match: the AND matches no row. */
export function matchesNothing(lists: readonly SlotList[]): boolean {
  return lists.some((l) => l.values !== null && l.values.length === 0);
}

/** Checked before binding, so that the driver never fails a whole executeMany with NJS-058:
 * text longer than its bind can hold cannot be a valid value. `where` names the row ("line 4",
 * "stage row 7"), never the value. */
export function checkValueSizes(
  what: string,
  where: string,
  sourceKey: string,
  values: { customerId: string | null; orderDate: string | null; amount: string | null; currency: string | null },
): void {
  if (Array.from(sourceKey).length > LIMITS.sourceKey) {
    throw new Error(`${what}: the source_key of ${where} is longer than ${LIMITS.sourceKey} characters`);
  }
  for (const [name, value, max] of [
    ['customer_id', values.customerId, MAX_BYTES.numberText],
    ['order_date', values.orderDate, MAX_BYTES.dateText],
    ['amount', values.amount, MAX_BYTES.numberText],
    ['currency', values.currency, MAX_BYTES.currency],
  ] as const) {
    if (value !== null && byteLength(value) > max) {
      throw new Error(`${what}: the ${name} of ${where} is too long to be a valid value`);
    }
  }
}
