import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Engine, StatusTally } from '../engine/types.js';
import { RunAbortedError, errorMessage } from '../errors.js';
import { openOrderFile, type FileEncoding, type OrderFile } from '../input/order-file.js';
import { sha256File } from '../input/file-digest.js';
import { EXIT_FAILED, EXIT_OK, EXIT_ROWS_REJECTED, notDone } from './outcome.js';
import { processBacklog, type ProcessCounts, type ProcessResult } from './process.js';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
import { stageFile, type FileStageCounts } from './stage.js';

export interface StageOptions {
  encoding: FileEncoding;
  delimiter: string;
  /** Lines per staging transaction. */
  batchSize: number;
  retry: RetryPolicy;
  logger: Logger;
  signal?: AbortSignal | undefined;
  onStageProgress?: ((file: string, bytesRead: number, size: number, linesRead: number) => void) | undefined;
}

export interface ProcessRunOptions {
  chunkSize: number;
  workers: number;
  maxAttempts: number;
  maxErrors?: number | undefined;
  rowRetryBaseMs: number;
  rowRetryMaxMs: number;
  retry: RetryPolicy;
  logger: Logger;
  signal?: AbortSignal | undefined;
  onProcessProgress?: ((counts: ProcessCounts) => void) | undefined;
}

export type LoadOptions = StageOptions & ProcessRunOptions;

export const DEFAULT_LOAD_OPTIONS = {
  encoding: 'utf-8' as FileEncoding,
  delimiter: ',',
  batchSize: 5000,
  chunkSize: 2000,
  workers: 1,
  maxAttempts: 5,
  rowRetryBaseMs: 30_000,
  rowRetryMaxMs: 30 * 60_000,
  retry: DEFAULT_RETRY,
};

export interface FileReport {
  file: string;
  loadId: number;
  counts: FileStageCounts;
  /** Statuses of this file's rows at the end of the run. */
  tally: StatusTally;
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
  exitCode: number;
}

export interface ProcessReport {
  command: 'process';
  runId: number;
  process: ProcessCounts;
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
    retry: options.retry,
    logger: options.logger,
    signal: options.signal,
    onChunk: options.onProcessProgress,
  };
}

function stoppedMessage(stopped: ProcessResult['stopped'], maxErrors: number | undefined): string | null {
  if (stopped === 'interrupted') return 'interrupted: the current chunk was finished or rolled back; run the command again to continue';
  if (stopped === 'max-errors') return `stopped: more than --max-errors ${maxErrors ?? 0} rows ended ERROR (committed chunks stay)`;
  return null;
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

  const reports: FileReport[] = [];
  const openRuns: number[] = [];
  let processCounts: ProcessCounts | null = null;
  let aborted: string | null = null;
  let stageMs = 0;
  let processMs = 0;
  try {
    const stageStarted = performance.now();
    for (const file of files) {
      const sha = await sha256File(file.path);
      const runId = await engine.startRun(runStart(command, file, sha));
      openRuns.push(runId);
      await engine.transaction((tx) => tx.addRunEvent(runId, { event: 'invoked', detail: { file: file.path, size: file.size, sha256: sha } }));
      options.logger.info({ runId, loadId: runId, file: file.path, size: file.size }, 'staging');
      const result = await stageFile(engine, runId, file, {
        loadId: runId,
        batchSize: options.batchSize,
        retry: options.retry,
        logger: options.logger,
        signal: options.signal,
        onBatch: (counts) => options.onStageProgress?.(file.path, file.bytesRead(), file.size, counts.read),
      });
      await engine.transaction((tx) => tx.addRunEvent(runId, { event: 'staged', detail: { ...result.counts, stoppedAt: result.stoppedAt, interrupted: result.interrupted } }));
      options.logger.info({ runId, loadId: runId, ...result.counts }, 'staged');
      reports.push({ file: file.path, loadId: runId, counts: result.counts, tally: {}, stoppedAt: result.stoppedAt });
      if (result.interrupted) {
        aborted = 'interrupted while staging: committed batches stay; run the command again to continue';
        break;
      }
    }
    stageMs = performance.now() - stageStarted;

    if (command === 'load' && aborted === null) {
      const runId = openRuns[openRuns.length - 1];
      if (runId !== undefined) {
        const processStarted = performance.now();
        const result = await processBacklog(engine, processOptions(runId, options));
        processMs = performance.now() - processStarted;
        processCounts = result.counts;
        aborted = stoppedMessage(result.stopped, options.maxErrors);
        for (const id of openRuns) {
          await engine.transaction((tx) => tx.addRunEvent(id, { event: 'processed', detail: { ...result.counts } }));
        }
      }
    }
  } catch (error) {
    aborted = errorMessage(error);
    await finishRuns(engine, openRuns, 'FAILED', reports, aborted, options.logger);
    throw error;
  }

  for (const report of reports) report.tally = await engine.tallyLoads([report.loadId]);
  const unreadFile = reports.find((r) => r.stoppedAt !== null);
  if (aborted === null && unreadFile?.stoppedAt) {
    aborted = `${unreadFile.file}: line ${unreadFile.stoppedAt.line}: ${unreadFile.stoppedAt.message}`;
  }
  await finishRuns(engine, openRuns, aborted === null ? 'COMPLETED' : 'FAILED', reports, aborted, options.logger);

  const rowsFailed = reports.some((r) => r.counts.rejected > 0 || (command === 'load' ? notDone(r.tally) > 0 : (r.tally.ERROR ?? 0) > 0));
  return {
    command,
    files: reports,
    process: processCounts,
    elapsedMs: performance.now() - started,
    stageMs,
    processMs,
    aborted,
    exitCode: aborted !== null ? EXIT_FAILED : rowsFailed ? EXIT_ROWS_REJECTED : EXIT_OK,
  };
}

async function finishRuns(engine: Engine, runIds: number[], status: 'COMPLETED' | 'FAILED', reports: FileReport[], message: string | null, logger: Logger) {
  for (const runId of runIds) {
    const report = reports.find((r) => r.loadId === runId);
    const counts = { ...(report?.counts ?? {}), ...Object.fromEntries(Object.entries(report?.tally ?? {}).map(([k, v]) => [`status_${k}`, v])) };
    try {
      await engine.transaction((tx) => tx.addRunEvent(runId, { event: status === 'COMPLETED' ? 'completed' : 'failed', detail: message === null ? undefined : { reason: message } }));
      await engine.finishRun(runId, status, counts, message);
    } catch (error) {
      // The database may be the reason we are failing: say so, keep the original error.
      logger.error({ runId, error: errorMessage(error) }, 'could not record the end of the run');
    }
  }
}

/** `process`: claimable rows of any load, until nothing is claimable now. */
export async function runProcess(engine: Engine, options: ProcessRunOptions): Promise<ProcessReport> {
  const started = performance.now();
  const runId = await engine.startRun(runStart('process', null, null));
  await engine.transaction((tx) => tx.addRunEvent(runId, { event: 'invoked' }));
  try {
    const result = await processBacklog(engine, processOptions(runId, options));
    const aborted = stoppedMessage(result.stopped, options.maxErrors);
    await engine.transaction((tx) => tx.addRunEvent(runId, { event: 'processed', detail: { ...result.counts } }));
    await engine.transaction((tx) => tx.addRunEvent(runId, { event: aborted === null ? 'completed' : 'failed', detail: aborted === null ? undefined : { reason: aborted } }));
    await engine.finishRun(runId, aborted === null ? 'COMPLETED' : 'FAILED', { ...result.counts }, aborted);
    const rowsFailed = result.counts.error + result.counts.retryWait > 0;
    return {
      command: 'process',
      runId,
      process: result.counts,
      elapsedMs: performance.now() - started,
      aborted,
      exitCode: aborted !== null ? EXIT_FAILED : rowsFailed ? EXIT_ROWS_REJECTED : EXIT_OK,
    };
  } catch (error) {
    const message = error instanceof RunAbortedError ? error.message : errorMessage(error);
    try {
      await engine.transaction((tx) => tx.addRunEvent(runId, { event: 'failed', detail: { reason: message } }));
      await engine.finishRun(runId, 'FAILED', {}, message);
    } catch {
      // recorded as RUNNING; the next start marks an abandoned run FAILED
    }
    throw error;
  }
}
