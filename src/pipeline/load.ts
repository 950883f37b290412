import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Engine, RunCounts, StatusTally } from '../engine/types.js';
import { RunAbortedError, errorMessage } from '../errors.js';
import { openOrderFile, type FileEncoding, type OrderFile } from '../input/order-file.js';
import { sha256File } from '../input/file-digest.js';
import { EXIT_FAILED, EXIT_OK, EXIT_ROWS_REJECTED, notDone } from './outcome.js';
import { processBacklog, type ProcessCounts, type ProcessResult } from './process.js';
import { DEFAULT_RETRY, withChunkRetry, type RetryPolicy } from './retry.js';
import { emptyStageCounts, isStageCounts, stageFile, type FileStageCounts, type StageCheckpoint } from './stage.js';

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
  /** `load` on a server database: process while staging (see runLoad for the trade-off). */
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

function runStart(command: string, file: OrderFile | null, sha: string | null) {
  return {
    command,
    fileName: file?.path ?? null,
    fileSize: file?.size ?? null,
    fileSha256: sha,
    host: hostname(),
    pid: process.pid,
  };
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

/**
 * Run-level statements (the run record, its events, tallies) are retried with backoff like a
 * chunk when the database goes away for a moment (a restart): otherwise a restart landing on one
 * of them (e.g. the "processed" event after the last chunk) failed the whole run, exit 1, as an
 * "unexpected error" (test/survival/restart.test.ts).
 */
type Bookkeeping = <T>(what: string, work: () => Promise<T>) => Promise<T>;
function bookkeeping(engine: Engine, options: { retry: RetryPolicy; logger: Logger; signal?: AbortSignal | undefined }): Bookkeeping {
  return (what, work) => withChunkRetry(engine, what, work, { policy: options.retry, logger: options.logger, signal: options.signal });
}

/**
 * `load` (stage every file, then process until nothing is claimable) and `stage` (stage only).
 * Every file's header is checked before anything is written. Each file is one load_run; its
 * run_id is the load_id of the rows it stages.
 */
export async function runLoad(engine: Engine, command: 'load' | 'stage', paths: string[], options: LoadOptions): Promise<LoadReport> {
  const started = performance.now();
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

  const db = bookkeeping(engine, options);
  const reports: FileReport[] = [];
  const openRuns: number[] = [];
  let processCounts: ProcessCounts | null = null;
  let aborted: string | null = null;
  let stageMs = 0;
  let processMs = 0;

  // --overlap (server databases): process while staging. Staging is bound by this process's CPU
  // (parsing), processing by the database, so together they take about the longer of the two
  // instead of their sum (bench/RESULTS.md: 0.46 → 0.54 of the ceiling). Not the default: a key
  // repeated within one file can then be merged with its earlier line before the later line is
  // staged, and if the later line is rejected, orders keeps the earlier line's values (the staging
  // rule, "the last occurrence wins", holds for the stage, not for orders: docs/ARCHITECTURE.md,
  // section 2). For files known to have unique keys it is safe. PGlite has one connection: its
  // phases always run in sequence.
  const overlap = command === 'load' && options.overlap === true && engine.capabilities.concurrentConnections;
  const internal = new AbortController();
  const signal = options.signal === undefined ? internal.signal : AbortSignal.any([options.signal, internal.signal]);
  let stagingFinished = false;
  // lines rejected while staging: of the files staged so far, and of the file being staged
  let rejectedInFiles = 0;
  let rejectedInFile = 0;
  const rejectedWhileStaging = () => rejectedInFiles + rejectedInFile;
  const tooManyRejected = () => options.maxErrors !== undefined && rejectedWhileStaging() > options.maxErrors;
  let stoppedByMaxErrors = false;
  let processStarted = 0;
  // A staged row moves to this load unless it is identical to a row already DONE (that one is
  // left untouched, with the load that made it DONE): the file's rows not on its load.
  // Only unchanged rows that were not ERROR can be such rows: none, no query.
  const heldElsewhere = async (counts: FileStageCounts, loadId: number): Promise<number> => {
    const candidates = counts.unchanged - counts.unchangedError;
    if (candidates <= 0) return 0;
    const onLoad = Object.values(await db('counting the rows of the load', () => engine.tallyLoads([loadId]))).reduce((n, c) => n + c, 0);
    return Math.min(candidates, Math.max(0, counts.inserted + counts.updated + counts.unchanged - onLoad));
  };
  let processing: Promise<ProcessResult> | null = null;
  const startProcessing = (runId: number): void => {
    if (processing !== null) return;
    processStarted = performance.now();
    processing = processBacklog(engine, { ...processOptions(runId, options), signal, stagingDone: overlap ? () => stagingFinished : undefined, rejectedWhileStaging });
    // awaited below; a failure also stops the staging loop
    processing.catch(() => internal.abort());
  };

  try {
    const stageStarted = performance.now();
    try {
      for (let i = 0; i < files.length; i++) {
        let file = files[i] as OrderFile;
        if (tooManyRejected()) {
          // the files after the one that went past --max-errors are not staged (nor processed)
          for (const rest of files.slice(i)) rest.close();
          stoppedByMaxErrors = true;
          break;
        }
        const sha = await sha256File(file.path);
        // Skip and resume (docs/ARCHITECTURE.md, section 2, step 2): what did an earlier run of
        // this very file (same sha256) commit?
        const recorded = await db('reading the staging history', () => engine.stagingHistory(sha));
        // The same bytes read with another encoding or delimiter are another file: a rerun that
        // corrects --encoding must stage it, not skip it. --restage stages it again regardless.
        const sameReading = recorded !== null && recorded.readAs.encoding === options.encoding && recorded.readAs.delimiter === options.delimiter;
        const history = sameReading && options.restage !== true ? recorded : null;
        const runId = await db('recording the run', () => engine.startRun(runStart(command, file, sha)));
        openRuns.push(runId);
        if (overlap) startProcessing(runId);
        // The same load continues when it completed (skip) or can resume at a byte offset; a file
        // without offsets (a decoded encoding) is staged again from line 1 as a new load, so that
        // its already-staged rows count as unchanged, not as repeated lines of this load.
        const resumable = history?.checkpoint != null && history.checkpoint.byte !== null;
        const loadId = history !== null && (history.staged || resumable) ? history.loadId : runId;
        await db('recording the run', () => engine.transaction((tx) => tx.addRunEvent(runId, { event: 'invoked', detail: { file: file.path, size: file.size, sha256: sha, loadId, header: file.header.names, encoding: options.encoding, delimiter: options.delimiter, restage: options.restage === true ? true : undefined } })));

        const committed = history?.checkpoint != null && isStageCounts(history.checkpoint.counts) ? history.checkpoint.counts : null;
        const stopped = history !== null && !history.staged ? (history.checkpoint?.stoppedAt ?? null) : null;
        if (history?.staged === true || stopped !== null) {
          // The same bytes (same sha256) were staged completely, or stop at the same line: not read
          // again. The lines rejected then are still rejected: they count for the exit code.
          file.close();
          const message = stopped === null
            ? `${file.path}: already staged by load ${loadId} (same sha256, encoding and delimiter): staging skipped (--restage stages it again)`
            : `${file.path}: load ${loadId} could not read this file past line ${stopped.line}: not read again (fix the file and load it)`;
          if (stopped === null) options.logger.info({ runId, loadId, file: file.path }, message);
          else options.logger.warn({ runId, loadId, file: file.path, line: stopped.line }, message);
          await db('recording the run', () =>
            engine.transaction((tx) => tx.addRunEvent(runId, { event: stopped === null ? 'staged' : 'staging_stopped', detail: { skipped: true, loadId, stoppedAt: stopped ?? undefined } })),
          );
          reports.push({
            file: file.path, loadId, runId, counts: { ...emptyStageCounts(), rejected: committed?.rejected ?? 0 }, tally: {},
            unchangedDone: committed === null ? 0 : await heldElsewhere(committed, loadId),
            stoppedAt: stopped, skipped: message, resumedAt: null,
          });
          rejectedInFiles += committed?.rejected ?? 0;
          continue;
        }
        let resumedAt: { line: number; byte: number } | null = null;
        let initialCounts: FileStageCounts | undefined;
        if (history?.checkpoint != null && history.checkpoint.byte !== null) {
          // resume after the last committed batch of the interrupted load, not from line 1
          resumedAt = { line: history.checkpoint.line, byte: history.checkpoint.byte };
          initialCounts = committed ?? undefined;
          file.close();
          file = await openOrderFile(file.path, { encoding: options.encoding, delimiter: options.delimiter, resumeAt: resumedAt });
          options.logger.info({ runId, loadId, file: file.path, line: resumedAt.line, byte: resumedAt.byte }, `${file.path}: resuming load ${loadId} after line ${resumedAt.line}`);
          await db('recording the run', () => engine.transaction((tx) => tx.addRunEvent(runId, { event: 'resumed', detail: { loadId, line: resumedAt?.line, byte: resumedAt?.byte } })));
        }

        options.logger.info({ runId, loadId, file: file.path, size: file.size }, 'staging');
        const current = file;
        const result = await stageFile(engine, runId, current, {
          loadId,
          batchSize: options.batchSize,
          retry: options.retry,
          logger: options.logger,
          signal,
          initialCounts,
          // this run is the latest of this file (sha256): its last checkpoint is the history's
          committedCheckpoint: async () => (await engine.stagingHistory(sha))?.checkpoint ?? null,
          onBatch: (counts) => {
            rejectedInFile = counts.rejected;
            options.onStageProgress?.(current.path, current.bytesRead(), current.size, counts.read);
          },
        });
        rejectedInFiles += result.counts.rejected;
        rejectedInFile = 0;
        // 'staged' only when the whole file is in: a rerun then skips it; otherwise it resumes
        const complete = !result.interrupted && result.stoppedAt === null;
        await db('recording the run', () => engine.transaction((tx) =>
          tx.addRunEvent(runId, { event: complete ? 'staged' : 'staging_stopped', detail: { loadId, ...result.counts, stoppedAt: result.stoppedAt, interrupted: result.interrupted } }),
        ));
        options.logger.info({ runId, loadId, ...result.counts }, 'staged');
        // right after staging, before a later file of this run can take rows over
        const unchangedDone = await heldElsewhere(result.counts, loadId);
        reports.push({ file: file.path, loadId, runId, counts: result.counts, tally: {}, unchangedDone, stoppedAt: result.stoppedAt, skipped: null, resumedAt });
        if (result.interrupted) {
          aborted = 'interrupted while staging: committed batches stay; run the same command again to resume';
          break;
        }
      }
    } finally {
      stagingFinished = true;
      stageMs = performance.now() - stageStarted;
    }

    const lastRun = openRuns[openRuns.length - 1];
    if (tooManyRejected()) stoppedByMaxErrors = true;
    if (command === 'load' && aborted === null && !stoppedByMaxErrors && lastRun !== undefined && !overlap) {
      if (options.onProcessStart !== undefined) options.onProcessStart(await db('counting claimable rows', () => engine.claimableCount()));
      startProcessing(lastRun);
    }
    if (processing !== null) {
      const result = await (processing as Promise<ProcessResult>);
      processMs = performance.now() - processStarted;
      processCounts = result.counts;
      aborted ??= stoppedMessage(result.stopped, options.maxErrors, result.counts.error, rejectedWhileStaging());
      for (const id of openRuns) {
        await db('recording the run', () => engine.transaction((tx) => tx.addRunEvent(id, { event: 'processed', detail: { ...result.counts } })));
      }
    }
    if (aborted === null && stoppedByMaxErrors) aborted = maxErrorsMessage(options.maxErrors ?? 0, rejectedWhileStaging(), processCounts?.error ?? 0);
  } catch (error) {
    internal.abort();
    if (processing !== null) await Promise.allSettled([processing]);
    aborted = errorMessage(error);
    await finishRuns(engine, openRuns, 'FAILED', reports, aborted, options.logger);
    throw error;
  }

  for (const report of reports) {
    const tally = await db('counting the rows of the load', () => engine.tallyLoads([report.loadId]));
    report.tally = report.unchangedDone > 0 ? { ...tally, DONE: (tally.DONE ?? 0) + report.unchangedDone } : tally;
  }
  const unreadFile = reports.find((r) => r.stoppedAt !== null);
  if (aborted === null && unreadFile?.stoppedAt) {
    aborted = `${unreadFile.file}: line ${unreadFile.stoppedAt.line}: ${unreadFile.stoppedAt.message}`;
  }
  await finishRuns(engine, openRuns, aborted === null ? 'COMPLETED' : 'FAILED', reports, aborted, options.logger, db);

  const rowsFailed = reports.some((r) => r.counts.rejected > 0 || (command === 'load' ? notDone(r.tally) > 0 : (r.tally.ERROR ?? 0) > 0));
  // processing took claimable rows of any load: what waits now may be another load's too
  const waiting = processCounts !== null || reports.some((r) => (r.tally.RETRY_WAIT ?? 0) > 0) ? await db('reading the rows waiting to retry', () => engine.retryWaitSummary()) : null;
  return {
    command,
    files: reports,
    process: processCounts,
    retryWait: waiting,
    elapsedMs: performance.now() - started,
    stageMs,
    processMs,
    aborted,
    exitCode: aborted !== null ? EXIT_FAILED : rowsFailed ? EXIT_ROWS_REJECTED : EXIT_OK,
  };
}

/** With `db`, retried if the database goes away for a moment; without (the run is failing, maybe because of the database), tried once. */
async function finishRuns(
  engine: Engine, runIds: number[], status: 'COMPLETED' | 'FAILED', reports: FileReport[], message: string | null, logger: Logger,
  db: Bookkeeping = (_what, work) => work(),
) {
  for (const runId of runIds) {
    const report = reports.find((r) => r.runId === runId);
    const counts = { ...(report?.counts ?? {}), ...Object.fromEntries(Object.entries(report?.tally ?? {}).map(([k, v]) => [`status_${k}`, v])) };
    try {
      await db('recording the end of the run', () => engine.transaction((tx) => tx.addRunEvent(runId, { event: status === 'COMPLETED' ? 'completed' : 'failed', detail: message === null ? undefined : { reason: message } })));
      await db('recording the end of the run', () => engine.finishRun(runId, status, counts, message));
    } catch (error) {
      // The database may be the reason we are failing: say so, keep the original error.
      logger.error({ runId, error: errorMessage(error) }, 'could not record the end of the run');
    }
  }
}

/**
 * `process`: claimable rows of any load, until nothing is claimable now. Within `run` (a
 * `retry`'s run, started by the caller) the processing is part of that run: its events go
 * there and it ends that run, with `run.counts` added to its counts.
 */
export async function runProcess(engine: Engine, options: ProcessRunOptions, run?: { runId: number; counts?: RunCounts }): Promise<ProcessReport> {
  const started = performance.now();
  const db = bookkeeping(engine, options);
  const runId = run?.runId ?? (await db('recording the run', () => engine.startRun(runStart('process', null, null))));
  if (run === undefined) await db('recording the run', () => engine.transaction((tx) => tx.addRunEvent(runId, { event: 'invoked' })));
  try {
    if (options.onProcessStart !== undefined) options.onProcessStart(await db('counting claimable rows', () => engine.claimableCount()));
    const result = await processBacklog(engine, processOptions(runId, options));
    const aborted = stoppedMessage(result.stopped, options.maxErrors, result.counts.error);
    await db('recording the run', () => engine.transaction((tx) => tx.addRunEvent(runId, { event: 'processed', detail: { ...result.counts } })));
    await db('recording the end of the run', () => engine.transaction((tx) => tx.addRunEvent(runId, { event: aborted === null ? 'completed' : 'failed', detail: aborted === null ? undefined : { reason: aborted } })));
    await db('recording the end of the run', () => engine.finishRun(runId, aborted === null ? 'COMPLETED' : 'FAILED', { ...run?.counts, ...result.counts }, aborted));
    const rowsFailed = result.counts.error + result.counts.retryWait > 0;
    // nothing claimable now does not mean nothing left: say what waits, and until when
    const retryWait = await db('reading the rows waiting to retry', () => engine.retryWaitSummary());
    return {
      command: 'process',
      runId,
      process: result.counts,
      retryWait,
      elapsedMs: performance.now() - started,
      aborted,
      exitCode: aborted !== null ? EXIT_FAILED : rowsFailed ? EXIT_ROWS_REJECTED : EXIT_OK,
    };
  } catch (error) {
    const message = error instanceof RunAbortedError ? error.message : errorMessage(error);
    try {
      await engine.transaction((tx) => tx.addRunEvent(runId, { event: 'failed', detail: { reason: message } }));
      await engine.finishRun(runId, 'FAILED', { ...run?.counts }, message);
    } catch (recordError) {
      // The database may be why we fail: the run stays RUNNING until the next start marks it abandoned.
      options.logger.error({ runId, error: errorMessage(recordError) }, 'could not record the end of the run');
    }
    throw error;
  }
}
