/**
 * The queries of sql/postgres/queries/ and the rows that several slices read back, mapped to
 * the records of src/engine/types.ts. A row only one slice reads is mapped beside its query.
 */
import { readSql } from '../../sql-files.js';
import { parseJsonObject } from '../run-events.js';
import type {
  ClaimedRow,
  ErrorPhase,
  ErrorRowReport,
  ProcessStatus,
  RunCounts,
  RunRecord,
  RunStatus,
  StageRowSnapshot,
  StatusTally,
} from '../types.js';

/** The text of sql/postgres/queries/<name>.sql (read once). */
export const sqlQuery = (name: string): string => readSql('postgres', `queries/${name}.sql`);

/** A list filter: an absent or empty list means "not given" (NULL to the query). */
export function listOrNull<T>(values: T[] | undefined): T[] | null {
  return values === undefined || values.length === 0 ? null : values;
}

/** An order_stage row as the operator queries and error listings return it. */
export interface SnapshotRow {
  stage_id: number;
  source_key: string;
  customer_id: string | null;
  order_date: string | null;
  amount: string | null;
  currency: string | null;
  process_status: ProcessStatus;
  attempt_count: number;
  load_id: number | null;
  line_no: number | null;
  error_code: string | null;
  error_message: string | null;
  updated_at: Date;
}

/** The columns claim.sql returns: a stage row without its status and error, with its transient failures. */
export type ClaimRow = Omit<SnapshotRow, 'process_status' | 'error_code' | 'error_message' | 'updated_at'> & {
  transient_failures: number;
};

/** The columns a claimed row and a snapshot share. */
function stageRowBase(r: Omit<ClaimRow, 'transient_failures'>): Omit<ClaimedRow, 'transientFailures'> {
  return {
    stageId: r.stage_id,
    sourceKey: r.source_key,
    customerId: r.customer_id,
    orderDate: r.order_date,
    amount: r.amount,
    currency: r.currency,
    attemptCount: r.attempt_count,
    loadId: r.load_id,
    lineNo: r.line_no,
  };
}

export function toClaimed(r: ClaimRow): ClaimedRow {
  return { ...stageRowBase(r), transientFailures: r.transient_failures };
}

export function toSnapshot(r: SnapshotRow): StageRowSnapshot {
  return {
    ...stageRowBase(r),
    status: r.process_status,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    updatedAt: r.updated_at,
  };
}

/** An ERROR row with its latest error-log entry, as error_rows.sql and page_error_rows.sql return it. */
export type ErrorRow = SnapshotRow & {
  attributes: string | null;
  phase: ErrorPhase | null;
  raw_record: string | null;
  logged_at: Date | null;
  error_load_id: number | null;
};

export function toErrorRowReport(r: ErrorRow): ErrorRowReport {
  return {
    ...toSnapshot(r),
    ...(r.attributes === null ? {} : { attributes: r.attributes }),
    phase: r.phase,
    rawRecord: r.raw_record,
    loggedAt: r.logged_at,
    errorLoadId: r.error_load_id,
  };
}

/** A load_run row (counts is JSON text). */
export interface RunRow {
  run_id: number;
  command: string;
  file_name: string | null;
  file_size: number | null;
  file_sha256: string | null;
  host: string;
  pid: number;
  status: RunStatus;
  started_at: Date;
  finished_at: Date | null;
  counts: string | null;
  message: string | null;
}

export function toRunRecord(r: RunRow): RunRecord {
  return {
    runId: r.run_id,
    command: r.command,
    fileName: r.file_name,
    fileSize: r.file_size,
    fileSha256: r.file_sha256,
    host: r.host,
    pid: r.pid,
    status: r.status,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    counts: parseJsonObject(r.counts) as RunCounts | null,
    message: r.message,
  };
}

/** Counts by status, from rows of (process_status, n). */
export function toTally(rows: Array<{ process_status: ProcessStatus; n: number }>): StatusTally {
  const tally: StatusTally = {};
  for (const r of rows) tally[r.process_status] = r.n;
  return tally;
}
