import type { Logger } from 'pino';
import type { ChunkTx, ClaimedRow, RowOutcome, StatusTally } from '../engine/types.js';
import { validateOrder } from '../input/order-record.js';
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

async function processChunk(
  tx: ChunkTx,
  afterStageId: number,
  batchId: string,
  options: ProcessOptions,
  failureRate: number,
): Promise<ChunkResult | null> {
  const rows = await tx.claimChunk({ afterStageId, limit: options.chunkSize, loadIds: options.loadIds });
  const last = rows[rows.length - 1];
  if (last === undefined) return null;

  const failed: RowOutcome[] = [];
  const valid: ClaimedRow[] = [];
  for (const row of rows) {
    const problem = validateOrder(row);
    if (problem === null) valid.push(row);
    else {
      failed.push({
        stageId: row.stageId,
        sourceKey: row.sourceKey,
        status: 'ERROR',
        attemptNo: row.attemptCount + 1,
        transientFailures: row.transientFailures,
        loadId: row.loadId,
        lineNo: row.lineNo,
        error: { phase: 'VALIDATE', code: problem.code, message: problem.message },
      });
    }
  }
  const validateErrors = failed.length;

  const failures = valid.length > 0 ? await tx.mergeOrders(valid, { isolationBlock: isolationBlockFor(valid.length, failureRate) }) : [];
  const failedIds = new Set<number>();
  let retryWait = 0;
  if (failures.length > 0) {
    const byId = new Map(valid.map((r) => [r.stageId, r]));
    const now = Date.now();
    for (const f of failures) {
      const row = byId.get(f.stageId);
      if (row === undefined) throw new Error(`the MERGE reported stage_id ${f.stageId}, which is not in the chunk`);
      failedIds.add(f.stageId);
      const transient = f.kind === 'transient';
      // --max-attempts bounds the transient failures of the row's current values (since they
      // last changed or an operator retried the row), not every attempt it ever had
      const transientFailures = transient ? row.transientFailures + 1 : row.transientFailures;
      const wait = transient && transientFailures < options.maxAttempts;
      if (wait) retryWait++;
      failed.push({
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
      });
    }
  }
  const done = failedIds.size === 0 ? valid.map((r) => r.stageId) : valid.filter((r) => !failedIds.has(r.stageId)).map((r) => r.stageId);
  await tx.finalizeChunk({ batchId, done, failed });
  const own = options.ownLoad;
  return {
    claimed: rows.length,
    done: done.length,
    error: failed.length - retryWait,
    retryWait,
    validateErrors,
    mergeErrors: failures.length,
    lastStageId: last.stageId,
    mergeFailureRate: valid.length > 0 ? failures.length / valid.length : 0,
    earlierLoads: own === undefined ? 0 : rows.filter((r) => !own(r.loadId)).length,
  };
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

  const shouldStop = (): boolean => {
    if (stopped !== null || workerFailed) return true;
    if (options.signal?.aborted === true) {
      stopped = 'interrupted';
      return true;
    }
    if (options.maxErrors !== undefined && counts.error + (options.rejectedWhileStaging?.() ?? 0) > options.maxErrors) {
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
          return engine.transaction((tx) => processChunk(tx, after, batchId, { ...options, chunkSize }, failureRate), {
            lockWaitMs: options.lockWaitMs,
          });
        },
        { policy: options.retry, logger: options.logger, signal: options.signal },
      );
      if (result === null) {
        if (after === 0) {
          if (stagingWasDone) return;
          await sleep(options.idleWaitMs ?? 50, options.signal); // staging is still adding rows
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
