import type { Reports } from '../contract.js';
import { parseJsonObject } from '../run-events.js';
import type {
  ErrorPhase,
  LoadRunInfo,
  ErrorRowReport,
  ProcessStatus,
  RejectedLine,
  RunEventRecord,
  RunRecord,
  StatusReport,
  StatusTally,
} from '../types.js';
import type { WithSession } from './driver.js';
import { reviewReports } from './review.js';
import { listOrNull, sqlQuery, toErrorRowReport, toRunRecord, toTally, type ErrorRow, type RunRow } from './rows.js';
import type { PgSession } from './session.js';

async function retryWait(s: PgSession): Promise<StatusReport['retryWait']> {
  const wait = await s.query<{ n: number; next_due_at: Date | null }>(sqlQuery('status_retry_wait'));
  return { count: wait.rows[0]?.n ?? 0, nextDueAt: wait.rows[0]?.next_due_at ?? null };
}

function earliest(dates: Array<Date | null>): Date | null {
  let first: Date | null = null;
  for (const d of dates) if (d !== null && (first === null || d.getTime() < first.getTime())) first = d;
  return first;
}

/** status_retry_wait.sql's answer from status_summary.sql's groups. */
function summarizeWaiting(
  groups: Array<{ process_status: ProcessStatus; n: number; next_due_at: Date | null }>,
): StatusReport['retryWait'] {
  const waiting = groups.filter((g) => g.process_status === 'RETRY_WAIT');
  return { count: waiting.reduce((sum, g) => sum + g.n, 0), nextDueAt: earliest(waiting.map((g) => g.next_due_at)) };
}

/** Read-only reports, each on a connection of its own. */
export function reports(withSession: WithSession): Reports {
  return {
    listRuns: (limit: number): Promise<RunRecord[]> =>
      withSession(async (s) => (await s.query<RunRow>(sqlQuery('runs_list'), [limit])).rows.map(toRunRecord)),

    listRunEvents: (runIds: number[]): Promise<RunEventRecord[]> =>
      withSession(async (s) => {
        const { rows } = await s.query<{ run_id: number; seq: number; event: string; detail: string | null; at: Date }>(
          sqlQuery('run_events_list'),
          [runIds],
        );
        return rows.map((r) => ({ runId: r.run_id, seq: r.seq, event: r.event, detail: parseJsonObject(r.detail), at: r.at }));
      }),

    statusReport: (): Promise<StatusReport> =>
      withSession(async (s) => {
        const groups = await s.query<{
          load_id: number | null;
          process_status: ProcessStatus;
          n: number;
          next_due_at: Date | null;
          waiting_since: Date | null;
        }>(sqlQuery('status_summary'));
        const oldest = await s.query<{ stage_id: number; source_key: string; staged_at: Date }>(sqlQuery('status_oldest_ready'));
        const o = oldest.rows[0];
        return {
          counts: groups.rows.map((r) => ({ loadId: r.load_id, status: r.process_status, count: r.n })),
          oldestReady: o === undefined ? null : { stageId: o.stage_id, sourceKey: o.source_key, stagedAt: o.staged_at },
          retryWait: summarizeWaiting(groups.rows),
          oldestWaitingSince: earliest(groups.rows.map((r) => r.waiting_since)),
        };
      }),

    loadRuns: ({ loadIds, since }): Promise<LoadRunInfo[]> =>
      withSession(async (s) => {
        const { rows } = await s.query<{ run_id: number; file_name: string | null; started_at: Date }>(sqlQuery('status_load_runs'), [
          [...loadIds],
          since,
        ]);
        return rows.map((r) => ({ loadId: r.run_id, fileName: r.file_name, startedAt: r.started_at }));
      }),

    retryWaitSummary: () => withSession(retryWait),

    heldLoads: () =>
      withSession(async (s) => {
        const { rows } = await s.query<{
          load_id: number;
          n: number;
          held_since: Date;
          file_name: string | null;
          staging: boolean;
          control: boolean;
        }>(sqlQuery('held_loads'));
        return rows.map((r) => ({
          loadId: r.load_id,
          rows: r.n,
          heldSince: r.held_since,
          fileName: r.file_name,
          staging: r.staging,
          ...(r.control ? { control: true } : {}),
        }));
      }),

    async tallyLoads(loadIds: number[]): Promise<StatusTally> {
      if (loadIds.length === 0) return {};
      return withSession(async (s) =>
        toTally((await s.query<{ process_status: ProcessStatus; n: number }>(sqlQuery('tally_loads'), [loadIds])).rows),
      );
    },

    tallyBatch: (batchId: string) =>
      withSession(async (s) => {
        const { rows } = await s.query<{ process_status: ProcessStatus; n: number; last_stage_id: number }>(sqlQuery('tally_batch'), [
          batchId,
        ]);
        return { tally: toTally(rows), lastStageId: rows.length === 0 ? null : Math.max(...rows.map((r) => r.last_stage_id)) };
      }),

    listErrorRows: (filter): Promise<ErrorRowReport[]> =>
      withSession(async (s) => {
        const { rows } = await s.query<ErrorRow>(sqlQuery('error_rows'), [
          listOrNull(filter.loadIds),
          listOrNull(filter.errorCodes),
          filter.limit,
          filter.afterStageId ?? 0,
        ]);
        return rows.map(toErrorRowReport);
      }),

    listRejectedLines: (filter): Promise<RejectedLine[]> =>
      withSession(async (s) => {
        const { rows } = await s.query<{
          error_id: number;
          load_id: number | null;
          line_no: number | null;
          phase: ErrorPhase;
          error_code: string;
          error_message: string;
          raw_record: string | null;
          logged_at: Date;
        }>(sqlQuery('rejected_lines'), [listOrNull(filter.loadIds), listOrNull(filter.errorCodes), filter.limit, filter.afterErrorId ?? 0]);
        return rows.map((r) => ({
          errorId: r.error_id,
          loadId: r.load_id,
          lineNo: r.line_no,
          phase: r.phase,
          errorCode: r.error_code,
          errorMessage: r.error_message,
          rawRecord: r.raw_record,
          loggedAt: r.logged_at,
        }));
      }),

    claimableCount: () => withSession(async (s) => (await s.query<{ n: number }>(sqlQuery('claimable_count'))).rows[0]?.n ?? 0),
    ...reviewReports(withSession),
  };
}
