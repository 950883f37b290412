import { UserError } from '../../errors.js';
import type {
  ChunkFinalization,
  ClaimQuery,
  ClaimedRow,
  Engine,
  EngineTx,
  ErrorLogInput,
  ErrorPhase,
  ErrorRowReport,
  FailureKind,
  FileLayout,
  KeysetWindow,
  LatestRawRecord,
  ManualChange,
  MergeOptions,
  ProcessStatus,
  RejectedLine,
  RowFailure,
  RowSelector,
  RunCounts,
  RunEventInput,
  RunEventRecord,
  RunRecord,
  RunStart,
  RunStatus,
  StageBatchCounts,
  StageInput,
  StageRowSnapshot,
  StagingHistory,
  StatusReport,
  StatusTally,
} from '../types.js';
import { classifyOracleCode, classifyOracleError, oracleCodeFromMessage, primaryOracleCode } from './classify.js';
import { loadOracledb } from './driver.js';
import type { OraBindDef, OraBinds, OraColumnMeta, OraConnection, OraConstants, OraExecuteOptions, OraPool } from './driver.js';
import { runOracleMigrations } from './migrate.js';
import { fileLayoutFromInvoked, parseJsonObject, stagingHistoryFromEvents } from '../run-events.js';
import { byteLength, cutBytes, cutChars, nonEmpty, oracleQuery, parseUtcText, utcTimestampText } from './sql-text.js';

/**
 * The Oracle engine (node-oracledb 6, thin mode). Same behaviour as the PostgreSQL engine,
 * behind the same interface; the SQL is in sql/oracle/queries/.
 *
 * Values cross the interface as text and are bound as text; the SQL converts them with
 * explicit formats (TO_NUMBER(..., 'NLS_NUMERIC_CHARACTERS=''.,'''), TO_DATE(..., 'YYYY-MM-DD'))
 * and returns them with TO_CHAR, so no session NLS setting changes their meaning. Every
 * NUMBER and CLOB column is fetched as a string (fetchTypeHandler): nothing goes through a
 * JavaScript float.
 *
 * Every statement runs with autoCommit: false; a transaction commits once, at its end.
 */

/** NJS-141: more than 65,535 batch errors in one executeMany cannot be reported. */
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
  /** Longest VARCHAR2 bind in SQL; longer text goes to CLOB columns as a CLOB bind. */
  varchar: 4000,
} as const;

const LIMITS = {
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

/** bindDefs maxSize of order_stage_audit.operator, VARCHAR2(128 CHAR). */
const OPERATOR_MAX_BYTES = 512;

type Row = Record<string, unknown>;

function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return String(value);
}

function int(value: unknown, what: string): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`Oracle engine: ${what} is not an integer`);
  return n;
}

function intOrNull(value: unknown, what: string): number | null {
  return value === null || value === undefined ? null : int(value, what);
}

function slices<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Bind slots :id1..:id20 of tally_loads.sql / run_events_list.sql. */
const ID_SLOTS = 20;

/**
 * A list bound into the slots of lock_error_rows.sql / error_rows.sql: `null` when the list
 * is not given (:by_<name> = 0), else its values (:by_<name> = 1). `maxSize` set: VARCHAR2
 * slots of that many bytes; unset: NUMBER slots.
 */
interface SlotList {
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
 * The bind sets that together cover some slot lists: every combination of one ID_SLOTS-sized
 * slice of each given list. The slices of a list are disjoint (values de-duplicated first)
 * and a row has one value per column, so each row matches exactly one combination: the union
 * of the executions' rows is the answer, with no duplicates. One list of up to 20 values (the
 * common case) is one execution.
 */
export function slotCombinations(c: OraConstants, lists: readonly SlotList[]): OraBinds[] {
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
function idList(values: readonly number[] | undefined, what: string): number[] | null {
  return values === undefined || values.length === 0 ? null : values.map((v) => int(v, what));
}

/** A text selector list: undefined or empty = not given (null). Values longer than the column
 * (`maxChars`) cannot match a row and are left out, so a given list may come back empty. */
function textList(values: readonly string[] | undefined, maxChars: number): string[] | null {
  if (values === undefined || values.length === 0) return null;
  return values.filter((v) => Array.from(v).length <= maxChars);
}

/** :id1..:id20 for one slice (at most ID_SLOTS ids) of latest_raw_records.sql / file_layouts.sql. */
function idSlotBinds(c: OraConstants, ids: readonly number[]): OraBinds {
  const binds: OraBinds = {};
  for (let i = 0; i < ID_SLOTS; i++) binds[`id${i + 1}`] = { val: ids[i] ?? null, type: c.DB_TYPE_NUMBER };
  return binds;
}

/** A stage row as lock_error_rows.sql / lock_stale_processing.sql / error_rows.sql return it. */
function stageSnapshot(r: Row): StageRowSnapshot {
  return {
    stageId: int(r.STAGE_ID, 'stage_id'),
    sourceKey: String(r.SOURCE_KEY),
    customerId: text(r.CUSTOMER_ID),
    orderDate: text(r.ORDER_DATE),
    amount: text(r.AMOUNT),
    currency: text(r.CURRENCY),
    status: String(r.PROCESS_STATUS) as ProcessStatus,
    attemptCount: int(r.ATTEMPT_COUNT, 'attempt_count'),
    loadId: intOrNull(r.LOAD_ID, 'load_id'),
    lineNo: intOrNull(r.LINE_NO, 'line_no'),
    errorCode: text(r.ERROR_CODE),
    errorMessage: text(r.ERROR_MESSAGE),
    updatedAt: parseUtcText(r.UPDATED_AT) ?? new Date(0),
  };
}

/** A load_run row as runs_list.sql / runs_running.sql return it. */
function runRecord(r: Row): RunRecord {
  return {
    runId: int(r.RUN_ID, 'run_id'),
    command: String(r.COMMAND),
    fileName: text(r.FILE_NAME),
    fileSize: intOrNull(r.FILE_SIZE, 'file_size'),
    fileSha256: text(r.FILE_SHA256),
    host: String(r.HOST),
    pid: int(r.PID, 'pid'),
    status: String(r.STATUS) as RunStatus,
    startedAt: parseUtcText(r.STARTED_AT) ?? new Date(0),
    finishedAt: parseUtcText(r.FINISHED_AT),
    counts: parseJsonObject(text(r.COUNTS)) as RunCounts | null,
    message: text(r.MESSAGE),
  };
}

function byStageId(rows: readonly StageRowSnapshot[]): StageRowSnapshot[] {
  return [...rows].sort((a, b) => a.stageId - b.stageId);
}

/** A failure of a whole executeMany that names the row it is about: node-oracledb's
 * bind checks (lib/transformer.js) report the 0-based index of the offending row. */
export function bindErrorRowIndex(error: unknown, rowCount: number): number | undefined {
  const message = error instanceof Error ? error.message : String(error);
  const code = primaryOracleCode(error);
  let m: RegExpExecArray | null = null;
  if (code === 'NJS-058') m = /\bin row (\d+)\b/.exec(message); // maxSize of %d is too small for value of length %d in row %d
  else if (code === 'NJS-037' || code === 'NJS-052') m = /\bat array index (\d+)\b/.exec(message); // invalid data type at array index %d ...
  if (m?.[1] === undefined) return undefined;
  const index = Number(m[1]);
  return Number.isInteger(index) && index >= 0 && index < rowCount ? index : undefined;
}

/** An error the database server raised (an ORA code), as opposed to a driver check on the
 * client (NJS-058 maxSize, NJS-011 type mismatch, ...) that names or implies a row. */
export function isServerError(error: unknown): boolean {
  return primaryOracleCode(error).startsWith('ORA-');
}

/** Thrown when a batch error of the MERGE carries a fatal code (e.g. ORA-01653 out of space):
 * no row is at fault, the chunk must roll back. The message holds the code only. */
export class OracleChunkError extends Error {
  override readonly name = 'OracleChunkError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class OracleTx implements EngineTx {
  constructor(
    private readonly connection: OraConnection,
    private readonly c: OraConstants,
    private readonly queryOptions: OraExecuteOptions,
  ) {}

  private varchar(maxSize: number): OraBindDef {
    return { type: this.c.DB_TYPE_VARCHAR, maxSize };
  }

  private number(): OraBindDef {
    return { type: this.c.DB_TYPE_NUMBER };
  }

  /** VARCHAR2 bind when every value fits 4000 bytes (the common case), else a CLOB bind. */
  private longText(values: readonly (string | null)[]): OraBindDef {
    const fits = values.every((v) => v === null || byteLength(v) <= MAX_BYTES.varchar);
    return fits ? this.varchar(MAX_BYTES.varchar) : { type: this.c.DB_TYPE_CLOB };
  }

  async stageBatch(loadId: number, rows: StageInput[]): Promise<StageBatchCounts> {
    if (rows.length === 0) return { inserted: 0, updated: 0, unchanged: 0, unchangedError: 0, repeatedInLoad: 0 };
    const binds: OraBinds[] = rows.map((r) => {
      const bind = {
        source_key: r.sourceKey,
        customer_id: r.customerId,
        order_date: r.orderDate,
        amount: r.amount,
        currency: r.currency,
        line_no: r.lineNo,
        parse_code: r.parseError === undefined ? null : cutChars(nonEmpty(r.parseError.code, 'PARSE'), LIMITS.code),
        parse_message: r.parseError === undefined ? null : cutChars(nonEmpty(r.parseError.message, '(no message)'), LIMITS.message),
      };
      // Checked here so that the driver never throws NJS-058 for the whole batch; a failed
      // batch is the same outcome as on PostgreSQL (varchar(100) / cast errors), with a clear
      // message that names the line, never the value.
      if (Array.from(r.sourceKey).length > LIMITS.sourceKey) {
        throw new Error(`stage batch: the source_key of line ${r.lineNo} is longer than ${LIMITS.sourceKey} characters`);
      }
      for (const [name, value, max] of [
        ['customer_id', r.customerId, MAX_BYTES.numberText],
        ['order_date', r.orderDate, MAX_BYTES.dateText],
        ['amount', r.amount, MAX_BYTES.numberText],
        ['currency', r.currency, MAX_BYTES.currency],
      ] as const) {
        if (value !== null && byteLength(value) > max) {
          throw new Error(`stage batch: the ${name} of line ${r.lineNo} is too long to be a valid value`);
        }
      }
      return bind;
    });
    const bindDefs: Record<string, OraBindDef> = {
      source_key: this.varchar(MAX_BYTES.sourceKey),
      customer_id: this.varchar(MAX_BYTES.numberText),
      order_date: this.varchar(MAX_BYTES.dateText),
      amount: this.varchar(MAX_BYTES.numberText),
      currency: this.varchar(MAX_BYTES.currency),
      line_no: this.number(),
      parse_code: this.varchar(MAX_BYTES.code),
      parse_message: this.varchar(MAX_BYTES.message),
    };
    await this.connection.execute(oracleQuery('stage_batch_clear'), {}, { autoCommit: false });
    for (const part of slices(binds, ORACLE_MAX_CHUNK)) {
      await this.connection.executeMany(oracleQuery('stage_batch_insert'), part, { autoCommit: false, bindDefs });
    }
    const counted = await this.connection.execute(
      oracleQuery('stage_batch_counts'),
      { load_id: { val: loadId, type: this.c.DB_TYPE_NUMBER } },
      this.queryOptions,
    );
    const row = (counted.rows?.[0] ?? undefined) as Row | undefined;
    if (row === undefined) throw new Error('stage batch: the count query returned no row');
    await this.connection.execute(
      oracleQuery('stage_batch_merge'),
      { load_id: { val: loadId, type: this.c.DB_TYPE_NUMBER } },
      { autoCommit: false },
    );
    return {
      inserted: int(row.INSERTED, 'inserted'),
      updated: int(row.UPDATED, 'updated'),
      unchanged: int(row.UNCHANGED, 'unchanged'),
      unchangedError: int(row.UNCHANGED_ERROR, 'unchanged_error'),
      repeatedInLoad: int(row.REPEATED_IN_LOAD, 'repeated_in_load'),
    };
  }

  /**
   * The claim: a FOR UPDATE SKIP LOCKED cursor (queries/claim.sql) executed with
   * resultSet: true, read with exactly one getRows(n), then closed. With SKIP LOCKED, Oracle
   * locks rows as they are fetched, so the rows locked are the rows returned: prefetchRows and
   * fetchArraySize are both n, so the driver asks the server for n rows at most (thin mode
   * fetches only the difference if the prefetch returned fewer, lib/thin/resultSet.js).
   * Chosen over a PL/SQL block with BULK COLLECT ... LIMIT n because it needs no PL/SQL
   * collection out-binds, keeps the SQL a plain query a DBA can run, and costs one round trip
   * (the rows come back with the execute). Not FETCH FIRST (ORA-02014 with FOR UPDATE), not
   * ROWNUM <= n (applied before the locked rows are skipped: fewer rows than n).
   */
  async claimChunk(query: ClaimQuery): Promise<ClaimedRow[]> {
    const limit = Math.min(Math.floor(query.limit), ORACLE_MAX_CHUNK);
    if (!(limit > 0)) return [];
    let loadIds: string | null = null;
    if (query.loadIds !== undefined) {
      if (query.loadIds.length === 0) return [];
      loadIds = `,${query.loadIds.map((id) => int(id, 'load id')).join(',')},`;
      if (loadIds.length > MAX_BYTES.varchar) throw new Error('claim: too many load ids for one claim');
    }
    const result = await this.connection.execute(
      oracleQuery('claim'),
      {
        after_stage_id: { val: int(query.afterStageId, 'afterStageId'), type: this.c.DB_TYPE_NUMBER },
        load_ids: { val: loadIds, type: this.c.DB_TYPE_VARCHAR, maxSize: MAX_BYTES.varchar },
      },
      { ...this.queryOptions, resultSet: true, fetchArraySize: limit, prefetchRows: limit },
    );
    const resultSet = result.resultSet;
    if (resultSet === undefined) throw new Error('claim: the query returned no result set');
    let rows: unknown[];
    try {
      rows = await resultSet.getRows(limit);
    } finally {
      await resultSet.close();
    }
    return (rows as Row[]).map((r) => ({
      stageId: int(r.STAGE_ID, 'stage_id'),
      sourceKey: String(r.SOURCE_KEY),
      customerId: text(r.CUSTOMER_ID),
      orderDate: text(r.ORDER_DATE),
      amount: text(r.AMOUNT),
      currency: text(r.CURRENCY),
      attemptCount: int(r.ATTEMPT_COUNT, 'attempt_count'),
      loadId: intOrNull(r.LOAD_ID, 'load_id'),
      lineNo: intOrNull(r.LINE_NO, 'line_no'),
    }));
  }

  /**
   * One executeMany of queries/merge_orders.sql with batchErrors: true. Each
   * batchErrors[i].offset indexes the bind array, i.e. the row passed at that position.
   * A batch error with a fatal code (out of space, ...) fails the chunk, and so does an ORA
   * error thrown for the whole call (a statement-level error). If the call throws as a whole
   * with a driver (NJS) error, the rows are isolated: a driver bind error that
   * names its row (NJS-058 "in row n", NJS-037/052 "at array index n") fails that row and the
   * rest is re-run; any other error splits the block in halves, down to single rows. Re-running
   * rows already merged is harmless (the MERGE of an identical row updates nothing).
   * `options.isolationBlock` is not needed: Oracle reports failing rows itself.
   */
  async mergeOrders(rows: ClaimedRow[], _options: MergeOptions): Promise<RowFailure[]> {
    const failures: RowFailure[] = [];
    const work: ClaimedRow[][] = slices(rows, ORACLE_MAX_CHUNK).reverse();
    while (work.length > 0) {
      const block = work.pop();
      if (block === undefined || block.length === 0) continue;
      let batchErrors;
      try {
        const result = await this.connection.executeMany(
          oracleQuery('merge_orders'),
          block.map((r) => ({ stage_id: r.stageId })),
          { autoCommit: false, batchErrors: true, bindDefs: { stage_id: this.number() } },
        );
        batchErrors = result.batchErrors ?? [];
      } catch (error) {
        if (classifyOracleError(error) === 'fatal') throw error;
        // With batchErrors every error the server raises for a row comes back in batchErrors;
        // an ORA error thrown for the whole call is about the statement (ORA-00942, ORA-01031,
        // ORA-00904, an unusable index, a deadlock on the call, ...), not about any row, and
        // no transaction was started for it. Isolating it would mark every row of the chunk
        // ERROR (and commit that): the chunk fails instead (retried when transient).
        if (isServerError(error)) throw error;
        const index = bindErrorRowIndex(error, block.length);
        if (index !== undefined) {
          const bad = block[index];
          if (bad !== undefined) failures.push(this.failureOf(bad, primaryOracleCode(error), error));
          const rest = block.filter((_, i) => i !== index);
          if (rest.length > 0) work.push(rest);
        } else if (block.length === 1) {
          const only = block[0];
          if (only !== undefined) failures.push(this.failureOf(only, primaryOracleCode(error), error));
        } else {
          const middle = Math.ceil(block.length / 2);
          work.push(block.slice(middle), block.slice(0, middle)); // first half runs first
        }
        continue;
      }
      for (const batchError of batchErrors) {
        const row = block[batchError.offset];
        if (row === undefined) throw new Error(`merge: batch error offset ${batchError.offset} outside the ${block.length} rows bound`);
        const code = oracleCodeFromMessage(batchError.message);
        if (classifyOracleCode(code) === 'fatal') {
          throw new OracleChunkError(code, `merge into orders: ${code} reported for a row; the chunk is rolled back`);
        }
        failures.push(this.failureOf(row, code, batchError.message));
      }
    }
    return failures;
  }

  private failureOf(row: ClaimedRow, code: string, cause: unknown): RowFailure {
    const message = typeof cause === 'string' ? cause : cause instanceof Error ? cause.message : String(cause);
    const kind = code.startsWith('ORA-') ? classifyOracleCode(code) : classifyOracleError(cause);
    return {
      stageId: row.stageId,
      code: cutChars(code, LIMITS.code),
      message: cutChars(nonEmpty(message.trim(), code), LIMITS.message),
      kind: kind === 'transient' ? 'transient' : 'rejected',
    };
  }

  async finalizeChunk(chunk: ChunkFinalization): Promise<void> {
    const batchId = cutChars(chunk.batchId, LIMITS.batchId);
    if (chunk.done.length > 0) {
      for (const part of slices(chunk.done, ORACLE_MAX_CHUNK)) {
        await this.connection.executeMany(
          oracleQuery('finalize_done'),
          part.map((stageId) => ({ stage_id: stageId, batch_id: batchId })),
          { autoCommit: false, bindDefs: { stage_id: this.number(), batch_id: this.varchar(MAX_BYTES.batchId) } },
        );
      }
    }
    if (chunk.failed.length > 0) {
      const rows = chunk.failed.map((r) => ({
        stage_id: r.stageId,
        source_key: cutChars(r.sourceKey, LIMITS.sourceKey),
        status: r.status,
        attempt_no: r.attemptNo,
        batch_id: batchId,
        load_id: r.loadId,
        line_no: r.lineNo,
        phase: r.error?.phase ?? 'MERGE',
        error_code: cutChars(nonEmpty(r.error?.code, 'UNKNOWN'), LIMITS.code),
        error_message: cutChars(nonEmpty(r.error?.message, '(no message)'), LIMITS.message),
        next_attempt_at: r.nextAttemptAt === undefined ? null : utcTimestampText(r.nextAttemptAt),
      }));
      for (const part of slices(rows, ORACLE_MAX_CHUNK)) {
        await this.connection.executeMany(
          oracleQuery('finalize_failed'),
          part.map((r) => ({
            stage_id: r.stage_id,
            status: r.status,
            attempt_no: r.attempt_no,
            batch_id: r.batch_id,
            error_code: r.error_code,
            error_message: r.error_message,
            next_attempt_at: r.next_attempt_at,
          })),
          {
            autoCommit: false,
            bindDefs: {
              stage_id: this.number(),
              status: this.varchar(MAX_BYTES.status),
              attempt_no: this.number(),
              batch_id: this.varchar(MAX_BYTES.batchId),
              error_code: this.varchar(MAX_BYTES.code),
              error_message: this.varchar(MAX_BYTES.message),
              next_attempt_at: this.varchar(MAX_BYTES.timestampText),
            },
          },
        );
        await this.connection.executeMany(
          oracleQuery('finalize_failed_log'),
          part.map((r) => ({
            stage_id: r.stage_id,
            source_key: r.source_key,
            load_id: r.load_id,
            line_no: r.line_no,
            batch_id: r.batch_id,
            attempt_no: r.attempt_no,
            phase: r.phase,
            error_code: r.error_code,
            error_message: r.error_message,
          })),
          {
            autoCommit: false,
            bindDefs: {
              stage_id: this.number(),
              source_key: this.varchar(MAX_BYTES.sourceKey),
              load_id: this.number(),
              line_no: this.number(),
              batch_id: this.varchar(MAX_BYTES.batchId),
              attempt_no: this.number(),
              phase: this.varchar(MAX_BYTES.phase),
              error_code: this.varchar(MAX_BYTES.code),
              error_message: this.varchar(MAX_BYTES.message),
            },
          },
        );
      }
    }
  }

  async logErrors(rows: ErrorLogInput[]): Promise<void> {
    if (rows.length === 0) return;
    const binds = rows.map((r) => ({
      stage_id: r.stageId,
      // The error log's source_key is VARCHAR2(100 CHAR); a longer key (the reason the line
      // was rejected) is cut here, its full text stays in raw_record.
      source_key: r.sourceKey === null ? null : cutChars(r.sourceKey, LIMITS.sourceKey),
      // the stage row is looked up by the full key only (a cut key could match another row)
      lookup_key: r.sourceKey !== null && Array.from(r.sourceKey).length <= LIMITS.sourceKey ? r.sourceKey : null,
      load_id: r.loadId,
      line_no: r.lineNo,
      batch_id: r.batchId === null ? null : cutChars(r.batchId, LIMITS.batchId),
      attempt_no: r.attemptNo,
      phase: r.phase,
      error_code: cutChars(nonEmpty(r.code, 'UNKNOWN'), LIMITS.code),
      error_message: cutChars(nonEmpty(r.message, '(no message)'), LIMITS.message),
      raw_record: r.rawRecord,
    }));
    for (const part of slices(binds, ORACLE_MAX_CHUNK)) {
      await this.connection.executeMany(oracleQuery('log_errors'), part, {
        autoCommit: false,
        bindDefs: {
          stage_id: this.number(),
          source_key: this.varchar(MAX_BYTES.sourceKey),
          lookup_key: this.varchar(MAX_BYTES.sourceKey),
          load_id: this.number(),
          line_no: this.number(),
          batch_id: this.varchar(MAX_BYTES.batchId),
          attempt_no: this.number(),
          phase: this.varchar(MAX_BYTES.phase),
          error_code: this.varchar(MAX_BYTES.code),
          error_message: this.varchar(MAX_BYTES.message),
          raw_record: this.longText(part.map((b) => b.raw_record)),
        },
      });
    }
  }

  async addRunEvent(runId: number, event: RunEventInput): Promise<void> {
    const detail = event.detail === undefined ? null : JSON.stringify(event.detail);
    await this.connection.executeMany(
      oracleQuery('run_event'),
      [{ run_id: runId, event: cutChars(event.event, LIMITS.event), detail }],
      {
        autoCommit: false,
        bindDefs: { run_id: this.number(), event: this.varchar(MAX_BYTES.event), detail: this.longText([detail]) },
      },
    );
  }

  /**
   * A `retry` batch, locked: find_error_rows.sql (no lock, FETCH FIRST) gives the first
   * `window.limit` matching rows, then queries/lock_error_rows.sql locks the matching rows of
   * the stage_id range they span, FOR UPDATE (waits for a chunk holding a row), every row of
   * the cursor fetched (plain execute: no result set, no maxRows), so every row returned is
   * locked. Oracle locks all the rows of a FOR UPDATE cursor when it opens, and FETCH FIRST
   * with FOR UPDATE is ORA-02014: the range is what bounds the locks to one batch. A row that
   * became ERROR inside the range in between is locked too (the batch is a little larger).
   */
  async lockErrorRows(selector: RowSelector, window: KeysetWindow): Promise<StageRowSnapshot[]> {
    const candidates = await this.findErrorRows(selector, window);
    const last = candidates[candidates.length - 1];
    if (last === undefined) return [];
    const range = {
      after_stage_id: { val: int(window.afterStageId, 'afterStageId'), type: this.c.DB_TYPE_NUMBER },
      up_to_stage_id: { val: last.stageId, type: this.c.DB_TYPE_NUMBER },
    };
    const rows: StageRowSnapshot[] = [];
    for (const binds of slotCombinations(this.c, this.errorRowLists(selector) ?? [])) {
      const result = await this.connection.execute(oracleQuery('lock_error_rows'), { ...binds, ...range }, this.queryOptions);
      for (const r of (result.rows ?? []) as Row[]) rows.push(stageSnapshot(r));
    }
    return byStageId(rows);
  }

  /**
   * queries/find_error_rows.sql: the rows of a `retry` batch, locking nothing (a dry run, and
   * the end of the range lockErrorRows locks). The lists are slot binds (20 per list, the
   * approach of tally_loads.sql); a longer list runs in slices, each returns at most `limit`
   * rows, and the first `limit` of their union in stage_id order are the answer.
   */
  async findErrorRows(selector: RowSelector, window: KeysetWindow): Promise<StageRowSnapshot[]> {
    const limit = Math.min(Math.floor(window.limit), Number.MAX_SAFE_INTEGER);
    const lists = this.errorRowLists(selector);
    if (!(limit > 0) || lists === null) return [];
    const rows: StageRowSnapshot[] = [];
    for (const binds of slotCombinations(this.c, lists)) {
      const result = await this.connection.execute(
        oracleQuery('find_error_rows'),
        {
          ...binds,
          after_stage_id: { val: int(window.afterStageId, 'afterStageId'), type: this.c.DB_TYPE_NUMBER },
          row_limit: { val: limit, type: this.c.DB_TYPE_NUMBER },
        },
        this.queryOptions,
      );
      for (const r of (result.rows ?? []) as Row[]) rows.push(stageSnapshot(r));
    }
    return byStageId(rows).slice(0, limit);
  }

  /** The selector as slot lists; null when a given list has no value that can match (the AND matches no row). */
  private errorRowLists(selector: RowSelector): SlotList[] | null {
    const lists: SlotList[] = [
      { name: 'stage_id', values: idList(selector.stageIds, 'stage id') },
      { name: 'source_key', values: textList(selector.sourceKeys, LIMITS.sourceKey), maxSize: MAX_BYTES.sourceKey },
      { name: 'error_code', values: textList(selector.errorCodes, LIMITS.code), maxSize: MAX_BYTES.code },
      { name: 'load_id', values: idList(selector.loadIds, 'load id') },
    ];
    return lists.some((l) => l.values !== null && l.values.length === 0) ? null : lists;
  }

  /**
   * queries/lock_stale_processing.sql: FOR UPDATE SKIP LOCKED with no row limit in the SQL;
   * one plain execute fetches every row of the cursor, and with SKIP LOCKED a row is locked
   * when it is fetched, so all the rows returned are locked by this transaction.
   */
  async lockStaleProcessing(olderThan: Date): Promise<StageRowSnapshot[]> {
    const result = await this.connection.execute(
      oracleQuery('lock_stale_processing'),
      { older_than: { val: utcTimestampText(olderThan), type: this.c.DB_TYPE_VARCHAR, maxSize: MAX_BYTES.timestampText } },
      this.queryOptions,
    );
    return ((result.rows ?? []) as Row[]).map(stageSnapshot);
  }

  /** queries/latest_raw_records.sql, per slice of 20 stage ids, in the caller's transaction. */
  async latestRawRecords(stageIds: number[]): Promise<LatestRawRecord[]> {
    const ids = [...new Set(stageIds.map((id) => int(id, 'stage id')))];
    const out: LatestRawRecord[] = [];
    for (const part of slices(ids, ID_SLOTS)) {
      const result = await this.connection.execute(oracleQuery('latest_raw_records'), idSlotBinds(this.c, part), this.queryOptions);
      for (const r of (result.rows ?? []) as Row[]) {
        out.push({ stageId: int(r.STAGE_ID, 'stage_id'), loadId: intOrNull(r.LOAD_ID, 'load_id'), rawRecord: text(r.RAW_RECORD) });
      }
    }
    return out.sort((a, b) => a.stageId - b.stageId);
  }

  /** queries/file_layouts.sql, per slice of 20 load ids, in the caller's transaction. */
  async fileLayouts(loadIds: number[]): Promise<Map<number, FileLayout>> {
    const ids = [...new Set(loadIds.map((id) => int(id, 'load id')))];
    const layouts = new Map<number, FileLayout>();
    for (const part of slices(ids, ID_SLOTS)) {
      const result = await this.connection.execute(oracleQuery('file_layouts'), idSlotBinds(this.c, part), this.queryOptions);
      for (const r of (result.rows ?? []) as Row[]) {
        const layout = fileLayoutFromInvoked(text(r.DETAIL));
        if (layout !== null) layouts.set(int(r.RUN_ID, 'run_id'), layout);
      }
    }
    return layouts;
  }

  /**
   * Two executeMany calls per slice of at most 65,535 changes, in the caller's transaction
   * (no commit here): queries/apply_manual_changes.sql (values, status, error fields cleared)
   * then queries/apply_manual_changes_audit.sql (one audit row per change whose stage row
   * exists). Values are bound as text and converted in SQL with explicit formats. Sizes are
   * checked first, so that the driver never fails a whole call with NJS-058; an error names
   * the stage row, never the value.
   */
  async applyManualChanges(changes: ManualChange[]): Promise<void> {
    if (changes.length === 0) return;
    const rows = changes.map((ch) => {
      const stageId = int(ch.stageId, 'stage id');
      if (Array.from(ch.sourceKey).length > LIMITS.sourceKey) {
        throw new Error(`manual change: the source_key of stage row ${stageId} is longer than ${LIMITS.sourceKey} characters`);
      }
      for (const [name, value, max] of [
        ['customer_id', ch.values.customerId, MAX_BYTES.numberText],
        ['order_date', ch.values.orderDate, MAX_BYTES.dateText],
        ['amount', ch.values.amount, MAX_BYTES.numberText],
        ['currency', ch.values.currency, MAX_BYTES.currency],
      ] as const) {
        if (value !== null && byteLength(value) > max) {
          throw new Error(`manual change: the ${name} of stage row ${stageId} is too long to be a valid value`);
        }
      }
      // Oracle stores '' as NULL and both columns are NOT NULL: an empty text gets a marker.
      const operator = nonEmpty(ch.operator, '(unknown)');
      const reason = nonEmpty(ch.reason, '(none)');
      if (Array.from(operator).length > LIMITS.operator) throw new Error(`manual change: the operator name is longer than ${LIMITS.operator} characters`);
      if (Array.from(reason).length > LIMITS.reason) throw new Error(`manual change: the reason is longer than ${LIMITS.reason} characters`);
      return {
        update: {
          stage_id: stageId,
          action: ch.action,
          new_status: ch.newStatus,
          customer_id: ch.values.customerId,
          order_date: ch.values.orderDate,
          amount: ch.values.amount,
          currency: ch.values.currency,
        },
        audit: {
          stage_id: stageId,
          source_key: ch.sourceKey,
          action: ch.action,
          old_status: ch.oldStatus,
          new_status: ch.newStatus,
          old_values: ch.oldValues,
          new_values: ch.newValues,
          operator,
          reason,
        },
      };
    });
    for (const part of slices(rows, ORACLE_MAX_CHUNK)) {
      await this.connection.executeMany(
        oracleQuery('apply_manual_changes'),
        part.map((r) => r.update),
        {
          autoCommit: false,
          bindDefs: {
            stage_id: this.number(),
            action: this.varchar(MAX_BYTES.status),
            new_status: this.varchar(MAX_BYTES.status),
            customer_id: this.varchar(MAX_BYTES.numberText),
            order_date: this.varchar(MAX_BYTES.dateText),
            amount: this.varchar(MAX_BYTES.numberText),
            currency: this.varchar(MAX_BYTES.currency),
          },
        },
      );
      const audit = part.map((r) => r.audit);
      await this.connection.executeMany(oracleQuery('apply_manual_changes_audit'), audit, {
        autoCommit: false,
        bindDefs: {
          stage_id: this.number(),
          source_key: this.varchar(MAX_BYTES.sourceKey),
          action: this.varchar(MAX_BYTES.status),
          old_status: this.varchar(MAX_BYTES.status),
          new_status: this.varchar(MAX_BYTES.status),
          old_values: this.longText(audit.map((a) => a.old_values)),
          new_values: this.longText(audit.map((a) => a.new_values)),
          operator: this.varchar(OPERATOR_MAX_BYTES),
          reason: this.varchar(MAX_BYTES.message),
        },
      });
    }
  }
}

export interface OracleEngineOptions {
  user: string;
  password: string | undefined;
  connectString: string;
  poolMax: number;
}

/** The Oracle engine over a pool (node-oracledb's, or a recording one in tests). */
export class OracleEngine implements Engine {
  readonly kind = 'oracle' as const;
  readonly capabilities = { concurrentConnections: true, maxChunkSize: ORACLE_MAX_CHUNK } as const;
  private readonly queryOptions: OraExecuteOptions;

  constructor(
    private readonly pool: OraPool,
    private readonly c: OraConstants,
  ) {
    const fetchTypeHandler = (meta: OraColumnMeta) =>
      meta.dbType === c.DB_TYPE_NUMBER || meta.dbType === c.DB_TYPE_CLOB ? { type: c.DB_TYPE_VARCHAR } : undefined;
    this.queryOptions = { autoCommit: false, outFormat: c.OUT_FORMAT_OBJECT, fetchTypeHandler };
  }

  classifyError(error: unknown): FailureKind {
    return classifyOracleError(error);
  }

  /** One pooled connection: fn, then COMMIT; ROLLBACK on throw; close in finally (dropped
   * from the pool when the error was fatal or the rollback itself failed). */
  async transaction<T>(fn: (tx: EngineTx) => Promise<T>): Promise<T> {
    return this.withConnection((connection) => fn(new OracleTx(connection, this.c, this.queryOptions)));
  }

  private async withConnection<T>(fn: (connection: OraConnection) => Promise<T>): Promise<T> {
    const connection = await this.pool.getConnection();
    let drop = false;
    let failed = false;
    try {
      const result = await fn(connection);
      await connection.commit();
      return result;
    } catch (error) {
      failed = true;
      if (classifyOracleError(error) === 'fatal') drop = true;
      try {
        await connection.rollback();
      } catch {
        drop = true;
      }
      throw error;
    } finally {
      try {
        await connection.close(drop ? { drop: true } : undefined);
      } catch (closeError) {
        if (!failed) throw closeError; // never hide the error that got us here
      }
    }
  }

  async migrate(): Promise<string[]> {
    return runOracleMigrations(this.pool, this.c);
  }

  private async query(connection: OraConnection, name: string, binds: OraBinds = {}): Promise<Row[]> {
    const result = await connection.execute(oracleQuery(name), binds, this.queryOptions);
    return (result.rows ?? []) as Row[];
  }

  private num(value: number | null): { val: number | null; type: unknown } {
    return { val: value, type: this.c.DB_TYPE_NUMBER };
  }

  private str(value: string | null, maxSize: number): { val: string | null; type: unknown; maxSize: number } {
    return { val: value, type: this.c.DB_TYPE_VARCHAR, maxSize };
  }

  private longStr(value: string | null): { val: string | null; type: unknown; maxSize?: number } {
    return value !== null && byteLength(value) > MAX_BYTES.varchar
      ? { val: value, type: this.c.DB_TYPE_CLOB }
      : { val: value, type: this.c.DB_TYPE_VARCHAR, maxSize: MAX_BYTES.varchar };
  }

  async startRun(run: RunStart): Promise<number> {
    return this.withConnection(async (connection) => {
      const result = await connection.execute(
        oracleQuery('run_start'),
        {
          command: this.str(cutChars(nonEmpty(run.command, '(unknown)'), LIMITS.command), 80),
          file_name: this.str(run.fileName === null ? null : cutChars(run.fileName, LIMITS.fileName), MAX_BYTES.varchar),
          file_size: this.num(run.fileSize),
          file_sha256: this.str(run.fileSha256, 64),
          host: this.str(cutChars(nonEmpty(run.host, '(unknown)'), LIMITS.host), 1020), // NOT NULL: '' is NULL
          pid: this.num(run.pid),
          run_id: { dir: this.c.BIND_OUT, type: this.c.DB_TYPE_NUMBER },
        },
        { autoCommit: false },
      );
      const out = (result.outBinds as { run_id?: unknown } | undefined)?.run_id;
      const value = Array.isArray(out) ? out[0] : out;
      return int(value, 'run_id');
    });
  }

  async finishRun(runId: number, status: RunStatus, counts: RunCounts, message: string | null): Promise<void> {
    await this.withConnection(async (connection) => {
      await connection.execute(
        oracleQuery('run_finish'),
        {
          run_id: this.num(runId),
          status: this.str(status, MAX_BYTES.status),
          counts: this.longStr(JSON.stringify(counts)),
          message: this.str(message === null ? null : cutBytes(message, LIMITS.runMessageBytes), MAX_BYTES.varchar),
        },
        { autoCommit: false },
      );
    });
  }

  async listRuns(limit: number): Promise<RunRecord[]> {
    const n = Math.max(0, Math.floor(limit));
    if (n === 0) return [];
    return this.withConnection(async (connection) => {
      const rows = await this.query(connection, 'runs_list', { row_limit: this.num(n) });
      return rows.map(runRecord);
    });
  }

  private idSlots(ids: readonly number[]): OraBinds {
    const binds: OraBinds = {};
    for (let i = 0; i < ID_SLOTS; i++) binds[`id${i + 1}`] = this.num(ids[i] ?? null);
    return binds;
  }

  async listRunEvents(runIds: number[]): Promise<RunEventRecord[]> {
    if (runIds.length === 0) return [];
    const ids = [...new Set(runIds.map((id) => int(id, 'run id')))];
    return this.withConnection(async (connection) => {
      const events: RunEventRecord[] = [];
      for (const part of slices(ids, ID_SLOTS)) {
        const rows = await this.query(connection, 'run_events_list', this.idSlots(part));
        for (const r of rows) {
          events.push({
            runId: int(r.RUN_ID, 'run_id'),
            seq: int(r.SEQ, 'seq'),
            event: String(r.EVENT),
            detail: parseJsonObject(text(r.DETAIL)),
            at: parseUtcText(r.AT_UTC) ?? new Date(0),
          });
        }
      }
      return events.sort((a, b) => a.runId - b.runId || a.seq - b.seq);
    });
  }

  async statusReport(): Promise<StatusReport> {
    return this.withConnection(async (connection) => {
      const counts = await this.query(connection, 'status_counts');
      const oldest = (await this.query(connection, 'status_oldest_ready'))[0];
      const wait = (await this.query(connection, 'status_retry_wait'))[0];
      return {
        counts: counts.map((r) => ({
          loadId: intOrNull(r.LOAD_ID, 'load_id'),
          status: String(r.PROCESS_STATUS) as ProcessStatus,
          count: int(r.N, 'count'),
        })),
        oldestReady:
          oldest === undefined
            ? null
            : { stageId: int(oldest.STAGE_ID, 'stage_id'), sourceKey: String(oldest.SOURCE_KEY), stagedAt: parseUtcText(oldest.STAGED_AT) ?? new Date(0) },
        retryWait: { count: wait === undefined ? 0 : int(wait.N, 'count'), nextDueAt: wait === undefined ? null : parseUtcText(wait.NEXT_DUE_AT) },
      };
    });
  }

  async retryWaitSummary(): Promise<StatusReport['retryWait']> {
    return this.withConnection(async (connection) => {
      const wait = (await this.query(connection, 'status_retry_wait'))[0];
      return { count: wait === undefined ? 0 : int(wait.N, 'count'), nextDueAt: wait === undefined ? null : parseUtcText(wait.NEXT_DUE_AT) };
    });
  }

  async tallyLoads(loadIds: number[]): Promise<StatusTally> {
    if (loadIds.length === 0) return {};
    const ids = [...new Set(loadIds.map((id) => int(id, 'load id')))];
    return this.withConnection(async (connection) => {
      const tally: StatusTally = {};
      for (const part of slices(ids, ID_SLOTS)) {
        for (const r of await this.query(connection, 'tally_loads', this.idSlots(part))) {
          const status = String(r.PROCESS_STATUS) as ProcessStatus;
          tally[status] = (tally[status] ?? 0) + int(r.N, 'count');
        }
      }
      return tally;
    });
  }

  async tallyBatch(batchId: string): Promise<{ tally: StatusTally; lastStageId: number | null }> {
    return this.withConnection(async (connection) => {
      const rows = await this.query(connection, 'tally_batch', { batch_id: this.str(cutChars(batchId, 64), 64) });
      const tally: StatusTally = {};
      let lastStageId: number | null = null;
      for (const r of rows) {
        tally[String(r.PROCESS_STATUS) as ProcessStatus] = int(r.N, 'count');
        lastStageId = Math.max(lastStageId ?? 0, int(r.LAST_STAGE_ID, 'stage id'));
      }
      return { tally, lastStageId };
    });
  }

  async runningRuns(): Promise<RunRecord[]> {
    return this.withConnection(async (connection) => (await this.query(connection, 'runs_running')).map(runRecord));
  }

  /**
   * queries/error_rows.sql: no lock, so the row limit is in the SQL (FETCH FIRST). Lists as
   * in lockErrorRows; with several slices each execution returns at most `limit` rows and the
   * first `limit` of their union (in stage_id order) are kept.
   */
  async listErrorRows(filter: { loadIds?: number[] | undefined; errorCodes?: string[] | undefined; limit: number; afterStageId?: number | undefined }): Promise<ErrorRowReport[]> {
    const page = errorPage(filter);
    if (page === null) return [];
    const { limit, lists } = page;
    return this.withConnection(async (connection) => {
      const out: ErrorRowReport[] = [];
      for (const binds of slotCombinations(this.c, lists)) {
        for (const r of await this.query(connection, 'error_rows', { ...binds, after_stage_id: this.num(int(filter.afterStageId ?? 0, 'stage id')), row_limit: this.num(limit) })) {
          out.push({
            ...stageSnapshot(r),
            phase: text(r.PHASE) as ErrorPhase | null,
            rawRecord: text(r.RAW_RECORD),
            loggedAt: parseUtcText(r.LOGGED_AT),
            errorLoadId: intOrNull(r.ERROR_LOAD_ID, 'load_id'),
          });
        }
      }
      return out.sort((a, b) => a.stageId - b.stageId).slice(0, limit);
    });
  }

  /** queries/rejected_lines.sql: one page past `afterErrorId`, lists and slices as in listErrorRows. */
  async listRejectedLines(filter: { loadIds?: number[] | undefined; errorCodes?: string[] | undefined; limit: number; afterErrorId?: number | undefined }): Promise<RejectedLine[]> {
    const page = errorPage(filter);
    if (page === null) return [];
    const { limit, lists } = page;
    return this.withConnection(async (connection) => {
      const out: RejectedLine[] = [];
      for (const binds of slotCombinations(this.c, lists)) {
        for (const r of await this.query(connection, 'rejected_lines', { ...binds, after_error_id: this.num(int(filter.afterErrorId ?? 0, 'error id')), row_limit: this.num(limit) })) {
          out.push({
            errorId: int(r.ERROR_ID, 'error_id'),
            loadId: intOrNull(r.LOAD_ID, 'load_id'),
            lineNo: intOrNull(r.LINE_NO, 'line_no'),
            phase: String(r.PHASE) as ErrorPhase,
            errorCode: String(r.ERROR_CODE),
            errorMessage: String(r.ERROR_MESSAGE),
            rawRecord: text(r.RAW_RECORD),
            loggedAt: parseUtcText(r.LOGGED_AT) ?? new Date(0),
          });
        }
      }
      return out.sort((a, b) => a.errorId - b.errorId).slice(0, limit);
    });
  }

  /** queries/staging_history.sql: loadId from the 'invoked' event's detail (fallback: the
   * run id), the checkpoint {line, byte, counts} from the last 'staged_checkpoint' event. */
  async stagingHistory(sha256: string): Promise<StagingHistory | null> {
    return this.withConnection(async (connection) => {
      const r = (await this.query(connection, 'staging_history', { sha256: this.str(sha256, 64) }))[0];
      if (r === undefined) return null;
      return stagingHistoryFromEvents(int(r.RUN_ID, 'run_id'), text(r.INVOKED), int(r.STAGED, 'staged') === 1, text(r.CHECKPOINT));
    });
  }

  async claimableCount(): Promise<number> {
    return this.withConnection(async (connection) => {
      const r = (await this.query(connection, 'claimable_count'))[0];
      return r === undefined ? 0 : int(r.N, 'count');
    });
  }

  /**
   * A bench workspace on Oracle would be another schema (a user), which the loader's user may
   * not create: `bench` refuses here rather than touch the loader's own tables.
   */
  async createWorkspace(name: string): Promise<void> {
    throw new UserError(
      `bench: cannot isolate a workspace (${name}) on Oracle: it would need a schema of its own, which the loader's user cannot create; bench refuses rather than touch the loader's tables`,
    );
  }

  async dropWorkspace(): Promise<void> {
    // nothing was created: createWorkspace refuses on Oracle
  }

  async close(): Promise<void> {
    // drainTime 10 s: in-flight transactions may finish; then connections are closed.
    await this.pool.close(10);
  }
}

/** Internal factory: the engine over any pool-like object (tests inject a recording pool). */
export function createOracleEngineWithPool(pool: OraPool, constants: OraConstants): OracleEngine {
  return new OracleEngine(pool, constants);
}

/**
 * Open the Oracle engine: node-oracledb thin mode (initOracleClient is never called), one
 * pool of at most `poolMax` connections (at least 2: migrate() holds its lock on a second
 * connection). No connection is made until the first use.
 */
export async function createOracleEngine(options: OracleEngineOptions): Promise<Engine> {
  if (options.password === undefined || options.password === '') {
    throw new UserError('oracle: no password given: set ORDER_LOADER_DB_PASSWORD (or oracle://user:password@host/service)');
  }
  const oracledb = await loadOracledb();
  const pool = await oracledb.createPool({
    user: options.user,
    password: options.password,
    connectString: options.connectString,
    poolMin: 0,
    poolMax: Math.max(2, Math.floor(options.poolMax)),
    poolIncrement: 1,
    poolTimeout: 60,
    queueTimeout: 60_000,
    stmtCacheSize: 40,
  });
  return new OracleEngine(pool, oracledb);
}

/**
 * The page of an error listing (ERROR rows, rejected lines): its row limit and its load / error
 * code lists; null when nothing can match (no rows asked for, or an empty list).
 */
function errorPage(filter: { loadIds?: number[] | undefined; errorCodes?: string[] | undefined; limit: number }): { limit: number; lists: SlotList[] } | null {
  const floored = Math.floor(filter.limit);
  if (!(floored > 0)) return null;
  const lists: SlotList[] = [
    { name: 'load_id', values: idList(filter.loadIds, 'load id') },
    { name: 'error_code', values: textList(filter.errorCodes, LIMITS.code), maxSize: MAX_BYTES.code },
  ];
  if (lists.some((l) => l.values !== null && l.values.length === 0)) return null;
  return { limit: Math.min(floored, Number.MAX_SAFE_INTEGER), lists };
}
