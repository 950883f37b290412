import type { Logger } from 'pino';
import { DEFAULT_DB, maskDbUrl, parseDbUrl, type DbTarget } from './engine/db-url.js';
import { openEngine } from './engine/open.js';
import type { Engine, RunCounts, RunEventRecord, RunRecord, StatusReport } from './engine/types.js';
import { exportErrorRows, type ErrorExportFilter, type ErrorExportRow } from './pipeline/errors-export.js';
import {
  checkRetryRequest,
  markAbandonedRuns,
  operatorOf,
  recoverAuditOf,
  recoverRows,
  retryRows,
  RowChangedError,
  type ManualChangeReport,
  type RecoverRequest,
  type RetryRequest,
} from './pipeline/operations.js';
import { startRecordedRun } from './pipeline/run-record.js';
import { acceptLoad, checkAcceptRequest, type AcceptPort, type AcceptReport, type AcceptRequest } from './pipeline/accept.js';
import {
  rejectedLinesPage,
  rejectedPage,
  rowHistory,
  type RejectedLinesPage,
  type RejectedPage,
  type RejectedPageFilter,
  type RowHistoryView,
} from './pipeline/review.js';
import { RunAbortedError, UserError } from './errors.js';
import { describeConnectError, describeDbError, isOutOfSpace } from './pipeline/db-error.js';
import { createLogger } from './log.js';
import type { ProfileGuess } from './input/guess/index.js';
import { ConnectTimeoutError, retryConnect } from './pipeline/connect-retry.js';
import type { OperatorPort } from './pipeline/ports.js';
import { retryGaveUp, retryingTransient } from './pipeline/retry.js';
import { countErrorCodes, type ErrorCodeCount } from './pipeline/error-codes.js';
import {
  DEFAULT_LOAD_OPTIONS,
  type DatabaseState,
  runLoad,
  runProcess,
  type LoadOptions,
  type LoadReport,
  type ProcessReport,
  type ProcessRunOptions,
} from './pipeline/load.js';
import { dryRunFiles, stripUndefined, type DryRunFileResult } from './loader-dry-run.js';
import { databaseState, runsWithEvents, statusOf, type LoadStatus, type StatusFilter } from './loader-status.js';

export interface OpenLoaderOptions {
  /** Database: pglite:<dir>, pglite:memory, postgres://…, oracle://… (default: ORDER_LOADER_DB, then pglite:./.order-loader/db). */
  db?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  logger?: Logger | undefined;
  /** Concurrent workers the caller will use (sizes the connection pool). */
  workers?: number | undefined;
  /**
   * Apply pending migrations on open (default true: a newcomer's first command just works); a
   * function decides once the engine is open (`bench` on Oracle touches no loader table).
   */
  migrate?: boolean | ((engine: Engine) => boolean) | undefined;
  /**
   * pglite:<dir> is one process's at a time: how long to wait while another process holds it
   * (default 10 minutes; 0 refuses at once). Each wait is logged at info.
   */
  lockTimeoutMs?: number | undefined;
  /** pglite:<dir>: what this process is doing, named in the folder's lock for whoever waits (default "library"). */
  command?: string | undefined;
  /** Ends a wait for the folder (the open fails as interrupted). */
  signal?: AbortSignal | undefined;
  /** Told, besides the info log line, when a wait for the folder starts. */
  onLockWait?: ((message: string) => void) | undefined;
  /** Called with the parsed --db target before anything is opened: may refuse it (throw). */
  beforeOpen?: ((target: DbTarget) => void) | undefined;
  /**
   * A server database that cannot be reached (refused, reset, starting up, too many
   * connections): how long to keep trying the first connection and the migrations, with
   * backoff, each wait logged at warn (default 0: fail at once; the CLI's --connect-timeout).
   * A refused login or a missing database fails at once. Not for pglite (see lockTimeoutMs).
   */
  connectTimeoutMs?: number | undefined;
}

/** How long OrderLoader.open waits for a pglite folder another process holds, unless told. */
export const DEFAULT_LOCK_TIMEOUT_MS = 10 * 60_000;

/** The library's entry point: one database, the operations of the CLI as methods. */
export class OrderLoader {
  private constructor(
    readonly engine: Engine,
    readonly logger: Logger,
    /** The --db value with any password masked. */
    readonly dbLabel: string,
    /** What --db named (null for an engine the caller opened): failures to reach it are said as such. */
    private readonly target: DbTarget | null = null,
    private readonly connectWait: { timeoutMs: number; signal?: AbortSignal | undefined } = { timeoutMs: 0 },
  ) {}

  /** `attempt`, tried again while a server database cannot be reached (OpenLoaderOptions.connectTimeoutMs). */
  private reachDatabase<T>(attempt: () => Promise<T>): Promise<T> {
    if (this.target === null || this.target.kind === 'pglite') return attempt();
    return retryConnect(attempt, { ...this.connectWait, label: this.dbLabel, logger: this.logger });
  }

  /**
   * Apply pending migrations and mark abandoned runs FAILED; returns the migrations applied. The
   * first statement is also the first connection (pools connect lazily): a refused connection or
   * login is reported as such, not as a schema problem.
   */
  private async prepareSchema(): Promise<string[]> {
    try {
      const applied = await this.reachDatabase(() => this.engine.migrate());
      if (applied.length > 0) this.logger.info({ applied }, 'schema migrations applied');
      const abandoned = await markAbandonedRuns(this.engine);
      if (abandoned.length > 0) this.logger.warn({ runs: abandoned }, `marked ${abandoned.length} abandoned run(s) FAILED`);
      return applied;
    } catch (caught) {
      if (caught instanceof RunAbortedError) throw caught;
      const error = lastError(caught);
      const target = this.target;
      const connect = target === null || target.kind === 'pglite' ? null : describeConnectError(error, target.place);
      if (connect !== null)
        throw new RunAbortedError(`cannot open database ${this.dbLabel}: ${connect}${gaveUp(caught)}`, 'unreachable', { cause: error });
      const space = isOutOfSpace(error) ? ' (the database is out of space: free some, then run the command again)' : '';
      throw new RunAbortedError(
        `cannot prepare the schema on ${this.dbLabel}: ${describeDbError(error)}${space}${gaveUp(caught)}`,
        'unreachable',
        {
          cause: error,
        },
      );
    }
  }

  /**
   * A draft load profile of a file from its start (what `order-loader guess` prints): `yaml` with
   * its evidence as comments, and the proposed mapping. No database is opened. A file that
   * cannot be read as text: UserError saying why.
   */
  static async guess(path: string): Promise<ProfileGuess> {
    // imported here: a program that loads files starts without guess's detectors
    const { guessProfile } = await import('./input/guess/index.js');
    return guessProfile(path);
  }

  static async open(options: OpenLoaderOptions = {}): Promise<OrderLoader> {
    const env = options.env ?? process.env;
    const db = options.db ?? (env.ORDER_LOADER_DB !== undefined && env.ORDER_LOADER_DB !== '' ? env.ORDER_LOADER_DB : DEFAULT_DB);
    const logger = options.logger ?? createLogger('info');
    const target = parseDbUrl(db, env);
    options.beforeOpen?.(target);
    const label = maskDbUrl(db);
    const connectWait = { timeoutMs: options.connectTimeoutMs ?? 0, signal: options.signal };
    let engine: Engine;
    try {
      // Oracle connects here (its character set is checked); the PostgreSQL pool at the first query
      const open = () =>
        openEngine(target, {
          connections: Math.max(1, options.workers ?? DEFAULT_LOAD_OPTIONS.workers),
          debug: (fields, message) => logger.debug(fields, message),
          folderLock: {
            command: options.command ?? 'library',
            timeoutMs: options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
            signal: options.signal,
            onWait: (message, holder) => {
              logger.info({ holder }, message);
              options.onLockWait?.(message);
            },
          },
        });
      engine = target.kind === 'pglite' ? await open() : await retryConnect(open, { ...connectWait, label, logger });
    } catch (error) {
      if (error instanceof RunAbortedError) throw error;
      throw new RunAbortedError(
        `cannot open database ${label}: ${describeOpenError(lastError(error), target)}${gaveUp(error)}`,
        'unreachable',
        {
          cause: lastError(error),
        },
      );
    }
    const loader = new OrderLoader(engine, logger, label, target, connectWait);
    const migrate = typeof options.migrate === 'function' ? options.migrate(engine) : options.migrate !== false;
    if (migrate) {
      try {
        await loader.prepareSchema();
      } catch (error) {
        await engine.close().catch(() => undefined);
        throw error;
      }
    }
    return loader;
  }

  /** A loader over an engine the caller opened (and migrated); close() closes the engine. */
  static fromEngine(engine: Engine, logger: Logger, label: string = engine.kind): OrderLoader {
    return new OrderLoader(engine, logger, label);
  }

  /**
   * Create or upgrade the schema; returns the migrations applied (open the loader with
   * `migrate: false` to see them here: open applies them otherwise). Recorded as an `init` run
   * once the run tables exist.
   */
  async init(): Promise<string[]> {
    const applied = await this.prepareSchema();
    const run = await startRecordedRun(this.engine, 'init', { logger: this.logger });
    try {
      await run.event('migrated', { applied });
      await run.complete({ migrations: applied.length });
    } catch (error) {
      await run.fail(error);
      throw error;
    }
    return applied;
  }

  /** Stage the files, then process every claimable row: also with no file, the due rows of earlier loads. */
  load(files: string[], options: Partial<LoadOptions> = {}): Promise<LoadReport> {
    return runLoad(this.engine, 'load', files, this.loadOptions(options));
  }

  stage(files: string[], options: Partial<LoadOptions> = {}): Promise<LoadReport> {
    if (files.length === 0) throw new UserError('stage: name at least one file');
    return runLoad(this.engine, 'stage', files, this.loadOptions(options));
  }

  process(options: Partial<ProcessRunOptions> = {}): Promise<ProcessReport> {
    return runProcess(this.engine, this.loadOptions(options));
  }

  /** Parse and validate files, writing nothing (not even a run record). */
  dryRun(files: string[], options: Partial<LoadOptions> = {}): Promise<DryRunFileResult[]> {
    return OrderLoader.dryRunFiles(files, { logger: this.logger, ...stripUndefined(options) });
  }

  /** --dry-run needs no database at all (see dryRunFiles in src/loader-dry-run.ts). */
  static dryRunFiles(files: string[], options: Partial<LoadOptions> = {}): Promise<DryRunFileResult[]> {
    return dryRunFiles(files, options);
  }

  /** ERROR → READY for the chosen rows (with corrections), audited; then, unless dryRun or process false, process. */
  async retry(
    request: RetryRequest,
    options: Partial<ProcessRunOptions> & { process?: boolean } = {},
  ): Promise<{ retry: ManualChangeReport; process: ProcessReport | null }> {
    const o = this.loadOptions(options);
    const port = this.operatorPort('retry', o);
    // a dry run changes nothing: no run record
    if (request.dryRun)
      return { retry: await retryRows(port, request, { batchSize: options.chunkSize, signal: options.signal }), process: null };
    checkRetryRequest(request);
    // the processing that follows is part of this `retry` run (its events, its end)
    const run = await startRecordedRun(this.engine, 'retry', o, {
      operator: operatorOf(request.operator),
      reason: request.reason,
      all: request.all,
      corrected: Object.keys(request.corrections),
      process: options.process !== false,
    });
    let handedOver = false;
    try {
      // one batch of rows per transaction, as large as a processing chunk
      const retry = await retryRows(port, request, {
        batchSize: options.chunkSize,
        signal: options.signal,
        lockWaitMs: o.lockWaitMs,
      }).catch((error: unknown) => {
        throw retryGaveUp(error, this.engine, o.retry.attempts);
      });
      const rows = retry.count;
      // rows of loads held for their control totals were chosen and left ERROR: the run's record
      // says how many, as its output says which loads (nothing failed: `accept` lets them through)
      const controlHeld = (retry.controlHeld ?? []).reduce((n, h) => n + h.rows, 0);
      const counts: RunCounts = controlHeld === 0 ? { retried: rows } : { retried: rows, controlHeld };
      await run.event('retried', controlHeld === 0 ? { rows } : { rows, controlHeld: retry.controlHeld });
      if (options.process === false || rows === 0) {
        await run.complete(counts);
        return { retry, process: null };
      }
      handedOver = true;
      return { retry, process: await runProcess(this.engine, o, { runId: run.runId, counts }) };
    } catch (error) {
      // a form the row no longer matches (another operator was first): refused before anything
      // was written, which is what the run says; the command did not fail
      if (error instanceof RowChangedError) {
        await run.event('refused', { reason: error.message });
        await run.finish('COMPLETED', { retried: 0, refused: 1 }, `refused: ${error.message}`);
      } else if (!handedOver) await run.fail(error);
      throw error;
    }
  }

  /**
   * A load held for its control totals → its rows released to processing, audited, the load
   * marked accepted; then, unless dryRun or process false, process (part of the accept's run).
   */
  async accept(
    request: AcceptRequest,
    options: Partial<ProcessRunOptions> & { process?: boolean } = {},
  ): Promise<{ accept: AcceptReport; process: ProcessReport | null }> {
    const o = this.loadOptions(options);
    const port: AcceptPort = retryingTransient(this.engine, this.engine, 'accept', { policy: o.retry, logger: o.logger, signal: o.signal });
    if (request.dryRun) return { accept: await acceptLoad(port, request, null), process: null };
    checkAcceptRequest(request);
    const run = await startRecordedRun(this.engine, 'accept', o, {
      operator: operatorOf(request.operator),
      reason: request.reason,
      loadId: request.loadId,
    });
    let handedOver = false;
    try {
      const accept = await acceptLoad(port, request, run.runId);
      await run.event('accepted', { loadId: request.loadId, rows: accept.count });
      if (options.process === false || accept.count === 0) {
        await run.complete({ accepted: accept.count });
        return { accept, process: null };
      }
      handedOver = true;
      return { accept, process: await runProcess(this.engine, o, { runId: run.runId, counts: { accepted: accept.count } }) };
    } catch (error) {
      if (!handedOver) await run.fail(error);
      throw error;
    }
  }

  async recover(request: RecoverRequest): Promise<ManualChangeReport> {
    const port = this.operatorPort('recover', this.loadOptions({}));
    const heldLoads = () => this.engine.heldLoads();
    if (request.dryRun) return recoverRows(port, request, heldLoads);
    const run = await startRecordedRun(
      this.engine,
      'recover',
      { logger: this.logger },
      {
        olderThanMs: request.olderThanMs,
        ...recoverAuditOf(request),
      },
    );
    try {
      const report = await recoverRows(port, request, heldLoads);
      await run.event('recovered', { rows: report.count, released: report.released ?? 0 });
      await run.complete({ recovered: report.count });
      return report;
    } catch (error) {
      await run.fail(error);
      throw error;
    }
  }

  /** The error codes of some loads with their row counts, most rows first (the markdown report). */
  errorCodeCounts(loadIds: number[]): Promise<ErrorCodeCount[]> {
    return countErrorCodes(this.engine, loadIds);
  }

  /** Every rejected line (ERROR rows, then lines rejected without a stage row), as an array: for a few rows; errorRows() streams. */
  async errors(filter: { loadIds?: number[]; errorCodes?: string[]; limit?: number } = {}): Promise<ErrorExportRow[]> {
    const rows: ErrorExportRow[] = [];
    for await (const row of this.errorRows({ ...filter, limit: filter.limit ?? 1_000_000 })) rows.push(row);
    return rows;
  }

  /** The rejected lines page by page (`pageSize` rows asked of the database at a time): memory does not grow with their number. */
  errorRows(filter: ErrorExportFilter = {}, pageSize?: number): AsyncGenerator<ErrorExportRow> {
    return exportErrorRows(this.engine, filter, pageSize);
  }

  /** The review page (`serve`): one page of ERROR rows, newest first, by keyset (src/pipeline/review.ts). */
  rejectedPage(filter: RejectedPageFilter = {}): Promise<RejectedPage> {
    return rejectedPage(this.engine, filter);
  }

  /** The review page: the lines refused while staging without a stage row, oldest first, by keyset. */
  rejectedLines(filter: Parameters<typeof rejectedLinesPage>[1] = {}): Promise<RejectedLinesPage> {
    return rejectedLinesPage(this.engine, filter);
  }

  /** The review page's one row: its values, every error-log and audit row, the loads it came from. */
  rowHistory(stageId: number): Promise<RowHistoryView> {
    return rowHistory(this.engine, stageId);
  }

  /** The database's state now: rows by status, and since when the oldest row still to be loaded waits (the metrics file's gauges). */
  databaseState(): Promise<DatabaseState> {
    return databaseState(this.engine);
  }

  /** Counts by status, the loads asked for, the last 5 runs (see statusOf in src/loader-status.ts). */
  status(filter: StatusFilter = {}): Promise<StatusReport & { runs: RunRecord[]; loads: LoadStatus[]; otherLoads: number }> {
    return statusOf(this.engine, filter);
  }

  /** The newest runs with their events and the load profile each read its file with (see runsWithEvents). */
  runs(limit = 20): Promise<Array<RunRecord & { events: RunEventRecord[]; profile?: { name: string; sha256: string } }>> {
    return runsWithEvents(this.engine, limit);
  }

  /**
   * Cancel the statements running now (before exiting on a second interrupt): the database
   * rolls the open chunks back and releases their locks, also a chunk blocked on a lock.
   */
  async cancelRunning(): Promise<void> {
    await this.engine.cancelRunning?.();
  }

  close(): Promise<void> {
    return this.engine.close();
  }

  /** The engine for an operator command's transactions: one the database rolled back for a reason of the moment runs again. */
  private operatorPort(command: 'retry' | 'recover', o: LoadOptions): OperatorPort {
    return retryingTransient(this.engine, this.engine, `${command} batch`, { policy: o.retry, logger: o.logger, signal: o.signal });
  }

  private loadOptions(options: Partial<LoadOptions>): LoadOptions {
    return { ...DEFAULT_LOAD_OPTIONS, logger: this.logger, ...stripUndefined(options) };
  }
}

/** The driver's error behind a connect wait that timed out. */
function lastError(error: unknown): unknown {
  return error instanceof ConnectTimeoutError ? error.cause : error;
}

/** What a connect wait that timed out adds to the error line. */
function gaveUp(error: unknown): string {
  return error instanceof ConnectTimeoutError ? `; ${error.message}` : '';
}

function describeOpenError(error: unknown, target: DbTarget): string {
  return (target.kind === 'pglite' ? null : describeConnectError(error, target.place)) ?? describeDbError(error);
}
