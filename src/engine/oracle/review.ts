import type { Reports } from '../contract.js';
import type { AuditEntry, ErrorLogEntry, ErrorPhase, ErrorRowReport } from '../types.js';
import type { OraConnection } from './oracledb-types.js';
import { errorPage, errorRowReport } from './reports.js';
import { int, intOrNull, type OracleKit, queryRows, type Row, text } from './rows.js';
import { parseUtcText } from './sql-text.js';

/** The phase column's width (VARCHAR2(10)). */
const PHASE_BYTES = 10;

function errorLogEntry(r: Row): ErrorLogEntry {
  return {
    errorId: int(r.ERROR_ID, 'error_id'),
    loadId: intOrNull(r.LOAD_ID, 'load_id'),
    lineNo: intOrNull(r.LINE_NO, 'line_no'),
    batchId: text(r.BATCH_ID),
    attemptNo: intOrNull(r.ATTEMPT_NO, 'attempt_no'),
    phase: String(r.PHASE) as ErrorPhase,
    errorCode: String(r.ERROR_CODE),
    errorMessage: String(r.ERROR_MESSAGE),
    rawRecord: text(r.RAW_RECORD),
    loggedAt: parseUtcText(r.LOGGED_AT) ?? new Date(0),
  };
}

function auditEntry(r: Row): AuditEntry {
  return {
    auditId: int(r.AUDIT_ID, 'audit_id'),
    action: String(r.ACTION),
    oldStatus: text(r.OLD_STATUS),
    newStatus: text(r.NEW_STATUS),
    oldValues: text(r.OLD_VALUES),
    newValues: text(r.NEW_VALUES),
    operator: String(r.OPERATOR),
    reason: String(r.REASON),
    at: parseUtcText(r.AUDITED_AT) ?? new Date(0),
  };
}

/** The review page's reads (`order-loader serve`), each call on a connection of its own. */
export function oracleReviewReports(
  read: <T>(fn: (connection: OraConnection) => Promise<T>) => Promise<T>,
  kit: OracleKit,
): Pick<Reports, 'pageErrorRows' | 'rowHistory'> {
  const { binds } = kit;
  return {
    /** queries/page_error_rows.sql: one page below `beforeStageId`, newest first; lists in slices as listErrorRows. */
    async pageErrorRows(filter) {
      const page = errorPage(filter);
      if (page === null) return [];
      const { limit, lists } = page;
      const before = filter.beforeStageId === undefined ? Number.MAX_SAFE_INTEGER : int(filter.beforeStageId, 'stage id');
      return read(async (connection) => {
        const out: ErrorRowReport[] = [];
        for (const slots of binds.slotSets(lists)) {
          const rows = await queryRows(connection, kit, 'page_error_rows', {
            ...slots,
            before_stage_id: binds.num(before),
            by_phase: binds.num(filter.phase === undefined ? 0 : 1),
            phase_name: binds.str(filter.phase ?? null, PHASE_BYTES),
            row_limit: binds.num(limit),
          });
          for (const r of rows) out.push(errorRowReport(r));
        }
        return out.sort((a, b) => b.stageId - a.stageId).slice(0, limit);
      });
    },

    async rowHistory(stageId) {
      const id = { stage_id: binds.num(int(stageId, 'stage id')) };
      return await read(async (connection) => {
        const row = (await queryRows(connection, kit, 'row_history_row', id))[0];
        const errors = await queryRows(connection, kit, 'row_history_errors', id);
        const audit = await queryRows(connection, kit, 'row_history_audit', id);
        return { row: row === undefined ? null : errorRowReport(row), errors: errors.map(errorLogEntry), audit: audit.map(auditEntry) };
      });
    },
  };
}
