import type { ClaimedRow, ProcessStatus, RunCounts, RunRecord, RunStatus, StageRowSnapshot } from '../types.js';
import { parseJsonObject } from '../run-events.js';
import type { Binds } from './binds.js';
import type { LockBudget } from './lock-budget.js';
import type { OraBinds, OraColumnMeta, OraConnection, OraConstants, OraExecuteOptions, OraExecuteResult } from './oracledb-types.js';
import { oracleQuery, parseUtcText } from './sql-text.js';

/**
 * Rows as the queries of sql/oracle/queries/ return them, and their records. The queries
 * return values as canonical text (TO_CHAR with explicit formats, timestamps as UTC text), and
 * every NUMBER and CLOB column is fetched as a string (fetchTypeHandler): nothing goes through
 * a JavaScript float.
 */

export type Row = Record<string, unknown>;

/** What every slice gets besides its connection: the bind helpers and the options of a query. */
export interface OracleKit {
  readonly binds: Binds;
  /** execute() options of a query (see {@link queryOptions}). */
  readonly queryOptions: OraExecuteOptions;
  /** The bound on lock waits of each connection's transaction, noted by the driver's begin (driver.ts). */
  readonly lockWaits?: WeakMap<OraConnection, LockBudget | undefined>;
}

/** Rows as objects, NUMBER and CLOB columns as text, no commit. */
export function queryOptions(c: OraConstants): OraExecuteOptions {
  const fetchTypeHandler = (meta: OraColumnMeta) =>
    meta.dbType === c.DB_TYPE_NUMBER || meta.dbType === c.DB_TYPE_CLOB ? { type: c.DB_TYPE_VARCHAR } : undefined;
  return { autoCommit: false, outFormat: c.OUT_FORMAT_OBJECT, fetchTypeHandler };
}

export function rowsOf(result: OraExecuteResult): Row[] {
  return (result.rows ?? []) as Row[];
}

/** Every row of queries/<name>.sql (a plain execute fetches the whole cursor). */
export async function queryRows(connection: OraConnection, kit: OracleKit, name: string, binds: OraBinds = {}): Promise<Row[]> {
  return rowsOf(await connection.execute(oracleQuery(name), binds, kit.queryOptions));
}

export function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  // the fetch type handler (queryOptions) delivers every column as a string, a number or a Date
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || value instanceof Date) return String(value);
  return JSON.stringify(value);
}

export function int(value: unknown, what: string): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`Oracle engine: ${what} is not an integer`);
  return n;
}

export function intOrNull(value: unknown, what: string): number | null {
  return value === null || value === undefined ? null : int(value, what);
}

/** The columns a claimed row and a snapshot share. */
function stageRowBase(r: Row): Omit<ClaimedRow, 'transientFailures'> {
  return {
    stageId: int(r.STAGE_ID, 'stage_id'),
    sourceKey: String(r.SOURCE_KEY),
    customerId: text(r.CUSTOMER_ID),
    orderDate: text(r.ORDER_DATE),
    amount: text(r.AMOUNT),
    currency: text(r.CURRENCY),
    attemptCount: int(r.ATTEMPT_COUNT, 'attempt_count'),
    loadId: intOrNull(r.LOAD_ID, 'load_id'),
    lineNo: intOrNull(r.LINE_NO, 'line_no'),
  };
}

/** A stage row as claim.sql returns it. */
export function claimedRow(r: Row): ClaimedRow {
  return { ...stageRowBase(r), transientFailures: int(r.TRANSIENT_FAILURES, 'transient_failures') };
}

/** A stage row as lock_error_rows.sql / lock_stale_processing.sql / error_rows.sql return it. */
export function stageSnapshot(r: Row): StageRowSnapshot {
  return {
    ...stageRowBase(r),
    status: String(r.PROCESS_STATUS) as ProcessStatus,
    errorCode: text(r.ERROR_CODE),
    errorMessage: text(r.ERROR_MESSAGE),
    updatedAt: parseUtcText(r.UPDATED_AT) ?? new Date(0),
  };
}

/** A load_run row as runs_list.sql / runs_running.sql return it. */
export function runRecord(r: Row): RunRecord {
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

export function byStageId<T extends { stageId: number }>(rows: readonly T[]): T[] {
  return [...rows].sort((a, b) => a.stageId - b.stageId);
}
