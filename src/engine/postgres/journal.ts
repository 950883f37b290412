import type { JournalTx, RunJournal } from '../contract.js';
import { stagingHistoryFromEvents } from '../run-events.js';
import type { FileIdentity, RunCounts, RunEventInput, RunRecord, RunStart, RunStatus, StagingHistory } from '../types.js';
import type { WithSession } from './driver.js';
import { sqlQuery, toRunRecord, type RunRow } from './rows.js';
import type { PgSession } from './session.js';

/** A run event written in the transaction of the work it describes. */
export function journalSlice(session: PgSession): JournalTx {
  return {
    async addRunEvent(runId: number, event: RunEventInput): Promise<void> {
      await session.query(sqlQuery('run_event'), [runId, event.event, event.detail === undefined ? null : JSON.stringify(event.detail)]);
    },
  };
}

/** The load_run rows, each statement committing on its own. */
export function runJournal(withSession: WithSession): RunJournal {
  return {
    startRun: (run: RunStart) =>
      withSession(async (s) => {
        const { rows } = await s.query<{ run_id: number }>(sqlQuery('run_start'), [
          run.command,
          run.fileName,
          run.fileSize,
          run.fileSha256,
          run.host,
          run.pid,
        ]);
        const row = rows[0];
        if (row === undefined) throw new Error('load_run insert returned no id');
        return row.run_id;
      }),

    async finishRun(runId: number, status: RunStatus, counts: RunCounts, message: string | null): Promise<void> {
      await withSession((s) => s.query(sqlQuery('run_finish'), [runId, status, JSON.stringify(counts), message]));
    },

    stagingHistory: (file: FileIdentity): Promise<StagingHistory | null> =>
      withSession(async (s) => {
        const { rows } = await s.query<{ run_id: number; invoked: string | null; staged: boolean; checkpoint: string | null }>(
          sqlQuery('staging_history'),
          [file.sha256, file.encoding, file.delimiter, file.profile ?? 'builtin'],
        );
        const r = rows[0];
        return r === undefined ? null : stagingHistoryFromEvents(r.run_id, r.invoked, r.staged, r.checkpoint);
      }),

    runningRuns: (): Promise<RunRecord[]> =>
      withSession(async (s) => (await s.query<RunRow>(sqlQuery('runs_running'))).rows.map(toRunRecord)),
  };
}
