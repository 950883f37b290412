import type { Reports } from '../contract.js';
import type { AuditEntry, ErrorLogEntry, ErrorPhase } from '../types.js';
import type { WithSession } from './driver.js';
import { listOrNull, sqlQuery, toErrorRowReport, type ErrorRow } from './rows.js';

/** The largest bigint: a keyset walk backwards from the newest row starts below it. */
const NO_UPPER_BOUND = '9223372036854775807';

interface ErrorLogRow {
  error_id: number;
  load_id: number | null;
  line_no: number | null;
  batch_id: string | null;
  attempt_no: number | null;
  phase: ErrorPhase;
  error_code: string;
  error_message: string;
  raw_record: string | null;
  logged_at: Date;
}

interface AuditRow {
  audit_id: number;
  action: string;
  old_status: string | null;
  new_status: string | null;
  old_values: string | null;
  new_values: string | null;
  operator: string;
  reason: string;
  at: Date;
}

function toErrorLogEntry(r: ErrorLogRow): ErrorLogEntry {
  return {
    errorId: r.error_id,
    loadId: r.load_id,
    lineNo: r.line_no,
    batchId: r.batch_id,
    attemptNo: r.attempt_no,
    phase: r.phase,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    rawRecord: r.raw_record,
    loggedAt: r.logged_at,
  };
}

function toAuditEntry(r: AuditRow): AuditEntry {
  return {
    auditId: r.audit_id,
    action: r.action,
    oldStatus: r.old_status,
    newStatus: r.new_status,
    oldValues: r.old_values,
    newValues: r.new_values,
    operator: r.operator,
    reason: r.reason,
    at: r.at,
  };
}

/** The review page's reads (`order-loader serve`), each on a connection of its own. */
export function reviewReports(withSession: WithSession): Pick<Reports, 'pageErrorRows' | 'rowHistory'> {
  return {
    pageErrorRows: (filter) =>
      withSession(async (s) => {
        const limit = Math.floor(filter.limit);
        if (!(limit > 0)) return [];
        const { rows } = await s.query<ErrorRow>(sqlQuery('page_error_rows'), [
          listOrNull(filter.loadIds),
          listOrNull(filter.errorCodes),
          limit,
          filter.beforeStageId ?? NO_UPPER_BOUND,
          filter.phase ?? null,
        ]);
        return rows.map(toErrorRowReport);
      }),

    rowHistory: (stageId) =>
      withSession(async (s) => {
        const row = (await s.query<ErrorRow>(sqlQuery('row_history_row'), [stageId])).rows[0];
        const errors = (await s.query<ErrorLogRow>(sqlQuery('row_history_errors'), [stageId])).rows;
        const audit = (await s.query<AuditRow>(sqlQuery('row_history_audit'), [stageId])).rows;
        return {
          row: row === undefined ? null : toErrorRowReport(row),
          errors: errors.map(toErrorLogEntry),
          audit: audit.map(toAuditEntry),
        };
      }),
  };
}
