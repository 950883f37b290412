import type { Driver, JournalTx, RunJournal } from '../contract.js';
import { stagingHistoryFromEvents } from '../run-events.js';
import type { FileIdentity, RunCounts, RunEventInput, RunStart, RunStatus, StagingHistory } from '../types.js';
import { LIMITS, MAX_BYTES } from './binds.js';
import { onOracleConnection } from './driver.js';
import type { OraConnection } from './oracledb-types.js';
import { int, type OracleKit, queryRows, runRecord, text } from './rows.js';
import { cutBytes, cutChars, nonEmpty, oracleQuery } from './sql-text.js';

/** A run event, written in the caller's transaction (queries/run_event.sql). */
export function oracleJournalTx(connection: OraConnection, { binds }: OracleKit): JournalTx {
  return {
    async addRunEvent(runId: number, event: RunEventInput): Promise<void> {
      const detail = event.detail === undefined ? null : JSON.stringify(event.detail);
      await connection.executeMany(oracleQuery('run_event'), [{ run_id: runId, event: cutChars(event.event, LIMITS.event), detail }], {
        autoCommit: false,
        bindDefs: { run_id: binds.number(), event: binds.varchar(MAX_BYTES.event), detail: binds.longText([detail]) },
      });
    },
  };
}

/** The load_run rows, each call on a connection of its own. */
export function oracleRunJournal(driver: Driver<OraConnection>, kit: OracleKit): RunJournal {
  const { binds } = kit;
  return {
    startRun: (run: RunStart) =>
      onOracleConnection(driver, async (connection) => {
        const result = await connection.execute(
          oracleQuery('run_start'),
          {
            command: binds.str(cutChars(nonEmpty(run.command, '(unknown)'), LIMITS.command), 80),
            file_name: binds.str(run.fileName === null ? null : cutChars(run.fileName, LIMITS.fileName), MAX_BYTES.varchar),
            file_size: binds.num(run.fileSize),
            file_sha256: binds.str(run.fileSha256, 64),
            host: binds.str(cutChars(nonEmpty(run.host, '(unknown)'), LIMITS.host), 1020), // NOT NULL: '' is NULL
            pid: binds.num(run.pid),
            run_id: binds.outNumber(),
          },
          { autoCommit: false },
        );
        const out = (result.outBinds as { run_id?: unknown } | undefined)?.run_id;
        return int(Array.isArray(out) ? out[0] : out, 'run_id');
      }),

    finishRun: (runId: number, status: RunStatus, counts: RunCounts, message: string | null) =>
      onOracleConnection(driver, async (connection) => {
        await connection.execute(
          oracleQuery('run_finish'),
          {
            run_id: binds.num(runId),
            status: binds.str(status, MAX_BYTES.status),
            counts: binds.longStr(JSON.stringify(counts)),
            message: binds.str(message === null ? null : cutBytes(message, LIMITS.runMessageBytes), MAX_BYTES.varchar),
          },
          { autoCommit: false },
        );
      }),

    /** queries/staging_history.sql: the latest run of the identity that committed a staging
     * fact; loadId from its 'invoked' event's detail (fallback: the run id), the checkpoint
     * {line, byte, counts} from its last 'staged_checkpoint' event. */
    stagingHistory: (file: FileIdentity): Promise<StagingHistory | null> =>
      onOracleConnection(driver, async (connection) => {
        const r = (
          await queryRows(connection, kit, 'staging_history', {
            sha256: binds.str(file.sha256, 64),
            read_encoding: binds.str(file.encoding, MAX_BYTES.readAs),
            read_delimiter: binds.str(file.delimiter, MAX_BYTES.readAs),
            read_profile: binds.str(file.profile ?? 'builtin', MAX_BYTES.readAs),
          })
        )[0];
        if (r === undefined) return null;
        return stagingHistoryFromEvents(int(r.RUN_ID, 'run_id'), text(r.INVOKED), int(r.STAGED, 'staged') === 1, text(r.CHECKPOINT));
      }),

    runningRuns: () => onOracleConnection(driver, async (connection) => (await queryRows(connection, kit, 'runs_running')).map(runRecord)),
  };
}
