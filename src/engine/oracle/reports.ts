import type { Driver, Reports } from '../contract.js';
import { parseJsonObject } from '../run-events.js';
import type {
  ErrorPhase,
  ErrorRowReport,
  LoadRunInfo,
  ProcessStatus,
  RejectedLine,
  RunEventRecord,
  StatusReport,
  StatusTally,
} from '../types.js';
import { ID_SLOTS, idList, LIMITS, matchesNothing, MAX_BYTES, type SlotList, slices, textList } from './binds.js';
import { onOracleConnection } from './driver.js';
import { oracleReviewReports } from './review.js';
import type { OraConnection } from './oracledb-types.js';
import { int, intOrNull, type OracleKit, queryRows, type Row, runRecord, stageSnapshot, text } from './rows.js';
import { cutChars, parseUtcText, utcTimestampText } from './sql-text.js';

/**
 * The page of an error listing (ERROR rows, rejected lines): its row limit and its load / error
 * code lists; null when nothing can match (no rows asked for, or an empty list).
 */
export function errorPage(filter: {
  loadIds?: number[] | undefined;
  errorCodes?: string[] | undefined;
  limit: number;
}): { limit: number; lists: SlotList[] } | null {
  const floored = Math.floor(filter.limit);
  if (!(floored > 0)) return null;
  const lists: SlotList[] = [
    { name: 'load_id', values: idList(filter.loadIds, 'load id') },
    { name: 'error_code', values: textList(filter.errorCodes, LIMITS.code), maxSize: MAX_BYTES.code },
  ];
  if (matchesNothing(lists)) return null;
  return { limit: Math.min(floored, Number.MAX_SAFE_INTEGER), lists };
}

function retryWait(wait: Row | undefined): StatusReport['retryWait'] {
  return { count: wait === undefined ? 0 : int(wait.N, 'count'), nextDueAt: wait === undefined ? null : parseUtcText(wait.NEXT_DUE_AT) };
}

/** Read-only reports, each call on a connection of its own. */
export function oracleReports(driver: Driver<OraConnection>, kit: OracleKit): Reports {
  const { binds } = kit;
  const read = <T>(fn: (connection: OraConnection) => Promise<T>): Promise<T> => onOracleConnection(driver, fn);

  return {
    async listRuns(limit) {
      const n = Math.max(0, Math.floor(limit));
      if (n === 0) return [];
      return read(async (connection) => (await queryRows(connection, kit, 'runs_list', { row_limit: binds.num(n) })).map(runRecord));
    },

    async listRunEvents(runIds) {
      if (runIds.length === 0) return [];
      const ids = [...new Set(runIds.map((id) => int(id, 'run id')))];
      return read(async (connection) => {
        const events: RunEventRecord[] = [];
        for (const part of slices(ids, ID_SLOTS)) {
          for (const r of await queryRows(connection, kit, 'run_events_list', binds.idSlots(part))) {
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
    },

    statusReport: () =>
      read(async (connection) => {
        const counts = await queryRows(connection, kit, 'status_counts');
        const oldest = (await queryRows(connection, kit, 'status_oldest_ready'))[0];
        const wait = (await queryRows(connection, kit, 'status_retry_wait'))[0];
        const waiting = (await queryRows(connection, kit, 'status_oldest_waiting'))[0];
        return {
          counts: counts.map((r) => ({
            loadId: intOrNull(r.LOAD_ID, 'load_id'),
            status: String(r.PROCESS_STATUS) as ProcessStatus,
            count: int(r.N, 'count'),
          })),
          oldestReady:
            oldest === undefined
              ? null
              : {
                  stageId: int(oldest.STAGE_ID, 'stage_id'),
                  sourceKey: String(oldest.SOURCE_KEY),
                  stagedAt: parseUtcText(oldest.STAGED_AT) ?? new Date(0),
                },
          retryWait: retryWait(wait),
          oldestWaitingSince: waiting === undefined ? null : parseUtcText(waiting.WAITING_SINCE),
        };
      }),

    loadRuns: ({ loadIds, since }) =>
      read(async (connection) => {
        const ids = [...new Set(loadIds.map((id) => int(id, 'load id')))];
        const sinceText = binds.str(since === null ? null : utcTimestampText(since), MAX_BYTES.timestampText);
        const found = new Map<number, LoadRunInfo>();
        // one execution at least: `since` alone has no id to slice
        for (const part of ids.length === 0 ? [[]] : slices(ids, ID_SLOTS)) {
          for (const r of await queryRows(connection, kit, 'status_load_runs', { ...binds.idSlots(part), since_utc: sinceText })) {
            const loadId = int(r.RUN_ID, 'run_id');
            found.set(loadId, { loadId, fileName: text(r.FILE_NAME), startedAt: parseUtcText(r.STARTED_AT) ?? new Date(0) });
          }
        }
        return [...found.values()].sort((a, b) => a.loadId - b.loadId);
      }),

    retryWaitSummary: () => read(async (connection) => retryWait((await queryRows(connection, kit, 'status_retry_wait'))[0])),

    heldLoads: () =>
      read(async (connection) =>
        (await queryRows(connection, kit, 'held_loads')).map((r) => ({
          loadId: int(r.LOAD_ID, 'load_id'),
          rows: int(r.N, 'count'),
          heldSince: parseUtcText(r.HELD_SINCE) ?? new Date(0),
          fileName: text(r.FILE_NAME),
          staging: int(r.STAGING, 'staging') === 1,
          ...(int(r.CONTROL, 'control') === 1 ? { control: true } : {}),
        })),
      ),

    async tallyLoads(loadIds) {
      if (loadIds.length === 0) return {};
      const ids = [...new Set(loadIds.map((id) => int(id, 'load id')))];
      return read(async (connection) => {
        const tally: StatusTally = {};
        for (const part of slices(ids, ID_SLOTS)) {
          for (const r of await queryRows(connection, kit, 'tally_loads', binds.idSlots(part))) {
            const status = String(r.PROCESS_STATUS) as ProcessStatus;
            tally[status] = (tally[status] ?? 0) + int(r.N, 'count');
          }
        }
        return tally;
      });
    },

    tallyBatch: (batchId) =>
      read(async (connection) => {
        const rows = await queryRows(connection, kit, 'tally_batch', { batch_id: binds.str(cutChars(batchId, LIMITS.batchId), 64) });
        const tally: StatusTally = {};
        let lastStageId: number | null = null;
        for (const r of rows) {
          tally[String(r.PROCESS_STATUS) as ProcessStatus] = int(r.N, 'count');
          lastStageId = Math.max(lastStageId ?? 0, int(r.LAST_STAGE_ID, 'stage id'));
        }
        return { tally, lastStageId };
      }),

    /**
     * queries/error_rows.sql: no lock, so the row limit is in the SQL (FETCH FIRST). With
     * several slices each execution returns at most `limit` rows and the first `limit` of their
     * union (in stage_id order) are kept.
     */
    async listErrorRows(filter) {
      const page = errorPage(filter);
      if (page === null) return [];
      const { limit, lists } = page;
      return read(async (connection) => {
        const out: ErrorRowReport[] = [];
        for (const slots of binds.slotSets(lists)) {
          const rows = await queryRows(connection, kit, 'error_rows', {
            ...slots,
            after_stage_id: binds.num(int(filter.afterStageId ?? 0, 'stage id')),
            row_limit: binds.num(limit),
          });
          for (const r of rows) out.push(errorRowReport(r));
        }
        return out.sort((a, b) => a.stageId - b.stageId).slice(0, limit);
      });
    },

    /** queries/rejected_lines.sql: one page past `afterErrorId`, lists and slices as in listErrorRows. */
    async listRejectedLines(filter) {
      const page = errorPage(filter);
      if (page === null) return [];
      const { limit, lists } = page;
      return read(async (connection) => {
        const out: RejectedLine[] = [];
        for (const slots of binds.slotSets(lists)) {
          const rows = await queryRows(connection, kit, 'rejected_lines', {
            ...slots,
            after_error_id: binds.num(int(filter.afterErrorId ?? 0, 'error id')),
            row_limit: binds.num(limit),
          });
          for (const r of rows) {
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
    },

    claimableCount: () =>
      read(async (connection) => {
        const r = (await queryRows(connection, kit, 'claimable_count'))[0];
        return r === undefined ? 0 : int(r.N, 'count');
      }),
    ...oracleReviewReports(read, kit),
  };
}

/** An ERROR row with its latest error-log entry, as error_rows.sql, page_error_rows.sql and row_history_row.sql return it. */
export function errorRowReport(r: Row): ErrorRowReport {
  const attributes = text(r.ATTRIBUTES);
  return {
    ...stageSnapshot(r),
    // a row's attributes (JSON text), present only when it has some: rows without them read as before
    ...(attributes === null ? {} : { attributes }),
    phase: text(r.PHASE) as ErrorPhase | null,
    rawRecord: text(r.RAW_RECORD),
    loggedAt: parseUtcText(r.LOGGED_AT),
    errorLoadId: intOrNull(r.ERROR_LOAD_ID, 'load_id'),
  };
}
