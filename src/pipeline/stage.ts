import type { Logger } from 'pino';
import type { ClaimFence } from '../engine/contract.js';
import { FileClaimLostError } from '../errors.js';
import type { OrderFile } from '../input/order-file.js';
import { addBatch, newBatch, refusalRows, stageBatchLines, yieldToLaterLoads, type Batch, type YieldTo } from './stage-batch.js';
import { addItem, type ItemContext } from './stage-item.js';
import type { StagingPort } from './ports.js';
import { withChunkRetry, type RetryPolicy } from './retry.js';
import { holdAfterStep } from './test-hold.js';
import { emptyStageCounts, isStageCounts, type FileStageCounts } from './stage-counts.js';

export { emptyStageCounts, isStageCounts, type FileStageCounts } from './stage-counts.js';

export interface StageCheckpoint {
  line: number;
  byte: number | null;
}

export interface StageFileOptions {
  loadId: number;
  batchSize: number;
  retry: RetryPolicy;
  logger: Logger;
  signal?: AbortSignal | undefined;
  /**
   * The file's delimiter: a line the reader rejects is logged with its source_key when it can be
   * told (src/input/rejected-key.ts), so that `errors` drops it once that key is DONE later.
   */
  delimiter?: string | undefined;
  /**
   * --row-lock-wait: the longest a batch's transaction waits for a lock another session holds (a
   * chunk's claimed rows it updates; TransactionOptions.lockWaitMs). Past it the batch fails as
   * transient and is staged again. Undefined: the database's own setting.
   */
  lockWaitMs?: number | undefined;
  /** Called after each committed batch. */
  onBatch?: ((counts: FileStageCounts, checkpoint: StageCheckpoint) => void) | undefined;
  /**
   * Called inside each batch's transaction, before its COMMIT, with the file's counts as they
   * will be once it commits (again on a retry of the batch, with the same base): processing beside
   * staging can see the batch's rows as soon as it commits, so --max-errors must already count its
   * rejected lines by then (src/pipeline/process.ts rolls back a chunk claimed past the limit).
   */
  onBatchCounted?: ((counts: FileStageCounts) => void) | undefined;
  /** Counts carried over from the committed part of an interrupted run (resume). */
  initialCounts?: FileStageCounts | undefined;
  /**
   * A load begun before this run (resumed, or a file of a set staged again): its lines of a key a
   * load begun after it staged are left out (stage-batch.ts, yieldToLaterLoads).
   */
  yieldToLaterLoads?: YieldTo | undefined;
  /**
   * Keys on more than one line of the run's files: their rows are staged HELD, in the batch's
   * transaction, and released when the run's staging ends (load.ts, releaseHeld).
   */
  held?: { has(key: string): boolean } | undefined;
  /**
   * Settle while staging (`load` on PostgreSQL, engine.capabilities.settlesWhileStaging): each batch
   * writes the rows processing would merge DONE and merges them (StageSettle), except the keys
   * in `except` (on more than one line of the run's files).
   */
  settle?: { except: { has(key: string): boolean }; skip?: (() => boolean) | undefined } | undefined;
  /**
   * The file's claim (src/pipeline/file-claim.ts), checked in each batch's transaction: once its
   * session ended, the batch rolls back and staging stops (FileClaimLostError). Null: nothing to check.
   */
  claim?: ClaimFence | null | undefined;
  /**
   * Take the claim again once its session ended (a terminated backend, a server restart the run
   * rides out): the new claim's fence when this run got it back and nothing of the file was
   * staged by another run meanwhile (the file's last committed checkpoint is still `lastLine`,
   * this run's, or none of this run's yet: null), else null and staging stops.
   */
  reclaim?: ((lastLine: number | null) => Promise<ClaimFence | null>) | undefined;
  /** This run's last committed checkpoint (read when a batch is retried). */
  committedCheckpoint?: (() => Promise<{ line: number; counts: unknown } | null>) | undefined;
}

export interface FileStageResult {
  counts: FileStageCounts;
  /** Set when the file could not be read to its end (a structural CSV error). */
  stoppedAt: { line: number; message: string } | null;
  interrupted: boolean;
  checkpoint: StageCheckpoint | null;
  /** Lines the file's profile discarded (`when`, `comment`, `skip_lines`): counted apart, never errors. */
  discarded: number;
  /** Rows written DONE and merged while staging (StageFileOptions.settle) by this run, and the batches that did. */
  settled: { rows: number; batches: number };
}

/** The checkpoint a batch commits with: right after its last line. */
function checkpointOf(b: Batch): StageCheckpoint {
  return { line: b.endLine, byte: b.endByte };
}

/** Records parsed between two turns of the event loop while a batch is in flight. */
const YIELD_EVERY = 200;

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** What staging one file keeps across its batches; each committed batch changes it. */
interface FileStaging {
  readonly engine: StagingPort;
  readonly runId: number;
  readonly file: OrderFile;
  readonly options: StageFileOptions;
  readonly loadId: number;
  /** The file's counts as of the last committed batch (one object, updated in place). */
  readonly counts: FileStageCounts;
  readonly settled: { rows: number; batches: number };
  /** The file's claim: replaced when it is taken again (StageFileOptions.reclaim). */
  claim: ClaimFence | null | undefined;
  lastCheckpoint: StageCheckpoint | null;
  /** Numbers the settle batch ids of the file's batch transactions (each attempt one). */
  settleSeq: number;
}

/** What the attempt of a batch that committed settled (StageFileOptions.settle), for its log line and the totals. */
interface BatchSettled {
  rows: number;
  gaveWayOn: string | undefined;
}

/**
 * One batch in one transaction: its rows staged (HELD for keys on more than one line of the
 * run's files), its claim checked, its errors logged and its checkpoint event written with the
 * file's counts as they will be once it commits.
 */
function stageTransaction(s: FileStaging, b: Batch, checkpoint: StageCheckpoint, out: BatchSettled): Promise<FileStageCounts> {
  const { options, loadId } = s;
  return s.engine.transaction(
    async (tx) => {
      const settle =
        options.settle === undefined || options.settle.skip?.() === true
          ? undefined
          : { batchId: `${s.runId}-s${loadId}.${++s.settleSeq}`, except: options.settle.except };
      const yieldTo = options.yieldToLaterLoads;
      const batch = yieldTo === undefined ? b : await yieldToLaterLoads(tx, loadId, b, options.logger, yieldTo);
      const result = await stageBatchLines(tx, loadId, batch, settle);
      if (s.claim != null && !(await tx.holdsFileClaim(s.claim))) throw new FileClaimLostError(s.file.path, checkpoint.line);
      const staged = result.staged;
      out.rows = staged?.settled ?? 0;
      out.gaveWayOn = staged?.settleGaveWayOn;
      const refusals = refusalRows(loadId, batch, staged);
      const held = options.held;
      if (held !== undefined) {
        const keys = result.stagedKeys.filter((k) => held.has(k));
        if (keys.length > 0) await tx.holdRows(loadId, keys);
      }
      // in line order, as the parse rejects are
      await tx.logErrors([...b.errors, ...refusals.errors].sort((x, y) => (x.lineNo ?? 0) - (y.lineNo ?? 0)));
      const next = addBatch(s.counts, batch, result, refusals.rejected);
      options.onBatchCounted?.(next);
      // the checkpoint commits with the batch: a resumed load starts right after it
      await tx.addRunEvent(s.runId, {
        event: 'staged_checkpoint',
        detail: { loadId, line: checkpoint.line, byte: checkpoint.byte, lines: b.lines, counts: next, stoppedAt: b.stoppedAt },
      });
      return next;
    },
    { lockWaitMs: options.lockWaitMs },
  );
}

/**
 * The batch's transaction; when the file's claim ended with its session, the claim taken again
 * (at most three times) and the batch staged again. A lost claim comes back only if no other run
 * staged the file meanwhile; a failure while taking it again is the database's (transient: the
 * retry loop around this).
 */
async function stageReclaiming(s: FileStaging, b: Batch, checkpoint: StageCheckpoint, out: BatchSettled): Promise<FileStageCounts> {
  for (let reclaims = 0; ; reclaims++) {
    try {
      return await stageTransaction(s, b, checkpoint, out);
    } catch (error) {
      if (!(error instanceof FileClaimLostError) || s.options.reclaim === undefined || reclaims >= 3) throw error;
      const again = await s.options.reclaim(s.lastCheckpoint?.line ?? null);
      if (again === null) throw error;
      s.options.logger.warn(
        { loadId: s.loadId, line: checkpoint.line },
        `${s.file.path}: the file's claim ended with its session and was taken again; the batch is staged again`,
      );
      s.claim = again;
    }
  }
}

/**
 * On a retry, the counts the batch committed with if it did commit: a retry after a lost reply to
 * COMMIT must not stage the batch twice (its PARSE rows would be logged twice, its counts
 * doubled). The checkpoint commits with the batch, so if it is there, the batch is in.
 */
async function committedBefore(options: StageFileOptions, checkpoint: StageCheckpoint): Promise<FileStageCounts | null> {
  if (options.committedCheckpoint === undefined) return null;
  const committed = await options.committedCheckpoint();
  if (committed !== null && committed.line >= checkpoint.line && isStageCounts(committed.counts)) {
    options.logger.warn({ line: checkpoint.line }, 'the batch had committed before its connection was lost: not staged again');
    return committed.counts;
  }
  return null;
}

/** Commit one batch (retried while the failure is transient), then count it and report its checkpoint. */
async function commitBatch(s: FileStaging, b: Batch): Promise<void> {
  const { options, loadId } = s;
  const checkpoint = checkpointOf(b);
  let attempts = 0;
  const out: BatchSettled = { rows: 0, gaveWayOn: undefined };
  const after = await withChunkRetry(
    s.engine,
    `staging lines up to ${checkpoint.line} of ${s.file.path}`,
    async () => {
      if (attempts++ > 0) {
        const committed = await committedBefore(options, checkpoint);
        if (committed !== null) return committed;
      }
      return stageReclaiming(s, b, checkpoint, out);
    },
    { policy: options.retry, logger: options.logger, signal: undefined },
  ).catch((error: unknown) => {
    options.onBatchCounted?.(s.counts); // the batch did not commit: its lines are not counted
    throw error;
  });
  Object.assign(s.counts, after);
  s.settled.rows += out.rows;
  if (out.rows > 0) s.settled.batches++;
  options.logger.debug(
    { loadId, line: checkpoint.line, lines: b.lines, settled: out.rows, settleGaveWayOn: out.gaveWayOn },
    'staging batch committed',
  );
  await holdAfterStep('staged_checkpoint', options.logger);
  s.lastCheckpoint = checkpoint;
  options.onBatch?.(s.counts, checkpoint);
}

/**
 * STAGE: read a file's records, parse them, and upsert them into order_stage in batches of
 * `batchSize` lines, each batch in its own transaction with its error-log rows and a checkpoint
 * event (line and byte offset), so that an interrupted load can resume after the last commit.
 * Parsing of the next batch overlaps the database work of the previous one (one batch in flight).
 */
export async function stageFile(engine: StagingPort, runId: number, file: OrderFile, options: StageFileOptions): Promise<FileStageResult> {
  const s: FileStaging = {
    engine,
    runId,
    file,
    options,
    loadId: options.loadId,
    counts: options.initialCounts !== undefined ? { ...options.initialCounts } : emptyStageCounts(),
    settled: { rows: 0, batches: 0 },
    claim: options.claim,
    lastCheckpoint: null,
    settleSeq: 0,
  };
  const itemContext: ItemContext = { loadId: options.loadId, header: file.header, delimiter: options.delimiter };
  let batch = newBatch();
  let inFlight: Promise<void> | null = null;
  let stoppedAt: FileStageResult['stoppedAt'] = null;
  let interrupted = false;

  const flush = async (): Promise<void> => {
    if (inFlight !== null) await inFlight;
    inFlight = null;
    // interrupted: the batch in flight was committed; the next one is not started
    if (options.signal?.aborted === true) {
      interrupted = true;
      return;
    }
    if (batch.lines === 0) return;
    const b = batch;
    batch = newBatch();
    inFlight = commitBatch(s, b);
    // Awaited by the next flush; until then a failure must not count as unhandled.
    inFlight.catch(() => undefined);
  };

  // Parsing is CPU-bound and, while the file's buffered records last, never returns to the event
  // loop, so the replies to the batch in flight (BEGIN, upsert, event, COMMIT: one round trip
  // each) waited for the parser and the database sat idle: staging ran as parse + database
  // instead of max(parse, database). Yielding every YIELD_EVERY records lets each reply be handled
  // at once. Measured (bench/profile.js, 200k rows): see bench/RESULTS.md.
  let sinceYield = 0;
  // inFlight, interrupted and stoppedAt change inside flush(): TypeScript's narrowing cannot see
  // that, hence the rule is off for this loop
  /* eslint-disable @typescript-eslint/no-unnecessary-condition, @typescript-eslint/await-thenable */
  try {
    for await (const item of file.items) {
      addItem(batch, item, itemContext);
      if (++sinceYield >= YIELD_EVERY && inFlight !== null) {
        sinceYield = 0;
        await yieldToEventLoop();
      }
      if (item.kind === 'reject' && item.stopsFile) {
        stoppedAt = { line: item.lineNo, message: item.message };
        batch.stoppedAt = stoppedAt; // recorded with the checkpoint: a rerun of the same bytes need not read again
        break;
      }
      if (batch.lines >= options.batchSize) {
        await flush();
        if (interrupted) break;
      }
    }
    if (!interrupted) await flush();
    if (inFlight !== null) await inFlight;
    /* eslint-enable @typescript-eslint/no-unnecessary-condition, @typescript-eslint/await-thenable */
  } finally {
    file.close();
  }
  return { counts: s.counts, stoppedAt, interrupted, checkpoint: s.lastCheckpoint, discarded: file.discarded(), settled: s.settled };
}
