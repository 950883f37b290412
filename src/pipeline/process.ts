import type { Logger } from 'pino';
import type { ChunkTx, ClaimedRow, RowFailure, RowOutcome, StatusTally } from '../engine/types.js';
import { validateOrder, type ValidationFailure } from '../input/order-record.js';
import { RunAbortedError } from '../errors.js';
import type { ProcessingPort } from './ports.js';
import { backoffDelay, withChunkRetry, type RetryPolicy } from './retry.js';
import { sleep } from '../sleep.js';

export interface ProcessOptions {
  runId: number;
  chunkSize: number;
  workers: number;
  /**
   * A row's transient failures since its values last changed or an operator last retried it
   * (transient_failures): the one that reaches this number ends it ERROR instead of RETRY_WAIT.
   * attempt_count, which counts every processing attempt, is not what is bounded.
   */
  maxAttempts: number;
  /** Backoff of a row in RETRY_WAIT: base and cap, in milliseconds. */
  rowRetryBaseMs: number;
  rowRetryMaxMs: number;
  /**
   * The longest a chunk waits for a lock another session holds (milliseconds; 0: for ever;
   * undefined: the database's own setting). A row held longer becomes RETRY_WAIT and the rest of
   * the chunk commits, so a row someone keeps locked costs this wait, not the run.
   */
  lockWaitMs?: number | undefined;
  /** Only rows of these loads (undefined: any load). */
  loadIds?: number[] | undefined;
  /** The loads of the command's own files (`load`): rows of any other load are counted in `earlierLoads`. */
  ownLoad?: ((loadId: number | null) => boolean) | undefined;
  /**
   * Stop once more than this many rows were rejected in this run: rows ended ERROR here plus
   * `rejectedWhileStaging` (committed chunks stay).
   */
  maxErrors?: number | undefined;
  /** Lines the run rejected while staging (they count towards maxErrors as SQL*Loader's ERRORS= does). */
  rejectedWhileStaging?: (() => number) | undefined;
  retry: RetryPolicy;
  logger: Logger;
  signal?: AbortSignal | undefined;
  onChunk?: ((totals: ProcessCounts) => void) | undefined;
  /**
   * Processing alongside staging (load on a server database): while this returns false the
   * workers wait for more rows instead of ending when nothing is claimable.
   */
  stagingDone?: (() => boolean) | undefined;
  idleWaitMs?: number | undefined;
  /**
   * Beside staging in this process: settles when staging has committed rows or ended since it was
   * called (asked before each claim). An idle worker claims again then instead of at the end of
   * idleWaitMs: the last chunks and the end of a load no longer wait for a timer.
   */
  stagingNews?: (() => Promise<void>) | undefined;
  /** Called when a worker found nothing to claim while staging goes on (it then waits idleWaitMs). */
  onIdle?: (() => void) | undefined;
}

export interface ProcessCounts {
  chunks: number;
  claimed: number;
  done: number;
  error: number;
  retryWait: number;
  validateErrors: number;
  mergeErrors: number;
}

export interface ProcessResult {
  counts: ProcessCounts;
  elapsedMs: number;
  /** Why processing stopped before the backlog was empty. */
  stopped: 'interrupted' | 'max-errors' | null;
  /** Commit time of each chunk's transaction, in milliseconds (for benchmarks). */
  chunkMillis: number[];
  /**
   * With `ownLoad`: the rows claimed that belong to another load (staged by an earlier run). A
   * chunk whose COMMIT reply was lost is counted from its rows' statuses, without their loads.
   */
  earlierLoads: number;
}

interface ChunkResult {
  claimed: number;
  done: number;
  error: number;
  retryWait: number;
  validateErrors: number;
  mergeErrors: number;
  lastStageId: number;
  mergeFailureRate: number;
  earlierLoads: number;
}

/**
 * Isolation block size for the MERGE: the whole chunk while nothing fails (one statement);
 * once failures are seen, about sqrt(statement cost / (row cost × failure rate)) rows, so that a
 * bad row costs one small block instead of the whole chunk (see sql/postgres migrations 002).
 */
export function isolationBlockFor(chunkSize: number, failureRate: number): number {
  if (failureRate < 1e-5) return chunkSize;
  const block = Math.round(Math.sqrt(2.5 / failureRate));
  return Math.max(8, Math.min(chunkSize, block));
}

/** A row validateOrder refused: ERROR, phase VALIDATE. */
function validationOutcome(row: ClaimedRow, problem: ValidationFailure): RowOutcome {
  return {
    stageId: row.stageId,
    sourceKey: row.sourceKey,
    status: 'ERROR',
    attemptNo: row.attemptCount + 1,
    transientFailures: row.transientFailures,
    loadId: row.loadId,
    lineNo: row.lineNo,
    error: { phase: 'VALIDATE', code: problem.code, message: problem.message },
  };
}

/**
 * A row the MERGE refused: ERROR, or RETRY_WAIT with its next attempt's time for a transient
 * failure below --max-attempts.
 */
function mergeFailureOutcome(row: ClaimedRow, f: RowFailure, options: ProcessOptions, now: number): RowOutcome {
  const transient = f.kind === 'transient';
  // --max-attempts bounds the transient failures of the row's current values (since they
  // last changed or an operator retried the row), not every attempt it ever had
  const transientFailures = transient ? row.transientFailures + 1 : row.transientFailures;
  const wait = transient && transientFailures < options.maxAttempts;
  return {
    stageId: row.stageId,
    sourceKey: row.sourceKey,
    status: wait ? 'RETRY_WAIT' : 'ERROR',
    attemptNo: row.attemptCount + 1,
    transientFailures,
    loadId: row.loadId,
    lineNo: row.lineNo,
    error: {
      phase: 'MERGE',
      code: f.code,
      message:
        transient && !wait
          ? `${f.message} (transient; gave up after ${transientFailures} transient failures at these values, --max-attempts ${options.maxAttempts})`
          : f.message,
    },
    nextAttemptAt: wait ? new Date(now + backoffDelay(transientFailures, options.rowRetryBaseMs, options.rowRetryMaxMs)) : undefined,
  };
}

/**
 * Validate `rows`, MERGE the valid ones and judge the refused ones: what the client does with
 * the rows of a chunk. Returns the outcomes of the failed rows and the stage_ids merged.
 */
async function judgeAndMerge(
  tx: ChunkTx,
  rows: readonly ClaimedRow[],
  options: ProcessOptions,
  failureRate: number,
): Promise<{ failed: RowOutcome[]; done: number[]; validateErrors: number; merged: number; mergeErrors: number }> {
  const failed: RowOutcome[] = [];
  const valid: ClaimedRow[] = [];
  for (const row of rows) {
    const problem = validateOrder(row);
    if (problem === null) valid.push(row);
    else failed.push(validationOutcome(row, problem));
  }
  const validateErrors = failed.length;
  const failures = valid.length > 0 ? await tx.mergeOrders(valid, { isolationBlock: isolationBlockFor(valid.length, failureRate) }) : [];
  if (failures.length === 0) return { failed, done: valid.map((r) => r.stageId), validateErrors, merged: valid.length, mergeErrors: 0 };
  const byId = new Map(valid.map((r) => [r.stageId, r]));
  const failedIds = new Set<number>();
  const now = Date.now();
  for (const f of failures) {
    const row = byId.get(f.stageId);
    if (row === undefined) throw new Error(`the MERGE reported stage_id ${f.stageId}, which is not in the chunk`);
    failedIds.add(f.stageId);
    failed.push(mergeFailureOutcome(row, f, options, now));
  }
  const done = valid.filter((r) => !failedIds.has(r.stageId)).map((r) => r.stageId);
  return { failed, done, validateErrors, merged: valid.length, mergeErrors: failures.length };
}

/**
 * Thrown inside a chunk's transaction when, once its rows are claimed, --max-errors is already
 * exceeded: the chunk rolls back (its rows stay as they were) and the worker stops. The claim can
 * see rows that staging committed after the worker last checked the limit; staging counts a
 * batch's rejected lines before its COMMIT (StageFileOptions.onBatchCounted), so a claim that sees
 * the rows of a batch past the limit always finds the limit exceeded here.
 */
class ClaimedPastLimit extends Error {}

function countRetryWait(failed: readonly RowOutcome[]): number {
  let n = 0;
  for (const f of failed) if (f.status === 'RETRY_WAIT') n++;
  return n;
}

/** The chunk claimed to the client: claim, validate and MERGE, finalize. */
async function processChunk(
  tx: ChunkTx,
  afterStageId: number,
  batchId: string,
  options: ProcessOptions,
  failureRate: number,
  overLimit: () => boolean,
): Promise<ChunkResult | null> {
  const rows = await tx.claimChunk({ afterStageId, limit: options.chunkSize, loadIds: options.loadIds });
  const last = rows[rows.length - 1];
  if (last === undefined) return null;
  if (overLimit()) throw new ClaimedPastLimit();
  const judged = await judgeAndMerge(tx, rows, options, failureRate);
  await tx.finalizeChunk({ batchId, done: judged.done, failed: judged.failed });
  const retryWait = countRetryWait(judged.failed);
  const own = options.ownLoad;
  return {
    claimed: rows.length,
    done: judged.done.length,
    error: judged.failed.length - retryWait,
    retryWait,
    validateErrors: judged.validateErrors,
    mergeErrors: judged.mergeErrors,
    lastStageId: last.stageId,
    mergeFailureRate: judged.merged > 0 ? judged.mergeErrors / judged.merged : 0,
    earlierLoads: own === undefined ? 0 : rows.filter((r) => !own(r.loadId)).length,
  };
}

/**
 * The chunk processed in the database (ChunkTx.processInDatabase): the plainly valid rows are
 * merged and DONE there, and the rows the MERGE refused for good are ERROR there (counted in
 * `chunk.rejected`, written as mergeFailureOutcome writes a rejected row); the client judges the
 * rest as processChunk does (validateOrder, MERGE of a row the database's plain rules passed over
 * but validateOrder accepts) and the rows the MERGE refused with a transient failure, and writes
 * their statuses in the same transaction.
 */
async function processChunkInDatabase(
  tx: ChunkTx & Required<Pick<ChunkTx, 'processInDatabase'>>,
  afterStageId: number,
  batchId: string,
  options: ProcessOptions,
  failureRate: number,
  overLimit: () => boolean,
): Promise<ChunkResult | null> {
  const chunk = await tx.processInDatabase({
    afterStageId,
    limit: options.chunkSize,
    loadIds: options.loadIds,
    isolationBlock: isolationBlockFor(options.chunkSize, failureRate),
    batchId,
  });
  if (chunk === null) return null;
  if (overLimit()) throw new ClaimedPastLimit(); // the merge the call made rolls back with it
  const judged = await judgeAndMerge(tx, chunk.toValidate, options, failureRate);
  const now = Date.now();
  const failed = [...judged.failed, ...chunk.refused.map(({ row, failure }) => mergeFailureOutcome(row, failure, options, now))];
  await tx.finalizeChunk({ batchId, done: judged.done, failed });
  const retryWait = countRetryWait(failed);
  const merged = chunk.merged + judged.merged;
  const mergeErrors = chunk.rejected + chunk.refused.length + judged.mergeErrors;
  const own = options.ownLoad;
  let earlierLoads = 0;
  if (own !== undefined) for (const l of chunk.loads) if (!own(l.loadId)) earlierLoads += l.rows;
  return {
    claimed: chunk.claimed,
    done: chunk.claimed - chunk.rejected - failed.length,
    error: chunk.rejected + failed.length - retryWait,
    retryWait,
    validateErrors: judged.validateErrors,
    mergeErrors,
    lastStageId: chunk.lastStageId,
    mergeFailureRate: merged > 0 ? mergeErrors / merged : 0,
    earlierLoads,
  };
}

function hasInDatabase(tx: ChunkTx): tx is ChunkTx & Required<Pick<ChunkTx, 'processInDatabase'>> {
  return tx.processInDatabase !== undefined;
}

/** A committed chunk's result rebuilt from its rows (validation and MERGE errors are not told apart). */
function chunkResultFromTally(tally: StatusTally, lastStageId: number): ChunkResult {
  const done = tally.DONE ?? 0;
  const error = tally.ERROR ?? 0;
  const retryWait = tally.RETRY_WAIT ?? 0;
  return {
    claimed: done + error + retryWait,
    done,
    error,
    retryWait,
    validateErrors: 0,
    mergeErrors: 0,
    lastStageId,
    mergeFailureRate: 0,
    earlierLoads: 0,
  };
}

/**
 * PROCESS: claim, validate, MERGE and finalize chunks until nothing is claimable now, with
 * `workers` concurrent loops (each its own connection and transaction per chunk).
 *
 * Each worker walks the claimable rows with a keyset cursor; rows another worker holds are
 * skipped (SKIP LOCKED). When a pass reaches the end it starts once more from the beginning to
 * pick up rows that were skipped and then released (a rolled-back chunk); a pass from the
 * beginning that claims nothing ends the worker.
 */
/** `ms`, or less when the signal aborts or `news` settles; no timer is left behind. */
function idleWait(ms: number, signal: AbortSignal | undefined, news: Promise<void> | undefined): Promise<void> {
  if (news === undefined) return sleep(ms, signal);
  const ended = new AbortController();
  const stop = () => ended.abort();
  signal?.addEventListener('abort', stop, { once: true });
  void news.then(stop);
  return sleep(ms, ended.signal).finally(() => signal?.removeEventListener('abort', stop));
}

export async function processBacklog(engine: ProcessingPort, options: ProcessOptions): Promise<ProcessResult> {
  const started = performance.now();
  const counts: ProcessCounts = { chunks: 0, claimed: 0, done: 0, error: 0, retryWait: 0, validateErrors: 0, mergeErrors: 0 };
  const chunkMillis: number[] = [];
  let stopped: ProcessResult['stopped'] = null;
  let workerFailed = false;
  let chunkSeq = 0;
  let earlierLoads = 0;
  const workers = engine.capabilities.concurrentConnections ? Math.max(1, options.workers) : 1;
  const chunkSize = Math.min(options.chunkSize, engine.capabilities.maxChunkSize);

  const overLimit = (): boolean =>
    options.maxErrors !== undefined && counts.error + (options.rejectedWhileStaging?.() ?? 0) > options.maxErrors;

  const shouldStop = (): boolean => {
    if (stopped !== null || workerFailed) return true;
    if (options.signal?.aborted === true) {
      stopped = 'interrupted';
      return true;
    }
    if (overLimit()) {
      stopped = 'max-errors';
      return true;
    }
    return false;
  };

  const worker = async (workerNo: number): Promise<void> => {
    let after = 0;
    let failureRate = 0;
    while (!shouldStop()) {
      const batchId = `${options.runId}-${++chunkSeq}`;
      const t0 = performance.now();
      // Read before the claim: if staging had finished by now, everything it staged is
      // committed and visible to this claim, so an empty pass from the start means done.
      const stagingWasDone = options.stagingDone?.() ?? true;
      // asked with stagingDone: news between this read and an empty claim is not missed
      const news = stagingWasDone ? undefined : options.stagingNews?.();
      let attempts = 0;
      const result = await withChunkRetry(
        engine,
        `chunk ${batchId}`,
        async () => {
          // After a lost connection the COMMIT may have gone through with its reply lost: then
          // the chunk's rows carry its batch_id, and it is counted, not claimed again.
          if (attempts++ > 0) {
            const committed = await engine.tallyBatch(batchId);
            if (committed.lastStageId !== null) return chunkResultFromTally(committed.tally, committed.lastStageId);
          }
          const chunkOptions = { ...options, chunkSize };
          return engine
            .transaction(
              (tx) =>
                hasInDatabase(tx)
                  ? processChunkInDatabase(tx, after, batchId, chunkOptions, failureRate, overLimit)
                  : processChunk(tx, after, batchId, chunkOptions, failureRate, overLimit),
              {
                lockWaitMs: options.lockWaitMs,
              },
            )
            .catch((error: unknown) => {
              if (error instanceof ClaimedPastLimit) return 'over-limit' as const; // rolled back
              throw error;
            });
        },
        { policy: options.retry, logger: options.logger, signal: options.signal },
      );
      if (result === 'over-limit') {
        stopped ??= 'max-errors';
        return;
      }
      if (result === null) {
        if (after === 0) {
          if (stagingWasDone) return;
          options.onIdle?.();
          await idleWait(options.idleWaitMs ?? 50, options.signal, news); // staging is still adding rows
          continue;
        }
        after = 0;
        continue;
      }
      chunkMillis.push(performance.now() - t0);
      after = result.lastStageId;
      failureRate = 0.7 * failureRate + 0.3 * result.mergeFailureRate;
      counts.chunks++;
      counts.claimed += result.claimed;
      counts.done += result.done;
      counts.error += result.error;
      counts.retryWait += result.retryWait;
      counts.validateErrors += result.validateErrors;
      counts.mergeErrors += result.mergeErrors;
      earlierLoads += result.earlierLoads;
      options.logger.debug({ batchId, worker: workerNo, ...result }, 'chunk committed');
      options.onChunk?.(counts);
    }
  };

  const runWorker = (workerNo: number) =>
    worker(workerNo).catch((error: unknown) => {
      workerFailed = true; // the other workers finish their current chunk and stop
      throw error;
    });
  const results = await Promise.allSettled(Array.from({ length: workers }, (_, i) => runWorker(i + 1)));
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure !== undefined) {
    const reason: unknown = failure.reason;
    throw reason instanceof RunAbortedError
      ? reason
      : new RunAbortedError(`processing failed: ${String(reason)}`, 'fatal', { cause: reason });
  }
  return { counts, elapsedMs: performance.now() - started, stopped, chunkMillis, earlierLoads };
}
