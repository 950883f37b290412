import { listMigrations, readSql } from '../../sql-files.js';
import type {
  ChunkFinalization,
  ErrorPhase,
  ErrorRowReport,
  FileLayout,
  LatestRawRecord,
  ManualChange,
  RejectedLine,
  RowSelector,
  StageRowSnapshot,
  StagingHistory,
  ClaimQuery,
  ClaimedRow,
  Engine,
  EngineTx,
  ErrorLogInput,
  FailureKind,
  KeysetWindow,
  MergeOptions,
  ProcessStatus,
  RowFailure,
  RunCounts,
  RunEventInput,
  RunRecord,
  RunStart,
  RunStatus,
  StageBatchCounts,
  StageInput,
  StatusReport,
  StatusTally,
  TransactionOptions,
} from '../types.js';
import { classifyPgError, classifySqlstate, ROW_LEVEL_SQLSTATES } from './classify.js';
import { fileLayoutFromInvoked, parseJsonObject, stagingHistoryFromEvents } from '../run-events.js';
import type { PgConnector, PgSession } from './session.js';

const q = (name: string) => readSql('postgres', `queries/${name}.sql`);

/** A list filter: an absent or empty list means "not given" (NULL to the query). */
function listOrNull<T>(values: T[] | undefined): T[] | null {
  return values === undefined || values.length === 0 ? null : values;
}

/** A workspace is a schema whose name we make: checked, since it is spelled into DDL. */
function workspaceSchema(name: string): string {
  if (!/^order_loader_bench_[a-z0-9_]{1,40}$/.test(name)) throw new Error(`not a bench workspace name: ${name}`);
  return name;
}

/** Serialises migrations across processes; any constant works, this one spells "ordr". */
const MIGRATION_LOCK_KEY = 0x6f726472;

class PostgresTx implements EngineTx {
  constructor(private readonly session: PgSession) {}

  async stageBatch(loadId: number, rows: StageInput[]): Promise<StageBatchCounts> {
    const { rows: result } = await this.session.query<{
      inserted: number;
      updated: number;
      unchanged: number;
      unchanged_error: number;
      repeated_in_load: number;
    }>(q('stage_batch'), [
      rows.map((r) => r.sourceKey),
      rows.map((r) => r.customerId),
      rows.map((r) => r.orderDate),
      rows.map((r) => r.amount),
      rows.map((r) => r.currency),
      rows.map((r) => r.lineNo),
      rows.map((r) => r.parseError?.code ?? null),
      rows.map((r) => r.parseError?.message ?? null),
      loadId,
    ]);
    const counts = result[0];
    if (counts === undefined) throw new Error('stage batch returned no counts');
    return {
      inserted: counts.inserted,
      updated: counts.updated,
      unchanged: counts.unchanged,
      unchangedError: counts.unchanged_error,
      repeatedInLoad: counts.repeated_in_load,
    };
  }

  async claimChunk(query: ClaimQuery): Promise<ClaimedRow[]> {
    const { rows } = await this.session.query<Omit<SnapshotRow, 'process_status' | 'error_code' | 'error_message' | 'updated_at'>>(
      q('claim'), [query.afterStageId, query.limit, query.loadIds ?? null],
    );
    return rows.map((r) => ({
      stageId: r.stage_id,
      sourceKey: r.source_key,
      customerId: r.customer_id,
      orderDate: r.order_date,
      amount: r.amount,
      currency: r.currency,
      attemptCount: r.attempt_count,
      loadId: r.load_id,
      lineNo: r.line_no,
    }));
  }

  async mergeOrders(rows: ClaimedRow[], options: MergeOptions): Promise<RowFailure[]> {
    if (rows.length === 0) return [];
    const { rows: failed } = await this.session.query<{
      failed_stage_id: number;
      failed_sqlstate: string;
      failed_message: string;
    }>(q('merge_chunk'), [rows.map((r) => r.stageId), Math.max(1, Math.floor(options.isolationBlock)), ROW_LEVEL_SQLSTATES]);
    return failed.map((f) => {
      const kind = classifySqlstate(f.failed_sqlstate);
      return {
        stageId: f.failed_stage_id,
        code: f.failed_sqlstate,
        message: f.failed_message,
        kind: kind === 'transient' ? 'transient' : 'rejected',
      };
    });
  }

  async finalizeChunk(chunk: ChunkFinalization): Promise<void> {
    if (chunk.done.length > 0) {
      await this.session.query(q('finalize_done'), [chunk.done, chunk.batchId]);
    }
    if (chunk.failed.length > 0) {
      const f = chunk.failed;
      await this.session.query(q('finalize_failed'), [
        f.map((r) => r.stageId),
        f.map((r) => r.status),
        f.map((r) => r.attemptNo),
        f.map((r) => r.error?.phase ?? 'MERGE'),
        f.map((r) => r.error?.code ?? 'UNKNOWN'),
        f.map((r) => r.error?.message ?? ''),
        f.map((r) => r.nextAttemptAt ?? null),
        f.map((r) => r.loadId),
        f.map((r) => r.lineNo),
        chunk.batchId,
      ]);
    }
  }

  async logErrors(rows: ErrorLogInput[]): Promise<void> {
    if (rows.length === 0) return;
    await this.session.query(q('log_errors'), [
      rows.map((r) => r.stageId),
      rows.map((r) => r.sourceKey),
      rows.map((r) => r.loadId),
      rows.map((r) => r.lineNo),
      rows.map((r) => r.batchId),
      rows.map((r) => r.attemptNo),
      rows.map((r) => r.phase),
      rows.map((r) => r.code),
      rows.map((r) => r.message),
      rows.map((r) => r.rawRecord),
    ]);
  }

  async lockErrorRows(selector: RowSelector, window: KeysetWindow): Promise<StageRowSnapshot[]> {
    return this.errorRows('lock_error_rows', selector, window);
  }

  async findErrorRows(selector: RowSelector, window: KeysetWindow): Promise<StageRowSnapshot[]> {
    return this.errorRows('find_error_rows', selector, window);
  }

  private async errorRows(query: 'lock_error_rows' | 'find_error_rows', selector: RowSelector, window: KeysetWindow): Promise<StageRowSnapshot[]> {
    const limit = Math.floor(window.limit);
    if (!(limit > 0)) return [];
    const { rows } = await this.session.query<SnapshotRow>(q(query), [
      listOrNull(selector.stageIds), listOrNull(selector.sourceKeys), listOrNull(selector.errorCodes), listOrNull(selector.loadIds),
      window.afterStageId, limit,
    ]);
    return rows.map(toSnapshot);
  }

  async lockStaleProcessing(olderThan: Date): Promise<StageRowSnapshot[]> {
    const { rows } = await this.session.query<SnapshotRow>(q('lock_stale_processing'), [olderThan]);
    return rows.map(toSnapshot);
  }

  async applyManualChanges(changes: ManualChange[]): Promise<void> {
    if (changes.length === 0) return;
    const c = changes;
    await this.session.query(q('apply_manual_changes'), [
      c.map((x) => x.stageId), c.map((x) => x.action), c.map((x) => x.oldStatus), c.map((x) => x.newStatus),
      c.map((x) => x.sourceKey), c.map((x) => x.values.customerId), c.map((x) => x.values.orderDate),
      c.map((x) => x.values.amount), c.map((x) => x.values.currency), c.map((x) => x.oldValues),
      c.map((x) => x.newValues), c.map((x) => x.operator), c.map((x) => x.reason),
    ]);
  }

  async latestRawRecords(stageIds: number[]): Promise<LatestRawRecord[]> {
    if (stageIds.length === 0) return [];
    const { rows } = await this.session.query<{ stage_id: number; load_id: number | null; raw_record: string | null }>(q('latest_raw_records'), [stageIds]);
    return rows.map((r) => ({ stageId: r.stage_id, loadId: r.load_id, rawRecord: r.raw_record }));
  }

  async fileLayouts(loadIds: number[]): Promise<Map<number, FileLayout>> {
    const layouts = new Map<number, FileLayout>();
    if (loadIds.length === 0) return layouts;
    const { rows } = await this.session.query<{ run_id: number; detail: string | null }>(q('file_layouts'), [loadIds]);
    for (const r of rows) {
      const layout = fileLayoutFromInvoked(r.detail);
      if (layout !== null) layouts.set(r.run_id, layout);
    }
    return layouts;
  }

  async addRunEvent(runId: number, event: RunEventInput): Promise<void> {
    await this.session.query(q('run_event'), [runId, event.event, event.detail === undefined ? null : JSON.stringify(event.detail)]);
  }
}

interface SnapshotRow {
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

function toSnapshot(r: SnapshotRow): StageRowSnapshot {
  return {
    stageId: r.stage_id, sourceKey: r.source_key, customerId: r.customer_id, orderDate: r.order_date,
    amount: r.amount, currency: r.currency, status: r.process_status, attemptCount: r.attempt_count,
    loadId: r.load_id, lineNo: r.line_no, errorCode: r.error_code, errorMessage: r.error_message, updatedAt: r.updated_at,
  };
}

type RunRow = {
  run_id: number; command: string; file_name: string | null; file_size: number | null; file_sha256: string | null;
  host: string; pid: number; status: RunStatus; started_at: Date; finished_at: Date | null; counts: string | null; message: string | null;
};

function toRunRecord(r: RunRow): RunRecord {
  return {
    runId: r.run_id, command: r.command, fileName: r.file_name, fileSize: r.file_size, fileSha256: r.file_sha256,
    host: r.host, pid: r.pid, status: r.status, startedAt: r.started_at, finishedAt: r.finished_at,
    counts: parseJsonObject(r.counts) as RunCounts | null, message: r.message,
  };
}

/** The PostgreSQL engine, over node-postgres (server) or PGlite (embedded). */
export class PostgresEngine implements Engine {
  readonly kind: 'pglite' | 'postgres';
  readonly capabilities;

  constructor(private readonly connector: PgConnector) {
    this.kind = connector.kind;
    this.capabilities = { concurrentConnections: connector.concurrent, maxChunkSize: 100_000 } as const;
  }

  classifyError(error: unknown): FailureKind {
    return classifyPgError(error);
  }

  /** One checked-out connection: BEGIN in try, ROLLBACK in catch, release(err) in finally. */
  async transaction<T>(fn: (tx: EngineTx) => Promise<T>, options?: TransactionOptions): Promise<T> {
    const begin = beginStatement(options);
    const lease = await this.connector.acquire();
    let broken: Error | undefined;
    try {
      await lease.session.exec(begin);
      const result = await fn(new PostgresTx(lease.session));
      await lease.session.exec('COMMIT');
      return result;
    } catch (error) {
      try {
        await lease.session.exec('ROLLBACK');
      } catch (rollbackError) {
        // The connection is unusable: discard it rather than return it to the pool.
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      }
      if (broken === undefined && this.classifyError(error) === 'fatal') {
        broken = error instanceof Error ? error : new Error(String(error));
      }
      throw error;
    } finally {
      lease.release(broken);
    }
  }

  private async withSession<T>(fn: (session: PgSession) => Promise<T>): Promise<T> {
    const lease = await this.connector.acquire();
    let broken: Error | undefined;
    try {
      return await fn(lease.session);
    } catch (error) {
      if (this.classifyError(error) === 'fatal') broken = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      lease.release(broken);
    }
  }

  async migrate(): Promise<string[]> {
    const migrations = listMigrations('postgres');
    return this.withSession(async (session) => {
      await session.exec('BEGIN');
      try {
        await session.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
        await session.exec(`CREATE TABLE IF NOT EXISTS order_loader_migration (
            version    integer PRIMARY KEY,
            name       varchar(200) NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now())`);
        const { rows } = await session.query<{ version: number }>('SELECT version FROM order_loader_migration');
        const applied = new Set(rows.map((r) => r.version));
        const names: string[] = [];
        for (const migration of migrations) {
          if (applied.has(migration.version)) continue;
          await session.exec(migration.sql);
          await session.query('INSERT INTO order_loader_migration (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
          names.push(migration.name);
        }
        await session.exec('COMMIT');
        return names;
      } catch (error) {
        await session.exec('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  async startRun(run: RunStart): Promise<number> {
    return this.withSession(async (s) => {
      const { rows } = await s.query<{ run_id: number }>(q('run_start'), [run.command, run.fileName, run.fileSize, run.fileSha256, run.host, run.pid]);
      const row = rows[0];
      if (row === undefined) throw new Error('load_run insert returned no id');
      return row.run_id;
    });
  }

  async finishRun(runId: number, status: RunStatus, counts: RunCounts, message: string | null): Promise<void> {
    await this.withSession((s) => s.query(q('run_finish'), [runId, status, JSON.stringify(counts), message]));
  }

  async listRuns(limit: number): Promise<RunRecord[]> {
    return this.withSession(async (s) => (await s.query<RunRow>(q('runs_list'), [limit])).rows.map(toRunRecord));
  }

  async tallyBatch(batchId: string): Promise<{ tally: StatusTally; lastStageId: number | null }> {
    return this.withSession(async (s) => {
      const { rows } = await s.query<{ process_status: ProcessStatus; n: number; last_stage_id: number }>(q('tally_batch'), [batchId]);
      const tally: StatusTally = {};
      for (const r of rows) tally[r.process_status] = r.n;
      return { tally, lastStageId: rows.length === 0 ? null : Math.max(...rows.map((r) => r.last_stage_id)) };
    });
  }

  async runningRuns(): Promise<RunRecord[]> {
    return this.withSession(async (s) => (await s.query<RunRow>(q('runs_running'))).rows.map(toRunRecord));
  }

  async listErrorRows(filter: { loadIds?: number[] | undefined; errorCodes?: string[] | undefined; limit: number; afterStageId?: number | undefined }): Promise<ErrorRowReport[]> {
    return this.withSession(async (s) => {
      const { rows } = await s.query<SnapshotRow & { phase: ErrorPhase | null; raw_record: string | null; logged_at: Date | null; error_load_id: number | null }>(
        q('error_rows'), [listOrNull(filter.loadIds), listOrNull(filter.errorCodes), filter.limit, filter.afterStageId ?? 0],
      );
      return rows.map((r) => ({ ...toSnapshot(r), phase: r.phase, rawRecord: r.raw_record, loggedAt: r.logged_at, errorLoadId: r.error_load_id }));
    });
  }

  async listRejectedLines(filter: { loadIds?: number[] | undefined; errorCodes?: string[] | undefined; limit: number; afterErrorId?: number | undefined }): Promise<RejectedLine[]> {
    return this.withSession(async (s) => {
      const { rows } = await s.query<{
        error_id: number; load_id: number | null; line_no: number | null; phase: ErrorPhase; error_code: string;
        error_message: string; raw_record: string | null; logged_at: Date;
      }>(q('rejected_lines'), [listOrNull(filter.loadIds), listOrNull(filter.errorCodes), filter.limit, filter.afterErrorId ?? 0]);
      return rows.map((r) => ({
        errorId: r.error_id, loadId: r.load_id, lineNo: r.line_no, phase: r.phase, errorCode: r.error_code,
        errorMessage: r.error_message, rawRecord: r.raw_record, loggedAt: r.logged_at,
      }));
    });
  }

  async stagingHistory(sha256: string): Promise<StagingHistory | null> {
    return this.withSession(async (s) => {
      const { rows } = await s.query<{ run_id: number; invoked: string | null; staged: boolean; checkpoint: string | null }>(q('staging_history'), [sha256]);
      const r = rows[0];
      return r === undefined ? null : stagingHistoryFromEvents(r.run_id, r.invoked, r.staged, r.checkpoint);
    });
  }

  async claimableCount(): Promise<number> {
    return this.withSession(async (s) => (await s.query<{ n: number }>(q('claimable_count'))).rows[0]?.n ?? 0);
  }

  async listRunEvents(runIds: number[]) {
    return this.withSession(async (s) => {
      const { rows } = await s.query<{ run_id: number; seq: number; event: string; detail: string | null; at: Date }>(q('run_events_list'), [runIds]);
      return rows.map((r) => ({ runId: r.run_id, seq: r.seq, event: r.event, detail: parseJsonObject(r.detail), at: r.at }));
    });
  }

  async statusReport(): Promise<StatusReport> {
    return this.withSession(async (s) => {
      const counts = await s.query<{ load_id: number | null; process_status: ProcessStatus; n: number }>(q('status_counts'));
      const oldest = await s.query<{ stage_id: number; source_key: string; staged_at: Date }>(q('status_oldest_ready'));
      const wait = await s.query<{ n: number; next_due_at: Date | null }>(q('status_retry_wait'));
      const o = oldest.rows[0];
      return {
        counts: counts.rows.map((r) => ({ loadId: r.load_id, status: r.process_status, count: r.n })),
        oldestReady: o === undefined ? null : { stageId: o.stage_id, sourceKey: o.source_key, stagedAt: o.staged_at },
        retryWait: { count: wait.rows[0]?.n ?? 0, nextDueAt: wait.rows[0]?.next_due_at ?? null },
      };
    });
  }

  async retryWaitSummary(): Promise<StatusReport['retryWait']> {
    return this.withSession(async (s) => {
      const wait = await s.query<{ n: number; next_due_at: Date | null }>(q('status_retry_wait'));
      return { count: wait.rows[0]?.n ?? 0, nextDueAt: wait.rows[0]?.next_due_at ?? null };
    });
  }

  async tallyLoads(loadIds: number[]): Promise<StatusTally> {
    if (loadIds.length === 0) return {};
    return this.withSession(async (s) => {
      const { rows } = await s.query<{ process_status: ProcessStatus; n: number }>(q('tally_loads'), [loadIds]);
      const tally: StatusTally = {};
      for (const r of rows) tally[r.process_status] = r.n;
      return tally;
    });
  }

  async createWorkspace(name: string): Promise<void> {
    const schema = workspaceSchema(name);
    await this.withSession((s) => s.exec(`CREATE SCHEMA ${schema}`));
    await this.connector.setSearchPath(schema);
    await this.migrate();
  }

  async dropWorkspace(name: string): Promise<void> {
    const schema = workspaceSchema(name);
    await this.connector.setSearchPath(null);
    await this.withSession((s) => s.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
  }

  async cancelRunning(): Promise<void> {
    await this.connector.cancelRunning?.();
  }

  async close(): Promise<void> {
    await this.connector.end();
  }
}

/**
 * BEGIN, with the lock timeout in the same round trip. SET LOCAL ends with the transaction, so
 * a pooled connection never carries it into other work (bookkeeping, an operator's retry).
 */
function beginStatement(options: TransactionOptions | undefined): string {
  const ms = options?.lockWaitMs;
  if (ms === undefined) return 'BEGIN';
  // spelled into the statement (SET takes no parameters): only a whole number gets there
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > 2_147_483_647) throw new RangeError(`lock wait out of range: ${ms} ms`);
  return `BEGIN; SET LOCAL lock_timeout = ${ms}`;
}
