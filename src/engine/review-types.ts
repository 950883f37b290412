/** What the review of rejected rows reads (`errors`, the review page): ERROR rows, rejected lines, their error-log and audit rows, the file layout that splits a raw line again. */
import type { ErrorPhase, StageRowSnapshot } from './types.js';

/** An ERROR row with its latest error-log entry (the `errors` export). */
export interface ErrorRowReport extends StageRowSnapshot {
  /** The row's attributes as stored (JSON text of an object of column name → text); absent: none. */
  attributes?: string | undefined;
  phase: ErrorPhase | null;
  rawRecord: string | null;
  loggedAt: Date | null;
  /** The load that logged that latest error (whose file header splits `rawRecord`). */
  errorLoadId: number | null;
}

/** A line rejected before it had a stage row (no usable source_key, wrong field count, bad bytes): its error-log row. */
export interface RejectedLine {
  errorId: number;
  loadId: number | null;
  lineNo: number | null;
  phase: ErrorPhase;
  errorCode: string;
  errorMessage: string;
  rawRecord: string | null;
  loggedAt: Date;
}

/** How a load's file was read (recorded when its staging started): what splits a rejected line into its columns again. */
export interface FileLayout {
  /** Header names in file order, as written in the file. */
  header: string[];
  delimiter: string;
  /** The load profile's spec and the encoding it was read with, when the file was read through one. */
  profile?: { name: string; sha256: string; spec: unknown; encoding: string } | undefined;
}

/** The latest error-log row of a stage row. */
export interface LatestRawRecord {
  stageId: number;
  /** The load that logged it. */
  loadId: number | null;
  rawRecord: string | null;
  /** The phase of that error (a retry of the rows whose latest error is of one phase); absent: not read. */
  phase?: ErrorPhase | null | undefined;
}

/** One page of the review page's rejected rows: ERROR rows newest first (stage_id descending). */
export interface ErrorPageFilter {
  loadIds?: number[] | undefined;
  errorCodes?: string[] | undefined;
  /** The phase of the row's latest error-log row. */
  phase?: ErrorPhase | undefined;
  /** Only rows before this stage_id (the last row of the page before); absent: from the newest. */
  beforeStageId?: number | undefined;
  limit: number;
}

/** One error-log row of a stage row: one attempt's failure (or the line's rejection while staging). */
export interface ErrorLogEntry {
  errorId: number;
  loadId: number | null;
  lineNo: number | null;
  batchId: string | null;
  attemptNo: number | null;
  phase: ErrorPhase;
  errorCode: string;
  errorMessage: string;
  rawRecord: string | null;
  loggedAt: Date;
}

/** One audit row of a stage row: an operator's change (retry, recover). */
export interface AuditEntry {
  auditId: number;
  action: string;
  oldStatus: string | null;
  newStatus: string | null;
  /** JSON text of the changed fields before and after. */
  oldValues: string | null;
  newValues: string | null;
  operator: string;
  reason: string;
  at: Date;
}

/** A stage row (any status) with its latest error, every error-log row and every audit row, oldest first. */
export interface RowHistory {
  row: ErrorRowReport | null;
  errors: ErrorLogEntry[];
  audit: AuditEntry[];
}
