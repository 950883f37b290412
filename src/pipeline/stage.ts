import type { Logger } from 'pino';
import type { Engine, ErrorLogInput, StageBatchCounts, StageInput } from '../engine/types.js';
import type { FileItem, OrderFile } from '../input/order-file.js';
import { parseErrorCode, parseOrderRecord } from '../input/order-record.js';
import { withChunkRetry, type RetryPolicy } from './retry.js';

export interface FileStageCounts {
  /** Data lines read (records and rejected lines), this run. */
  read: number;
  /** New rows in order_stage. */
  inserted: number;
  /** Existing rows whose values changed: READY again. */
  updated: number;
  /** Rows identical to the stage: untouched. */
  unchanged: number;
  /** Of those, rows still in ERROR. */
  unchangedError: number;
  /** Lines overridden by a later line with the same source_key. */
  duplicates: number;
  /** Lines rejected while parsing (each in the error log with its line and raw text). */
  rejected: number;
}

export function isStageCounts(value: unknown): value is FileStageCounts {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return Object.keys(emptyStageCounts()).every((k) => typeof v[k] === 'number');
}

export function emptyStageCounts(): FileStageCounts {
  return { read: 0, inserted: 0, updated: 0, unchanged: 0, unchangedError: 0, duplicates: 0, rejected: 0 };
}

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
  /** Called after each committed batch. */
  onBatch?: ((counts: FileStageCounts, checkpoint: StageCheckpoint) => void) | undefined;
  /** Counts carried over from the committed part of an interrupted run (resume). */
  initialCounts?: FileStageCounts | undefined;
  /** This run's last committed checkpoint (read when a batch is retried). */
  committedCheckpoint?: (() => Promise<{ line: number; counts: unknown } | null>) | undefined;
}

export interface FileStageResult {
  counts: FileStageCounts;
  /** Set when the file could not be read to its end (a structural CSV error). */
  stoppedAt: { line: number; message: string } | null;
  interrupted: boolean;
  checkpoint: StageCheckpoint | null;
}

interface Batch {
  /** The file could not be read past this line (the last item of the batch). */
  stoppedAt?: { line: number; message: string } | undefined;
  rows: Map<string, StageInput>;
  errors: ErrorLogInput[];
  lines: number;
  duplicates: number;
  rejected: number;
  checkpoint: StageCheckpoint | null;
}

/** The counts after a batch: `before` plus what the batch read and what the database found. */
function addBatch(before: FileStageCounts, b: Batch, staged: StageBatchCounts | null): FileStageCounts {
  return {
    read: before.read + b.lines,
    inserted: before.inserted + (staged?.inserted ?? 0),
    updated: before.updated + (staged?.updated ?? 0),
    unchanged: before.unchanged + (staged?.unchanged ?? 0),
    unchangedError: before.unchangedError + (staged?.unchangedError ?? 0),
    duplicates: before.duplicates + b.duplicates + (staged?.repeatedInLoad ?? 0),
    rejected: before.rejected + b.rejected,
  };
}

/** Records parsed between two turns of the event loop while a batch is in flight. */
const YIELD_EVERY = 200;

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function newBatch(): Batch {
  return { rows: new Map(), errors: [], lines: 0, duplicates: 0, rejected: 0, checkpoint: null };
}

/**
 * STAGE: read a file's records, parse them, and upsert them into order_stage in batches of
 * `batchSize` lines, each batch in its own transaction with its error-log rows and a checkpoint
 * event (line and byte offset), so that an interrupted load can resume after the last commit.
 * Parsing of the next batch overlaps the database work of the previous one (one batch in flight).
 */
export async function stageFile(engine: Engine, runId: number, file: OrderFile, options: StageFileOptions): Promise<FileStageResult> {
  const counts = options.initialCounts !== undefined ? { ...options.initialCounts } : emptyStageCounts();
  let batch = newBatch();
  let inFlight: Promise<void> | null = null;
  let stoppedAt: FileStageResult['stoppedAt'] = null;
  let lastCheckpoint: StageCheckpoint | null = null;
  let interrupted = false;
  const loadId = options.loadId;

  const commit = async (b: Batch): Promise<void> => {
    const rows = [...b.rows.values()];
    let attempts = 0;
    const after = await withChunkRetry(
      engine,
      `staging lines up to ${b.checkpoint?.line ?? '?'} of ${file.path}`,
      async () => {
        // A retry after a lost reply to COMMIT must not stage the batch twice (its PARSE rows
        // would be logged twice, its counts doubled): the checkpoint commits with the batch,
        // so if it is there, the batch is in.
        if (attempts++ > 0 && options.committedCheckpoint !== undefined && b.checkpoint !== null) {
          const committed = await options.committedCheckpoint();
          if (committed !== null && committed.line >= b.checkpoint.line && isStageCounts(committed.counts)) {
            options.logger.warn({ line: b.checkpoint.line }, 'the batch had committed before its connection was lost: not staged again');
            return committed.counts;
          }
        }
        return engine.transaction(async (tx) => {
          const staged = rows.length > 0 ? await tx.stageBatch(loadId, rows) : null;
          await tx.logErrors(b.errors);
          const next = addBatch(counts, b, staged);
          // the checkpoint commits with the batch: a resumed load starts right after it
          await tx.addRunEvent(runId, { event: 'staged_checkpoint', detail: { loadId, line: b.checkpoint?.line, byte: b.checkpoint?.byte, lines: b.lines, counts: next, stoppedAt: b.stoppedAt } });
          return next;
        });
      },
      { policy: options.retry, logger: options.logger, signal: undefined },
    );
    Object.assign(counts, after);
    lastCheckpoint = b.checkpoint;
    if (b.checkpoint !== null) options.onBatch?.(counts, b.checkpoint);
  };

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
    inFlight = commit(b);
    // Awaited by the next flush; until then a failure must not count as unhandled.
    inFlight.catch(() => undefined);
  };

  const addItem = (item: FileItem): void => {
    batch.lines++;
    batch.checkpoint = { line: item.endLine, byte: item.endByte };
    if (item.kind === 'reject') {
      batch.rejected++;
      batch.errors.push({
        stageId: null, sourceKey: null, loadId, lineNo: item.lineNo, batchId: null, attemptNo: null,
        phase: 'PARSE', code: item.code, message: item.message, rawRecord: item.raw,
      });
      return;
    }
    const parsed = parseOrderRecord(item.fields);
    let row: StageInput;
    if (parsed.ok) {
      row = { ...parsed.order, lineNo: item.lineNo };
    } else {
      batch.rejected++;
      const code = parseErrorCode(parsed.issues);
      const message = parsed.issues.map((i) => i.message).join('; ');
      batch.errors.push({
        stageId: null, sourceKey: parsed.sourceKey, loadId, lineNo: item.lineNo, batchId: null, attemptNo: null,
        phase: 'PARSE', code, message, rawRecord: item.raw,
      });
      if (parsed.sourceKey === null) return;
      row = {
        sourceKey: parsed.sourceKey, customerId: null, orderDate: null, amount: null, currency: null,
        lineNo: item.lineNo, parseError: { code, message },
      };
    }
    // Last occurrence wins within the file; within a batch the map keeps only the last.
    if (batch.rows.delete(row.sourceKey)) batch.duplicates++;
    batch.rows.set(row.sourceKey, row);
  };

  // Parsing is CPU-bound and, while the file's buffered records last, never returns to the event
  // loop, so the replies to the batch in flight (BEGIN, upsert, event, COMMIT: one round trip
  // each) waited for the parser and the database sat idle: staging ran as parse + database
  // instead of max(parse, database). Yielding every YIELD_EVERY records lets each reply be handled
  // at once. Measured (bench/profile.js, 200k rows): see bench/RESULTS.md.
  let sinceYield = 0;
  try {
    for await (const item of file.items) {
      addItem(item);
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
  } finally {
    file.close();
  }
  return { counts, stoppedAt, interrupted, checkpoint: lastCheckpoint };
}

export interface DryRunResult {
  counts: FileStageCounts;
  /** The first rejected lines, for display. */
  samples: Array<{ lineNo: number; code: string; message: string }>;
  stoppedAt: { line: number; message: string } | null;
}

/**
 * `--dry-run`: parse the file as `stage` would and count what would be staged and rejected,
 * writing nothing anywhere. Duplicates are counted within a window of `batchSize` lines (memory
 * stays bounded); comparison with what the stage already holds needs the database: not done.
 */
export async function dryRunFile(file: OrderFile, batchSize: number): Promise<DryRunResult> {
  const counts = emptyStageCounts();
  const samples: DryRunResult['samples'] = [];
  let stoppedAt: DryRunResult['stoppedAt'] = null;
  let window = new Set<string>();
  const reject = (lineNo: number, code: string, message: string) => {
    counts.rejected++;
    if (samples.length < 20) samples.push({ lineNo, code, message });
  };
  try {
    for await (const item of file.items) {
      counts.read++;
      if (window.size >= batchSize) window = new Set();
      if (item.kind === 'reject') {
        reject(item.lineNo, item.code, item.message);
        if (item.stopsFile) {
          stoppedAt = { line: item.lineNo, message: item.message };
          break;
        }
        continue;
      }
      const parsed = parseOrderRecord(item.fields);
      const key = parsed.ok ? parsed.order.sourceKey : parsed.sourceKey;
      if (!parsed.ok) reject(item.lineNo, parseErrorCode(parsed.issues), parsed.issues.map((i) => i.message).join('; '));
      if (key === null) continue;
      if (window.has(key)) counts.duplicates++;
      else {
        window.add(key);
        counts.inserted++;
      }
    }
  } finally {
    file.close();
  }
  return { counts, samples, stoppedAt };
}
