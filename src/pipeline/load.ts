import type { Logger } from 'pino';
import type { RunCounts, StatusTally } from '../engine/types.js';
import { errorMessage } from '../errors.js';
import { openOrderFile, type FileEncoding, type OrderFile } from '../input/order-file.js';
import { sha256File } from '../input/file-digest.js';
import { LoadJournal } from './load-journal.js';
import { exitCodeFor, notDone } from './outcome.js';
import type { LoadPort, ProcessRunPort } from './ports.js';
import { processBacklog, type ProcessCounts, type ProcessResult } from './process.js';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
import { recordedRun, retried, startRun } from './run-record.js';
import { emptyStageCounts, stageFile, type FileStageCounts, type StageCheckpoint } from './stage.js';
import { planLoadId, planStaging, resumedAt } from './staging-plan.js';

export interface StageOptions {
  encoding: FileEncoding;
  delimiter: string;
  /** Lines per staging transaction. */
  batchSize: number;
  retry: RetryPolicy;
  logger: Logger;
  signal?: AbortSignal | undefined;
  onStageProgress?: ((file: string, bytesRead: number, size: number, linesRead: number) => void) | undefined;
  /** Stage every file again as a new load, even when the same file was staged completely before. */
  restage?: boolean | undefined;
}

export interface ProcessRunOptions {
  chunkSize: number;
  workers: number;
  maxAttempts: number;
  maxErrors?: number | undefined;
  rowRetryBaseMs: number;
  rowRetryMaxMs: number;
  /** The longest a chunk waits for a row another session holds, in ms (0: for ever); see ProcessOptions. */
  lockWaitMs: number;
  retry: RetryPolicy;
  logger: Logger;
  signal?: AbortSignal | undefined;
  onProcessProgress?: ((counts: ProcessCounts) => void) | undefined;
  /** `load` on a server database: process while staging (see LoadProcessing for the trade-off). */
  overlap?: boolean | undefined;
  /** Called once before processing with the number of rows claimable then. */
  onProcessStart?: ((claimable: number) => void) | undefined;
}

export type LoadOptions = StageOptions & ProcessRunOptions;

export const DEFAULT_LOAD_OPTIONS = {
  encoding: 'utf-8' as FileEncoding,
  delimiter: ',',
  batchSize: 5000,
  chunkSize: 2000,
  /** Measured best on 2 cores: 1 → 2 workers took process from 21 s to 15 s per 1M rows (bench/RESULTS.md). */
  workers: 2,
  maxAttempts: 5,
  rowRetryBaseMs: 30_000,
  rowRetryMaxMs: 30 * 60_000,
  /** Long enough for any ordinary transaction to let go of a row, short enough that a row left locked costs a nightly run seconds. */
  lockWaitMs: 10_000,
  retry: DEFAULT_RETRY,
};

export interface FileReport {
  file: string;
  /** The load its rows belong to (an earlier run's when this run resumed or skipped it). */
  loadId: number;
  runId: number;
  /** Set when staging was skipped: the same file (sha256) was staged completely before. */
  skipped: string | null;
  /** Set when staging resumed after the checkpoint of an interrupted load. */
  resumedAt: StageCheckpoint | null;
  counts: FileStageCounts;
  /**
   * Statuses of this file's rows at the end of the run: the rows of its load, and the rows of
   * the file identical to a row that was DONE already (`unchangedDone`), as DONE.
   */
  tally: StatusTally;
  /**
   * Rows of the file identical to a row DONE when it was staged: left untouched, so they stay
   * with the load that made them DONE (counted in `tally.DONE`). For a skipped file: the rows
   * of the load that staged it which are held by another load now.
   */
  unchangedDone: number;
  stoppedAt: { line: number; message: string } | null;
}

export interface LoadReport {
  command: 'load' | 'stage';
  files: FileReport[];
  process: ProcessCounts | null;
  elapsedMs: number;
  stageMs: number;
  processMs: number;
  /** Why the run stopped early, if it did (exit code 1). */
  aborted: string | null;
  /** Rows waiting to be retried after a transient failure, and when the first is due. */
  retryWait: { count: number; nextDueAt: Date | null } | null;
  exitCode: number;
}

export interface ProcessReport {
  command: 'process';
  runId: number;
  process: ProcessCounts;
  /** Rows in RETRY_WAIT when processing ended (not claimable yet), and when the first is due. */
  retryWait: { count: number; nextDueAt: Date | null };
  elapsedMs: number;
  aborted: string | null;
  exitCode: number;
}

function processOptions(runId: number, options: ProcessRunOptions) {
  return {
    runId,
    chunkSize: options.chunkSize,
    workers: options.workers,
    maxAttempts: options.maxAttempts,
    maxErrors: options.maxErrors,
    rowRetryBaseMs: options.rowRetryBaseMs,
    rowRetryMaxMs: options.rowRetryMaxMs,
    lockWaitMs: options.lockWaitMs,
    retry: options.retry,
    logger: options.logger,
    signal: options.signal,
    onChunk: options.onProcessProgress,
  };
}

function stoppedMessage(stopped: ProcessResult['stopped'], maxErrors: number | undefined, errored: number, rejected = 0): string | null {
  if (stopped === 'interrupted') return 'interrupted: the current chunk was finished or rolled back; run the command again to continue';
  if (stopped === 'max-errors') return maxErrorsMessage(maxErrors ?? 0, rejected, errored);
  return null;
}

/**
 * --max-errors N counts, as SQL*Loader's ERRORS=, every row the run rejected: the lines of its
 * files rejected while staging (a file skipped or resumed counts those its load rejected
 * before, so the same file always gives the same answer) and the rows its processing ended
 * ERROR. N of them are allowed; one more stops the run (exit 1), and what was committed stays.
 */
function maxErrorsMessage(maxErrors: number, rejected: number, errored: number): string {
  return `stopped: more than --max-errors ${maxErrors} rows rejected (${rejected} line(s) rejected while staging, ${errored} row(s) ended ERROR while processing; committed batches and chunks stay)`;
}

/** Open every file and check its header before anything is written. */
async function openFiles(paths: string[], options: LoadOptions): Promise<OrderFile[]> {
  const files: OrderFile[] = [];
  try {
    for (const path of paths) files.push(await openOrderFile(path, { encoding: options.encoding, delimiter: options.delimiter }));
  } catch (error) {
    for (const f of files) f.close();
    throw error;
  }
  for (const f of files) {
    if (f.header.extraColumns.length > 0) {
      options.logger.warn({ file: f.path, columns: f.header.extraColumns }, `${f.path}: ignoring extra column(s) ${f.header.extraColumns.join(', ')}`);
    }
  }
  return files;
}

/**
 * The processing of a `load`: started after staging, or with the first file's run under
 * --overlap (server databases), which processes while staging. Staging is bound by this
 * process's CPU (parsing), processing by the database, so together they take about the longer
 * of the two instead of their sum (bench/RESULTS.md: 0.46 → 0.54 of the ceiling). Not the
 * default: a key repeated within one file can then be merged with its earlier line before the
 * later line is staged, and if the later line is rejected, orders keeps the earlier line's values
 * (the staging rule, "the last occurrence wins", holds for the stage, not for orders:
 * docs/ARCHITECTURE.md, section 2). For files known to have unique keys it is safe. PGlite has
 * one connection: its phases always run in sequence.
 */
class LoadProcessing {
  readonly overlap: boolean;
  /** Stops staging too: the caller's signal, or a processing failure. */
  readonly signal: AbortSignal;
  private readonly internal = new AbortController();
  private stagingDone = false;
  private running: Promise<ProcessResult> | null = null;
  private startedAt = 0;

  constructor(
    private readonly engine: LoadPort,
    command: 'load' | 'stage',
    private readonly options: LoadOptions,
    private readonly rejectedWhileStaging: () => number,
  ) {
    this.overlap = command === 'load' && options.overlap === true && engine.capabilities.concurrentConnections;
    this.signal = options.signal === undefined ? this.internal.signal : AbortSignal.any([options.signal, this.internal.signal]);
  }

  start(runId: number): void {
    if (this.running !== null) return;
    this.startedAt = performance.now();
    this.running = processBacklog(this.engine, {
      ...processOptions(runId, this.options),
      signal: this.signal,
      stagingDone: this.overlap ? () => this.stagingDone : undefined,
      rejectedWhileStaging: this.rejectedWhileStaging,
    });
    // awaited by result(); a failure also stops the staging loop
    this.running.catch(() => this.internal.abort());
  }

  stagingFinished(): void {
    this.stagingDone = true;
  }

  /** The processing's result and how long it took, or null when it never started. */
  async result(): Promise<{ result: ProcessResult; ms: number } | null> {
    if (this.running === null) return null;
    const result = await this.running;
    return { result, ms: performance.now() - this.startedAt };
  }

  /** After a failure: stop processing and wait until its current chunks are committed or rolled back. */
  async stop(): Promise<void> {
    this.internal.abort();
    if (this.running !== null) await Promise.allSettled([this.running]);
  }
}

/** What staging one file needs of the run it is part of. */
interface FileStaging {
  engine: LoadPort;
  options: LoadOptions;
  db: ReturnType<typeof retried>;
  journal: LoadJournal;
  processing: LoadProcessing;
  /** Lines rejected while staging: by the files staged so far, and by the file being staged. */
  rejected: { files: number; current: number };
}

/**
 * A staged row moves to this load unless it is identical to a row already DONE (that one is
 * left untouched, with the load that made it DONE): the file's rows not on its load. Only
 * unchanged rows that were not ERROR can be such rows: none, no query.
 */
async function heldElsewhere(run: FileStaging, counts: FileStageCounts, loadId: number): Promise<number> {
  const candidates = counts.unchanged - counts.unchangedError;
  if (candidates <= 0) return 0;
  const onLoad = Object.values(await run.db('counting the rows of the load', () => run.engine.tallyLoads([loadId]))).reduce((n, c) => n + c, 0);
  return Math.min(candidates, Math.max(0, counts.inserted + counts.updated + counts.unchanged - onLoad));
}

/** One file of a `load`/`stage`: its run, then skip, stop, resume or stage it as its staging plan says. */
async function stageListedFile(run: FileStaging, listed: OrderFile): Promise<{ report: FileReport; interrupted: boolean }> {
  const { engine, options } = run;
  const logger = options.logger;
  const sha = await sha256File(listed.path);
  const plan = planStaging(await run.db('reading the staging history', () => engine.stagingHistory(sha)), options);
  const fileRun = await run.journal.startFile(listed, sha);
  const runId = fileRun.runId;
  if (run.processing.overlap) run.processing.start(runId);
  const loadId = planLoadId(plan, runId);
  await fileRun.invoked(listed, sha, loadId, options);

  if (plan.action === 'skip' || plan.action === 'stop') {
    listed.close();
    const message = plan.action === 'skip'
      ? `${listed.path}: already staged by load ${loadId} (same sha256, encoding and delimiter): staging skipped (--restage stages it again)`
      : `${listed.path}: load ${loadId} could not read this file past line ${plan.stoppedAt.line}: not read again (fix the file and load it)`;
    if (plan.action === 'skip') logger.info({ runId, loadId, file: listed.path }, message);
    else logger.warn({ runId, loadId, file: listed.path, line: plan.stoppedAt.line }, message);
    await fileRun.notRead(plan, loadId);
    const rejected = plan.committed?.rejected ?? 0;
    const report: FileReport = {
      file: listed.path, loadId, runId, counts: { ...emptyStageCounts(), rejected }, tally: {},
      unchangedDone: plan.committed === null ? 0 : await heldElsewhere(run, plan.committed, loadId),
      stoppedAt: plan.action === 'stop' ? plan.stoppedAt : null, skipped: message, resumedAt: null,
    };
    run.rejected.files += rejected;
    return { report, interrupted: false };
  }

  let file = listed;
  if (plan.action === 'resume') {
    listed.close();
    file = await openOrderFile(listed.path, { encoding: options.encoding, delimiter: options.delimiter, resumeAt: plan.from });
    logger.info({ runId, loadId, file: file.path, line: plan.from.line, byte: plan.from.byte }, `${file.path}: resuming load ${loadId} after line ${plan.from.line}`);
    await fileRun.resumed(loadId, plan.from);
  }
  logger.info({ runId, loadId, file: file.path, size: file.size }, 'staging');
  const result = await stageFile(engine, runId, file, {
    loadId,
    batchSize: options.batchSize,
    retry: options.retry,
    logger,
    signal: run.processing.signal,
    initialCounts: plan.action === 'resume' ? (plan.counts ?? undefined) : undefined,
    // this run is the latest of this file (sha256): its last checkpoint is the history's
    committedCheckpoint: async () => (await engine.stagingHistory(sha))?.checkpoint ?? null,
    onBatch: (counts) => {
      run.rejected.current = counts.rejected;
      options.onStageProgress?.(file.path, file.bytesRead(), file.size, counts.read);
    },
  });
  run.rejected.files += result.counts.rejected;
  run.rejected.current = 0;
  await fileRun.staged(loadId, result);
  logger.info({ runId, loadId, ...result.counts }, 'staged');
  // right after staging, before a later file of this run can take rows over
  const unchangedDone = await heldElsewhere(run, result.counts, loadId);
  return {
    report: { file: file.path, loadId, runId, counts: result.counts, tally: {}, unchangedDone, stoppedAt: result.stoppedAt, skipped: null, resumedAt: resumedAt(plan) },
    interrupted: result.interrupted,
  };
}

/** A file run's counts for its load_run row: the staging counts and the end tally as status_<STATUS>. */
function runCounts(reports: FileReport[]): (runId: number) => RunCounts {
  return (runId) => {
    const report = reports.find((r) => r.runId === runId);
    return { ...(report?.counts ?? {}), ...Object.fromEntries(Object.entries(report?.tally ?? {}).map(([k, v]) => [`status_${k}`, v])) };
  };
}

/**
 * `load` (stage every file, then process until nothing is claimable) and `stage` (stage only).
 * Every file's header is checked before anything is written. Each file is one load_run; its
 * run_id is the load_id of the rows it stages.
 */
export async function runLoad(engine: LoadPort, command: 'load' | 'stage', paths: string[], options: LoadOptions): Promise<LoadReport> {
  const started = performance.now();
  const files = await openFiles(paths, options);
  const rejected = { files: 0, current: 0 };
  const rejectedWhileStaging = () => rejected.files + rejected.current;
  const tooManyRejected = () => options.maxErrors !== undefined && rejectedWhileStaging() > options.maxErrors;
  const processing = new LoadProcessing(engine, command, options, rejectedWhileStaging);
  const run: FileStaging = { engine, options, db: retried(engine, options), journal: new LoadJournal(engine, command, options), processing, rejected };
  const reports: FileReport[] = [];
  let processCounts: ProcessCounts | null = null;
  let aborted: string | null = null;
  let stoppedByMaxErrors = false;
  let stageMs = 0;
  let processMs = 0;

  try {
    const stageStarted = performance.now();
    try {
      for (const [i, file] of files.entries()) {
        if (tooManyRejected()) {
          // the files after the one that went past --max-errors are not staged (nor processed)
          for (const rest of files.slice(i)) rest.close();
          stoppedByMaxErrors = true;
          break;
        }
        const staged = await stageListedFile(run, file);
        reports.push(staged.report);
        if (staged.interrupted) {
          aborted = 'interrupted while staging: committed batches stay; run the same command again to resume';
          break;
        }
      }
    } finally {
      processing.stagingFinished();
      stageMs = performance.now() - stageStarted;
    }

    if (tooManyRejected()) stoppedByMaxErrors = true;
    const lastRun = run.journal.lastRunId;
    if (command === 'load' && aborted === null && !stoppedByMaxErrors && lastRun !== undefined && !processing.overlap) {
      if (options.onProcessStart !== undefined) options.onProcessStart(await run.db('counting claimable rows', () => engine.claimableCount()));
      processing.start(lastRun);
    }
    const processed = await processing.result();
    if (processed !== null) {
      processMs = processed.ms;
      processCounts = processed.result.counts;
      aborted ??= stoppedMessage(processed.result.stopped, options.maxErrors, processCounts.error, rejectedWhileStaging());
      await run.journal.processed(processCounts);
    }
    if (aborted === null && stoppedByMaxErrors) aborted = maxErrorsMessage(options.maxErrors ?? 0, rejectedWhileStaging(), processCounts?.error ?? 0);
  } catch (error) {
    await processing.stop();
    await run.journal.fail(errorMessage(error), runCounts(reports));
    throw error;
  }

  for (const report of reports) {
    const tally = await run.db('counting the rows of the load', () => engine.tallyLoads([report.loadId]));
    report.tally = report.unchangedDone > 0 ? { ...tally, DONE: (tally.DONE ?? 0) + report.unchangedDone } : tally;
  }
  const unreadFile = reports.find((r) => r.stoppedAt !== null);
  if (aborted === null && unreadFile?.stoppedAt) aborted = `${unreadFile.file}: line ${unreadFile.stoppedAt.line}: ${unreadFile.stoppedAt.message}`;
  await run.journal.finish(aborted === null ? 'COMPLETED' : 'FAILED', aborted, runCounts(reports));

  // processing took claimable rows of any load: what waits now may be another load's too
  const waiting = processCounts !== null || reports.some((r) => (r.tally.RETRY_WAIT ?? 0) > 0) ? await run.db('reading the rows waiting to retry', () => engine.retryWaitSummary()) : null;
  return {
    command,
    files: reports,
    process: processCounts,
    retryWait: waiting,
    elapsedMs: performance.now() - started,
    stageMs,
    processMs,
    aborted,
    exitCode: exitCodeFor({
      failed: aborted !== null,
      // `stage` promises staged rows, `load` rows DONE
      rowsRejected: reports.some((r) => r.counts.rejected > 0 || (command === 'load' ? notDone(r.tally) > 0 : (r.tally.ERROR ?? 0) > 0)),
    }),
  };
}

/**
 * `process`: claimable rows of any load, until nothing is claimable now. Within `run` (a
 * `retry`'s run, started by the caller) the processing is part of that run: its events go
 * there and it ends that run, with `run.counts` added to its counts.
 */
export async function runProcess(engine: ProcessRunPort, options: ProcessRunOptions, run?: { runId: number; counts?: RunCounts }): Promise<ProcessReport> {
  const started = performance.now();
  const db = retried(engine, options);
  const record = run === undefined ? await startRun(engine, 'process', {}, options) : recordedRun(engine, run.runId, options);
  if (run === undefined) await record.event('invoked');
  try {
    if (options.onProcessStart !== undefined) options.onProcessStart(await db('counting claimable rows', () => engine.claimableCount()));
    const result = await processBacklog(engine, processOptions(record.runId, options));
    const aborted = stoppedMessage(result.stopped, options.maxErrors, result.counts.error);
    await record.event('processed', { ...result.counts });
    await record.finish(aborted === null ? 'COMPLETED' : 'FAILED', { ...run?.counts, ...result.counts }, aborted);
    // nothing claimable now does not mean nothing left: say what waits, and until when
    const retryWait = await db('reading the rows waiting to retry', () => engine.retryWaitSummary());
    return {
      command: 'process',
      runId: record.runId,
      process: result.counts,
      retryWait,
      elapsedMs: performance.now() - started,
      aborted,
      exitCode: exitCodeFor({ failed: aborted !== null, rowsRejected: result.counts.error + result.counts.retryWait > 0 }),
    };
  } catch (error) {
    await record.fail(error, { ...run?.counts });
    throw error;
  }
}
