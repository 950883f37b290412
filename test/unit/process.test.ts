/**
 * processBacklog (src/pipeline/process.ts) over a fake ProcessingPort: the rules of a chunk (which
 * status a row ends in, its attempt and transient-failure counts, its backoff), the counts a run
 * reports, the keyset walk of a worker, the retry of a chunk whose COMMIT reply was lost, and the
 * stops (interrupt, --max-errors, a failed worker). No database: the port keeps its rows in
 * memory and commits a chunk's finalization only when the transaction's function returns. The
 * database side of the same rules is held by the integration suite (test/integration) and the
 * Oracle recording tests.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChunkTx, TransactionOptions } from '../../src/engine/contract.js';
import type {
  ChunkFinalization,
  ClaimQuery,
  ClaimedRow,
  FailureKind,
  MergeOptions,
  RowFailure,
  RowOutcome,
  StatusTally,
} from '../../src/engine/types.js';
import { RunAbortedError } from '../../src/errors.js';
import type { ProcessingPort } from '../../src/pipeline/ports.js';
import { validateOrder } from '../../src/input/order-record.js';
import { isolationBlockFor, processBacklog, type ProcessOptions } from '../../src/pipeline/process.js';
import { memoryLogger } from '../support/memory-logger.js';

function row(stageId: number, over: Partial<ClaimedRow> = {}): ClaimedRow {
  return {
    stageId,
    sourceKey: `K${stageId}`,
    customerId: '42',
    orderDate: '2024-04-01',
    amount: '12.00',
    currency: 'JPY',
    attemptCount: 0,
    transientFailures: 0,
    loadId: 7,
    lineNo: stageId + 1,
    ...over,
  };
}

class TransientError extends Error {}

/** Whether a FakePort processes chunks in the database unless told (each test runs both ways, below). */
let defaultInDatabase = false;

interface FakeOptions {
  concurrentConnections?: boolean;
  maxChunkSize?: number;
  /** The MERGE's answer for a row (absent: merged). */
  mergeFailure?: (row: ClaimedRow) => Omit<RowFailure, 'stageId'> | undefined;
  /** Rows another session holds at the n-th claim (1-based): skipped by that claim. */
  lockedAtClaim?: (claimNo: number) => ReadonlySet<number>;
  /** Throw after the n-th transaction committed (a lost COMMIT reply), or before it committed. */
  lostCommitReply?: ReadonlySet<number>;
  failBeforeCommit?: (txNo: number) => Error | undefined;
  /** A failure the MERGE reports for a row it was not given. */
  foreignFailure?: RowFailure;
  /**
   * The engine processes chunks itself (ChunkTx.processInDatabase): it merges and marks DONE the
   * rows `plain` passes (default: those validateOrder passes) and returns the rest.
   */
  inDatabase?: boolean;
  plain?: (row: ClaimedRow) => boolean;
}

/** Rows in memory; a chunk's statuses are written when the transaction's function returns. */
class FakePort implements ProcessingPort {
  readonly capabilities: { concurrentConnections: boolean; maxChunkSize: number };
  readonly pending = new Map<number, ClaimedRow>();
  readonly claimingNow = new Set<number>();
  readonly claims: ClaimQuery[] = [];
  readonly merges: { stageIds: number[]; options: MergeOptions }[] = [];
  readonly committed: ChunkFinalization[] = [];
  readonly txOptions: (TransactionOptions | undefined)[] = [];
  readonly tallies: string[] = [];
  readonly statusOf = new Map<number, { status: string; batchId: string }>();
  inFlight = 0;
  maxInFlight = 0;
  txCount = 0;
  claimCount = 0;

  readonly fake: FakeOptions;

  constructor(rows: ClaimedRow[], fake: FakeOptions = {}) {
    for (const r of rows) this.pending.set(r.stageId, r);
    this.fake = { inDatabase: defaultInDatabase, ...fake };
    this.capabilities = { concurrentConnections: fake.concurrentConnections ?? false, maxChunkSize: fake.maxChunkSize ?? 1000 };
  }

  classifyError(error: unknown): FailureKind {
    return error instanceof TransientError ? 'transient' : 'rejected';
  }

  async tallyBatch(batchId: string): Promise<{ tally: StatusTally; lastStageId: number | null }> {
    this.tallies.push(batchId);
    const tally: StatusTally = {};
    let last: number | null = null;
    for (const [id, s] of this.statusOf) {
      if (s.batchId !== batchId) continue;
      const key = s.status as keyof StatusTally;
      tally[key] = (tally[key] ?? 0) + 1;
      last = last === null ? id : Math.max(last, id);
    }
    return Promise.resolve({ tally, lastStageId: last });
  }

  async transaction<T>(fn: (tx: ChunkTx) => Promise<T>, options?: TransactionOptions): Promise<T> {
    const txNo = ++this.txCount;
    this.txOptions.push(options);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    const held: number[] = [];
    let finalization: ChunkFinalization | undefined;
    const doneInDatabase: number[] = [];
    const rejectedInDatabase: RowOutcome[] = [];
    let batchInDatabase = '';
    const tx: ChunkTx = {
      claimChunk: async (query) => {
        await new Promise((r) => setTimeout(r, 1)); // let other workers interleave
        this.claims.push(query);
        const locked = this.fake.lockedAtClaim?.(++this.claimCount) ?? new Set<number>();
        const rows = [...this.pending.values()]
          .filter((r) => r.stageId > query.afterStageId && !locked.has(r.stageId) && !this.claimingNow.has(r.stageId))
          .filter((r) => query.loadIds === undefined || query.loadIds.includes(r.loadId ?? -1))
          .sort((a, b) => a.stageId - b.stageId)
          .slice(0, query.limit);
        for (const r of rows) {
          this.claimingNow.add(r.stageId);
          held.push(r.stageId);
        }
        return rows;
      },
      mergeOrders: (rows, options) => {
        this.merges.push({ stageIds: rows.map((r) => r.stageId), options });
        const failures: RowFailure[] = [];
        for (const r of rows) {
          const f = this.fake.mergeFailure?.(r);
          if (f !== undefined) failures.push({ stageId: r.stageId, ...f });
        }
        if (this.fake.foreignFailure !== undefined) failures.push(this.fake.foreignFailure);
        return Promise.resolve(failures);
      },
      finalizeChunk: (chunk) => {
        finalization = chunk;
        return Promise.resolve();
      },
    };
    if (this.fake.inDatabase === true) {
      const plain = this.fake.plain ?? ((r: ClaimedRow) => validateOrder(r) === null);
      tx.processInDatabase = async (query) => {
        batchInDatabase = query.batchId;
        const claimed = await tx.claimChunk({ afterStageId: query.afterStageId, limit: query.limit, loadIds: query.loadIds });
        const last = claimed[claimed.length - 1];
        if (last === undefined) return null;
        const taken = claimed.filter(plain);
        // the database's function clamps the block to the rows it merges
        const failures =
          taken.length > 0 ? await tx.mergeOrders(taken, { isolationBlock: Math.min(query.isolationBlock, taken.length) }) : [];
        const byId = new Map(claimed.map((r) => [r.stageId, r]));
        // a row refused for good is written ERROR by the database itself (migration 014), as
        // mergeFailureOutcome would write it; only the transient ones come back
        const refused = failures
          .filter((f) => f.kind === 'transient')
          .map((failure) => ({ row: byId.get(failure.stageId) ?? row(failure.stageId), failure }));
        for (const f of failures) {
          if (f.kind === 'transient') continue;
          const r = byId.get(f.stageId) ?? row(f.stageId);
          rejectedInDatabase.push({
            stageId: r.stageId,
            sourceKey: r.sourceKey,
            status: 'ERROR',
            attemptNo: r.attemptCount + 1,
            transientFailures: r.transientFailures,
            loadId: r.loadId,
            lineNo: r.lineNo,
            error: { phase: 'MERGE', code: f.code, message: f.message },
          });
        }
        const failedIds = new Set(failures.map((f) => f.stageId));
        for (const r of taken) if (!failedIds.has(r.stageId)) doneInDatabase.push(r.stageId);
        const loads = new Map<number | null, number>();
        for (const r of claimed) loads.set(r.loadId, (loads.get(r.loadId) ?? 0) + 1);
        return {
          claimed: claimed.length,
          lastStageId: last.stageId,
          merged: taken.length,
          rejected: failures.length - refused.length,
          loads: [...loads].map(([loadId, n]) => ({ loadId, rows: n })),
          toValidate: claimed.filter((r) => !plain(r)),
          refused,
        };
      };
    }
    try {
      const result = await fn(tx);
      const failure = this.fake.failBeforeCommit?.(txNo);
      if (failure !== undefined) throw failure;
      if (doneInDatabase.length > 0 || rejectedInDatabase.length > 0) {
        // the rows the database made DONE or ERROR, before those the client finalized
        finalization = finalization ?? { batchId: batchInDatabase, done: [], failed: [] };
        finalization = {
          ...finalization,
          done: [...doneInDatabase, ...finalization.done],
          failed: [...rejectedInDatabase, ...finalization.failed],
        };
      }
      if (finalization !== undefined) {
        this.committed.push(finalization);
        for (const id of finalization.done) {
          this.pending.delete(id);
          this.statusOf.set(id, { status: 'DONE', batchId: finalization.batchId });
        }
        for (const f of finalization.failed) {
          // a RETRY_WAIT row is not due again within this test
          this.pending.delete(f.stageId);
          this.statusOf.set(f.stageId, { status: f.status, batchId: finalization.batchId });
        }
      }
      if (this.fake.lostCommitReply?.has(txNo) === true) throw new TransientError('connection lost after COMMIT');
      return result;
    } finally {
      for (const id of held) this.claimingNow.delete(id);
      this.inFlight--;
    }
  }
}

function options(over: Partial<ProcessOptions> = {}): ProcessOptions {
  return {
    runId: 9,
    chunkSize: 10,
    workers: 1,
    maxAttempts: 3,
    rowRetryBaseMs: 60_000,
    rowRetryMaxMs: 600_000,
    retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
    logger: memoryLogger().logger,
    ...over,
  };
}

const rows = (n: number, from = 1) => Array.from({ length: n }, (_, i) => row(from + i));

// Every test runs twice: chunks claimed to the client, and chunks the engine processes itself
// (ChunkTx.processInDatabase, which a PostgreSQL engine has): the outcomes must be the same.
describe.each([false, true])('processBacklog (chunks processed in the database: %s)', (inDatabase) => {
  beforeEach(() => {
    defaultInDatabase = inDatabase;
  });

  describe('processBacklog: a chunk’s rows', () => {
    it('valid rows are merged and end DONE, in chunks of chunkSize with batch ids runId-n, and counted', async () => {
      const port = new FakePort(rows(25));
      const chunks: number[] = [];
      const started = performance.now();
      const result = await processBacklog(port, options({ onChunk: (c) => chunks.push(c.done) }));
      const wall = performance.now() - started;
      // durations, not points in time (no speed is asserted: only that they are durations of this call)
      for (const ms of [result.elapsedMs, ...result.chunkMillis]) {
        expect(ms).toBeGreaterThanOrEqual(0);
        expect(ms).toBeLessThanOrEqual(wall);
      }
      expect(result.counts).toEqual({ chunks: 3, claimed: 25, done: 25, error: 0, retryWait: 0, validateErrors: 0, mergeErrors: 0 });
      expect(result.stopped).toBeNull();
      expect(result.earlierLoads).toBe(0);
      expect(result.chunkMillis).toHaveLength(3);
      expect(chunks).toEqual([10, 20, 25]);
      expect(port.committed.map((c) => c.batchId)).toEqual(['9-1', '9-2', '9-3']);
      expect(port.committed.map((c) => c.done.length)).toEqual([10, 10, 5]);
      expect(port.committed.flatMap((c) => c.done)).toEqual(rows(25).map((r) => r.stageId));
      expect(port.committed.every((c) => c.failed.length === 0)).toBe(true);
      // no failure seen: the whole chunk is one MERGE block
      expect(port.merges.map((m) => m.options.isolationBlock)).toEqual([10, 10, 5]);
    });

    it('the keyset walk: each claim starts after the last row of the previous chunk, then once from the start', async () => {
      const port = new FakePort(rows(12), { lockedAtClaim: (n) => (n === 1 ? new Set([2]) : new Set()) });
      const result = await processBacklog(port, options({ chunkSize: 5 }));
      // row 2 was held at the first claim: skipped, picked up by the pass from the start
      expect(port.claims.map((c) => c.afterStageId)).toEqual([0, 6, 11, 12, 0, 2, 0]);
      expect(port.committed.map((c) => c.done)).toEqual([[1, 3, 4, 5, 6], [7, 8, 9, 10, 11], [12], [2]]);
      expect(result.counts.done).toBe(12);
      expect(result.counts.chunks).toBe(4);
    });

    it('the claim asks for chunkSize rows of the given loads, at most the engine’s largest chunk; the lock wait is passed on', async () => {
      const port = new FakePort([row(1, { loadId: 7 }), row(2, { loadId: 8 }), row(3, { loadId: 7 })], { maxChunkSize: 4 });
      const result = await processBacklog(port, options({ chunkSize: 100, loadIds: [7], lockWaitMs: 1234 }));
      expect(port.claims[0]).toEqual({ afterStageId: 0, limit: 4, loadIds: [7] });
      expect(port.txOptions.every((o) => o?.lockWaitMs === 1234)).toBe(true);
      expect(result.counts.done).toBe(2);
      expect(port.pending.has(2)).toBe(true);
    });

    it('a row that fails validation ends ERROR (phase VALIDATE) without a MERGE; its attempt counted, transient failures kept', async () => {
      const port = new FakePort([
        row(1),
        row(2, { currency: 'yen', attemptCount: 4, transientFailures: 2, loadId: 3, lineNo: 17 }),
        row(3),
      ]);
      const result = await processBacklog(port, options());
      expect(port.merges.map((m) => m.stageIds)).toEqual([[1, 3]]);
      const [chunk] = port.committed;
      expect(chunk?.done).toEqual([1, 3]);
      expect(chunk?.failed).toEqual([
        {
          stageId: 2,
          sourceKey: 'K2',
          status: 'ERROR',
          attemptNo: 5,
          transientFailures: 2,
          loadId: 3,
          lineNo: 17,
          error: { phase: 'VALIDATE', code: expect.any(String) as string, message: expect.stringMatching(/currency/) as string },
        },
      ]);
      expect(result.counts).toMatchObject({ claimed: 3, done: 2, error: 1, retryWait: 0, validateErrors: 1, mergeErrors: 0 });
    });

    it('a chunk of invalid rows only: no MERGE at all, every row ERROR', async () => {
      const port = new FakePort([row(1, { amount: 'x' }), row(2, { customerId: null })]);
      const result = await processBacklog(port, options());
      expect(port.merges).toEqual([]);
      expect(port.committed[0]?.done).toEqual([]);
      expect(port.committed[0]?.failed.map((f) => [f.stageId, f.status])).toEqual([
        [1, 'ERROR'],
        [2, 'ERROR'],
      ]);
      expect(result.counts).toMatchObject({ claimed: 2, done: 0, error: 2, validateErrors: 2 });
    });

    it('a transient MERGE failure below --max-attempts waits in RETRY_WAIT with a backoff of the row’s transient failures', async () => {
      const port = new FakePort([row(1), row(2, { attemptCount: 6, transientFailures: 1 }), row(3)], {
        mergeFailure: (r) => (r.stageId === 2 ? { code: '40P01', message: 'deadlock detected', kind: 'transient' } : undefined),
      });
      const before = Date.now();
      const result = await processBacklog(port, options({ maxAttempts: 3, rowRetryBaseMs: 60_000, rowRetryMaxMs: 600_000 }));
      const after = Date.now();
      const [chunk] = port.committed;
      expect(chunk?.done).toEqual([1, 3]);
      expect(chunk?.failed).toHaveLength(1);
      const failed = chunk?.failed[0];
      expect(failed).toMatchObject({
        stageId: 2,
        sourceKey: 'K2',
        status: 'RETRY_WAIT',
        attemptNo: 7,
        transientFailures: 2,
        loadId: 7,
        lineNo: 3,
        error: { phase: 'MERGE', code: '40P01', message: 'deadlock detected' },
      });
      // second transient failure: ceiling 60 s · 2 = 120 s, full jitter in [60 s, 120 s]
      const wait = (failed?.nextAttemptAt?.getTime() ?? 0) - before;
      expect(wait).toBeGreaterThanOrEqual(60_000);
      expect(wait).toBeLessThanOrEqual(120_000 + (after - before));
      expect(result.counts).toMatchObject({ claimed: 3, done: 2, error: 0, retryWait: 1, validateErrors: 0, mergeErrors: 1 });
    });

    it('the backoff is capped by rowRetryMaxMs', async () => {
      const port = new FakePort([row(1, { transientFailures: 5 })], {
        mergeFailure: () => ({ code: '40001', message: 'serialization', kind: 'transient' }),
      });
      const before = Date.now();
      await processBacklog(port, options({ maxAttempts: 100, rowRetryBaseMs: 1_000, rowRetryMaxMs: 4_000 }));
      const wait = (port.committed[0]?.failed[0]?.nextAttemptAt?.getTime() ?? 0) - before;
      expect(wait).toBeGreaterThanOrEqual(2_000 - 50);
      expect(wait).toBeLessThanOrEqual(4_000 + 50);
    });

    it('the transient failure that reaches --max-attempts ends the row ERROR, saying it gave up', async () => {
      const port = new FakePort([row(1, { attemptCount: 2, transientFailures: 2 })], {
        mergeFailure: () => ({ code: '40P01', message: 'deadlock detected', kind: 'transient' }),
      });
      const result = await processBacklog(port, options({ maxAttempts: 3 }));
      const failed = port.committed[0]?.failed[0];
      expect(failed).toMatchObject({ status: 'ERROR', attemptNo: 3, transientFailures: 3 });
      expect(failed?.nextAttemptAt).toBeUndefined();
      expect(failed?.error?.message).toBe(
        'deadlock detected (transient; gave up after 3 transient failures at these values, --max-attempts 3)',
      );
      expect(result.counts).toMatchObject({ done: 0, error: 1, retryWait: 0, mergeErrors: 1 });
    });

    it('--max-attempts bounds transient failures, not attempts: a row with many attempts and no transient failure waits', async () => {
      const port = new FakePort([row(1, { attemptCount: 10, transientFailures: 0 })], {
        mergeFailure: () => ({ code: '40P01', message: 'deadlock detected', kind: 'transient' }),
      });
      await processBacklog(port, options({ maxAttempts: 2 }));
      expect(port.committed[0]?.failed[0]).toMatchObject({ status: 'RETRY_WAIT', attemptNo: 11, transientFailures: 1 });
    });

    it('a rejected MERGE row ends ERROR at once, its message as the database gave it, its transient failures kept', async () => {
      const port = new FakePort([row(1, { transientFailures: 1 }), row(2)], {
        mergeFailure: (r) => (r.stageId === 1 ? { code: '23514', message: 'check violation', kind: 'rejected' } : undefined),
      });
      const result = await processBacklog(port, options({ maxAttempts: 5 }));
      const failed = port.committed[0]?.failed[0];
      expect(failed).toMatchObject({
        stageId: 1,
        status: 'ERROR',
        transientFailures: 1,
        error: { phase: 'MERGE', code: '23514', message: 'check violation' },
      });
      expect(failed?.nextAttemptAt).toBeUndefined();
      expect(port.committed[0]?.done).toEqual([2]);
      expect(result.counts).toMatchObject({ claimed: 2, done: 1, error: 1, retryWait: 0, validateErrors: 0, mergeErrors: 1 });
    });

    // the client's own MERGE (a chunk in the database reports each refused row with its values, read by its stage_id)
    it('a MERGE that blames a row not in the chunk fails the run (nothing of the chunk committed)', async () => {
      const port = new FakePort([row(1)], {
        inDatabase: false,
        foreignFailure: { stageId: 99, code: 'X', message: 'm', kind: 'rejected' },
      });
      const error = await processBacklog(port, options()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RunAbortedError);
      expect(String(error)).toMatch(/stage_id 99, which is not in the chunk/);
      expect(port.committed).toEqual([]);
    });

    it('mixed: validation, rejected, transient and DONE rows are counted apart; error excludes RETRY_WAIT', async () => {
      const port = new FakePort([row(1), row(2, { orderDate: 'nope' }), row(3), row(4), row(5)], {
        mergeFailure: (r) =>
          r.stageId === 3
            ? { code: 'R', message: 'r', kind: 'rejected' }
            : r.stageId === 4
              ? { code: 'T', message: 't', kind: 'transient' }
              : undefined,
      });
      const result = await processBacklog(port, options({ maxAttempts: 5 }));
      expect(result.counts).toEqual({ chunks: 1, claimed: 5, done: 2, error: 2, retryWait: 1, validateErrors: 1, mergeErrors: 2 });
      expect(port.committed[0]?.done).toEqual([1, 5]);
      // in stage_id order: the database writes the rows it refused for good itself (migration 014)
      const failed = [...(port.committed[0]?.failed ?? [])].sort((a, b) => a.stageId - b.stageId);
      expect(failed.map((f) => [f.stageId, f.status, f.error?.phase])).toEqual([
        [2, 'ERROR', 'VALIDATE'],
        [3, 'ERROR', 'MERGE'],
        [4, 'RETRY_WAIT', 'MERGE'],
      ]);
    });
  });

  describe('processBacklog: the MERGE isolation block', () => {
    it('isolationBlockFor: the whole chunk while nothing fails, about sqrt(2.5 / rate) rows once failures are seen, 8 at least', () => {
      expect(isolationBlockFor(1000, 0)).toBe(1000);
      expect(isolationBlockFor(1000, 0.000_009)).toBe(1000);
      expect(isolationBlockFor(1000, 0.000_01)).toBe(500);
      expect(isolationBlockFor(100, 0.000_01)).toBe(100);
      expect(isolationBlockFor(1000, 0.01)).toBe(16);
      expect(isolationBlockFor(1000, 0.5)).toBe(8);
      expect(isolationBlockFor(5, 0.5)).toBe(8);
    });

    it('the failure rate of each chunk is smoothed (0.7 old, 0.3 new) into the next chunk’s block', async () => {
      // chunk 1: 10 of 100 fail (rate 0.1) → next rate 0.03 → block round(sqrt(2.5 / 0.03)) = 9
      // chunk 2: none fails → next rate 0.021 → block round(sqrt(2.5 / 0.021)) = 11
      const port = new FakePort(rows(300), {
        mergeFailure: (r) => (r.stageId <= 100 && r.stageId % 10 === 0 ? { code: 'R', message: 'r', kind: 'rejected' } : undefined),
      });
      const result = await processBacklog(port, options({ chunkSize: 100 }));
      expect(port.merges.map((m) => m.options.isolationBlock)).toEqual([100, 9, 11]);
      expect(result.counts).toMatchObject({ done: 290, error: 10, mergeErrors: 10 });
    });

    it('a chunk of invalid rows only (nothing merged) does not change the rate: the next chunk is one block', async () => {
      const port = new FakePort([row(1, { amount: 'x' }), row(2, { amount: 'x' }), ...rows(3, 3)]);
      await processBacklog(port, options({ chunkSize: 2 }));
      expect(port.merges.map((m) => m.options.isolationBlock)).toEqual([2, 1]);
    });

    it('the rate is that of the rows merged: invalid rows do not count in it', async () => {
      // chunk 1: 5 rows fail validation, 1 of the 5 merged fails (rate 0.2) → 0.06 → round(sqrt(41.67)) = 6 → 8
      const first = [
        row(1, { amount: 'x' }),
        row(2, { amount: 'x' }),
        row(3, { amount: 'x' }),
        row(4, { amount: 'x' }),
        row(5, { amount: 'x' }),
      ];
      const port = new FakePort([...first, ...rows(5, 6), ...rows(50, 11)], {
        mergeFailure: (r) => (r.stageId === 6 ? { code: 'R', message: 'r', kind: 'rejected' } : undefined),
      });
      await processBacklog(port, options({ chunkSize: 10 }));
      const blocks = port.merges.map((m) => m.options.isolationBlock);
      expect(blocks[0]).toBe(5);
      // 0.06: round(sqrt(41.7)) = 6, at least 8; a rate over the whole chunk (1/10) would give 9
      expect(blocks[1]).toBe(8);
    });
  });

  describe('processBacklog: a chunk whose transaction failed', () => {
    it('a lost COMMIT reply: the chunk is counted from its rows (tallyBatch), not claimed again', async () => {
      const port = new FakePort([row(1), row(2, { currency: 'x' }), row(3)], { lostCommitReply: new Set([1]) });
      const result = await processBacklog(port, options());
      expect(port.tallies).toEqual(['9-1']);
      expect(port.committed).toHaveLength(1);
      // validation and MERGE errors are not told apart in a tally
      expect(result.counts).toEqual({ chunks: 1, claimed: 3, done: 2, error: 1, retryWait: 0, validateErrors: 0, mergeErrors: 0 });
      expect(port.claims.map((c) => c.afterStageId)).toEqual([0, 3, 0]);
    });

    it('a lost COMMIT reply counts RETRY_WAIT rows as such', async () => {
      const port = new FakePort([row(1), row(2)], {
        lostCommitReply: new Set([1]),
        mergeFailure: (r) => (r.stageId === 2 ? { code: 'T', message: 't', kind: 'transient' } : undefined),
      });
      const result = await processBacklog(port, options({ maxAttempts: 5 }));
      expect(result.counts).toEqual({ chunks: 1, claimed: 2, done: 1, error: 0, retryWait: 1, validateErrors: 0, mergeErrors: 0 });
    });

    it('a transaction rolled back (nothing committed under its batch id) is run again and its rows claimed again', async () => {
      const port = new FakePort(rows(2), { failBeforeCommit: (n) => (n === 1 ? new TransientError('connection lost') : undefined) });
      const result = await processBacklog(port, options());
      expect(port.tallies).toEqual(['9-1']);
      expect(port.committed.map((c) => [c.batchId, c.done])).toEqual([['9-1', [1, 2]]]);
      expect(result.counts).toMatchObject({ chunks: 1, claimed: 2, done: 2 });
    });

    it('the first attempt does not ask what was committed', async () => {
      const port = new FakePort(rows(2));
      await processBacklog(port, options());
      expect(port.tallies).toEqual([]);
    });

    it('a failure the engine calls rejected stops the run with a RunAbortedError (fatal) that keeps the cause', async () => {
      const cause = new Error('permission denied');
      const port = new FakePort(rows(2), { failBeforeCommit: () => cause });
      const error = await processBacklog(port, options()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RunAbortedError);
      expect((error as RunAbortedError).reason).toBe('fatal');
      expect((error as RunAbortedError).cause).toBe(cause);
      // the chunk is named by its batch id
      expect((error as RunAbortedError).message).toMatch(/^chunk 9-1 failed: .*permission denied/);
      expect(port.committed).toEqual([]);
    });

    it('an error outside a chunk’s transaction (the progress callback) is wrapped as fatal with its cause', async () => {
      const cause = new TypeError('boom');
      const port = new FakePort(rows(2));
      const error = await processBacklog(
        port,
        options({
          onChunk: () => {
            throw cause;
          },
        }),
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RunAbortedError);
      expect((error as RunAbortedError).message).toBe('processing failed: TypeError: boom');
      expect((error as RunAbortedError).reason).toBe('fatal');
      expect((error as RunAbortedError).cause).toBe(cause);
    });
  });

  describe('processBacklog: workers', () => {
    it('a server engine runs `workers` loops at once; every row is processed once', async () => {
      const port = new FakePort(rows(40), { concurrentConnections: true });
      const result = await processBacklog(port, options({ workers: 3, chunkSize: 2 }));
      expect(port.maxInFlight).toBe(3);
      expect(result.counts.done).toBe(40);
      const done = port.committed.flatMap((c) => c.done).sort((a, b) => a - b);
      expect(done).toEqual(rows(40).map((r) => r.stageId));
      // batch ids are unique across workers
      expect(new Set(port.committed.map((c) => c.batchId)).size).toBe(port.committed.length);
    });

    it('workers 0 still runs one loop; an embedded engine runs one whatever is asked', async () => {
      const server = new FakePort(rows(4), { concurrentConnections: true });
      expect((await processBacklog(server, options({ workers: 0, chunkSize: 1 }))).counts.done).toBe(4);
      expect(server.maxInFlight).toBe(1);
      const embedded = new FakePort(rows(8), { concurrentConnections: false });
      expect((await processBacklog(embedded, options({ workers: 4, chunkSize: 1 }))).counts.done).toBe(8);
      expect(embedded.maxInFlight).toBe(1);
    });

    it('a failed worker stops the others after their current chunk', async () => {
      const port = new FakePort(rows(100), {
        concurrentConnections: true,
        failBeforeCommit: (n) => (n === 3 ? new Error('rejected') : undefined),
      });
      const error = await processBacklog(port, options({ workers: 2, chunkSize: 1 })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RunAbortedError);
      expect(port.txCount).toBeLessThanOrEqual(5);
      expect(port.pending.size).toBeGreaterThan(90);
    });
  });

  describe('processBacklog: stops', () => {
    it('an aborted signal stops before the first chunk: interrupted', async () => {
      const port = new FakePort(rows(3));
      const controller = new AbortController();
      controller.abort();
      const result = await processBacklog(port, options({ signal: controller.signal }));
      expect(result.stopped).toBe('interrupted');
      expect(port.txCount).toBe(0);
      expect(result.counts.chunks).toBe(0);
    });

    it('an abort between chunks: the chunk in hand is committed and counted', async () => {
      const port = new FakePort(rows(3));
      const controller = new AbortController();
      const result = await processBacklog(port, options({ chunkSize: 1, signal: controller.signal, onChunk: () => controller.abort() }));
      expect(result.stopped).toBe('interrupted');
      expect(result.counts).toMatchObject({ chunks: 1, done: 1 });
    });

    it('--max-errors: stops once more than that many rows ended ERROR (committed chunks stay)', async () => {
      const bad = [1, 2, 3, 4].map((id) => row(id, { currency: 'bad' }));
      const port = new FakePort(bad);
      const result = await processBacklog(port, options({ chunkSize: 1, maxErrors: 1 }));
      expect(result.stopped).toBe('max-errors');
      // 1 error is not more than 1; 2 is
      expect(result.counts).toMatchObject({ chunks: 2, error: 2 });
    });

    it('--max-errors 0 stops after the first error; rows in RETRY_WAIT do not count', async () => {
      const port = new FakePort([row(1), row(2), row(3, { currency: 'bad' }), row(4)], {
        mergeFailure: (r) => (r.stageId === 1 ? { code: 'T', message: 't', kind: 'transient' } : undefined),
      });
      const result = await processBacklog(port, options({ chunkSize: 1, maxErrors: 0, maxAttempts: 5 }));
      expect(result.stopped).toBe('max-errors');
      expect(result.counts).toMatchObject({ chunks: 3, retryWait: 1, done: 1, error: 1 });
    });

    it('lines rejected while staging count towards --max-errors', async () => {
      const port = new FakePort([row(1, { currency: 'bad' }), row(2), row(3)]);
      const result = await processBacklog(port, options({ chunkSize: 1, maxErrors: 2, rejectedWhileStaging: () => 2 }));
      expect(result.stopped).toBe('max-errors');
      expect(result.counts).toMatchObject({ chunks: 1, error: 1 });
      const already = new FakePort(rows(2));
      const stoppedAtOnce = await processBacklog(already, options({ maxErrors: 2, rejectedWhileStaging: () => 3 }));
      expect(stoppedAtOnce.stopped).toBe('max-errors');
      expect(already.txCount).toBe(0);
    });

    it('a chunk whose claim sees rows staged past --max-errors rolls back: staging counted their rejected lines before they committed', async () => {
      let rejected = 0;
      const port = new FakePort(rows(3), {
        // staging commits a batch with 5 rejected lines while the second chunk is being claimed:
        // the worker checked the limit before its claim, the claim sees the batch's rows
        lockedAtClaim: (n) => {
          if (n === 2) rejected = 5;
          return new Set<number>();
        },
      });
      const result = await processBacklog(port, options({ chunkSize: 1, maxErrors: 2, rejectedWhileStaging: () => rejected }));
      expect(result.stopped).toBe('max-errors');
      expect(result.counts).toMatchObject({ chunks: 1, claimed: 1, done: 1 });
      // the second chunk was claimed and rolled back: row 2 was not merged for good, nor row 3 claimed
      expect(port.claims).toHaveLength(2);
      expect(port.committed.flatMap((c) => c.done)).toEqual([1]);
      expect([...port.pending.keys()]).toEqual([2, 3]);
    });

    it('no --max-errors: every error is processed', async () => {
      const port = new FakePort([1, 2, 3].map((id) => row(id, { currency: 'bad' })));
      const result = await processBacklog(port, options({ chunkSize: 1, rejectedWhileStaging: () => 1000 }));
      expect(result.stopped).toBeNull();
      expect(result.counts.error).toBe(3);
    });
  });

  describe('processBacklog: beside staging', () => {
    it('while staging is not done an empty pass waits and claims again; it ends once staging was done before an empty claim', async () => {
      const port = new FakePort([]);
      let polls = 0;
      const result = await processBacklog(
        port,
        options({
          idleWaitMs: 1,
          stagingDone: () => {
            polls++;
            if (polls === 3) port.pending.set(1, row(1)); // staged while processing waited
            return polls >= 4;
          },
        }),
      );
      expect(result.counts.done).toBe(1);
      // polls 1 and 2: empty, staging not done; 3: row 1 (staged by then); 4: empty from 1 → start; 5: empty, done
      expect(port.claims.map((c) => c.afterStageId)).toEqual([0, 0, 0, 1, 0]);
      expect(polls).toBe(5);
    });

    it('an empty pass while staging runs is not the end: the worker claims again once staging says it is done', async () => {
      const port = new FakePort([]);
      let polls = 0;
      await processBacklog(
        port,
        options({
          idleWaitMs: 1,
          stagingDone: () => {
            polls++;
            return polls >= 2;
          },
        }),
      );
      expect(port.claims).toHaveLength(2);
    });

    /** Fake milliseconds, one at a time, until `done()` or `maxMs` have passed; the fake time passed. */
    async function fakeMsUntil(done: () => boolean, maxMs: number): Promise<number> {
      let ms = 0;
      while (!done() && ms < maxMs) {
        await vi.advanceTimersByTimeAsync(1);
        ms++;
      }
      return ms;
    }

    it('an idle worker claims again when staging has news (a batch committed, staging ended), not at the end of idleWaitMs', async () => {
      vi.useFakeTimers();
      try {
        const port = new FakePort([]);
        let done = false;
        let ended = false;
        let tell: () => void = () => undefined;
        const news = new Promise<void>((resolve) => {
          tell = resolve;
        });
        const result = processBacklog(port, options({ idleWaitMs: 60_000, stagingDone: () => done, stagingNews: () => news })).then((r) => {
          ended = true;
          return r;
        });
        await fakeMsUntil(() => port.claims.length === 1, 1000);
        await vi.advanceTimersByTimeAsync(5); // the empty pass returned: the worker waits
        expect(ended).toBe(false);
        // staging ended (LoadProcessing.stagingFinished): one more claim, then the end
        done = true;
        tell();
        const waited = await fakeMsUntil(() => ended, 2000);
        expect(waited).toBeLessThan(1000);
        expect((await result).stopped).toBeNull();
        expect(port.claims).toHaveLength(2);
      } finally {
        vi.useRealTimers();
      }
    });

    it('news that comes while the empty claim runs is not missed: the worker does not wait idleWaitMs for it', async () => {
      vi.useFakeTimers();
      try {
        const port = new FakePort([]);
        let done = false;
        let ended = false;
        const result = processBacklog(
          port,
          options({
            idleWaitMs: 60_000,
            stagingDone: () => done,
            // staging ends right after the worker read stagingDone, before its claim comes back empty
            stagingNews: () => {
              done = true;
              return Promise.resolve();
            },
          }),
        ).then(() => {
          ended = true;
        });
        const waited = await fakeMsUntil(() => ended, 2000);
        expect(waited).toBeLessThan(1000);
        await result;
        expect(port.claims).toHaveLength(2);
      } finally {
        vi.useRealTimers();
      }
    });

    it('earlierLoads: with ownLoad, the claimed rows of other loads are counted', async () => {
      const port = new FakePort([row(1, { loadId: 7 }), row(2, { loadId: 3 }), row(3, { loadId: null })]);
      const result = await processBacklog(port, options({ ownLoad: (id) => id === 7 }));
      expect(result.earlierLoads).toBe(2);
      expect(result.counts.done).toBe(3);
    });
  });

  describe('processBacklog: a chunk processed in the database', () => {
    it('rows the database did not take as plain go to validateOrder; one it passes is merged by the client and DONE', async () => {
      // the engine's plain rules narrower than validateOrder's: customer 42 passes them, 43 does not
      const port = new FakePort([row(1), row(2, { customerId: '43' }), row(3, { customerId: '43', currency: 'yen' }), row(4)], {
        inDatabase: true,
        plain: (r) => r.customerId === '42',
      });
      const result = await processBacklog(port, options());
      // the database's MERGE of 1 and 4, then the client's of 2 (3 fails validation)
      expect(port.merges.map((m) => m.stageIds)).toEqual([[1, 4], [2]]);
      expect(port.committed[0]?.done).toEqual([1, 4, 2]);
      // in stage_id order: the database writes the rows it refused for good itself (migration 014)
      const failed = [...(port.committed[0]?.failed ?? [])].sort((a, b) => a.stageId - b.stageId);
      expect(failed.map((f) => [f.stageId, f.status, f.error?.phase])).toEqual([[3, 'ERROR', 'VALIDATE']]);
      expect(result.counts).toEqual({ chunks: 1, claimed: 4, done: 3, error: 1, retryWait: 0, validateErrors: 1, mergeErrors: 0 });
    });

    it('a row the client merges and the database refuses is judged like one the database merged', async () => {
      const port = new FakePort([row(1), row(2, { customerId: '43' })], {
        inDatabase: true,
        plain: (r) => r.customerId === '42',
        mergeFailure: (r) => (r.stageId === 2 ? { code: '40P01', message: 'deadlock detected', kind: 'transient' } : undefined),
      });
      const result = await processBacklog(port, options());
      expect(port.committed[0]?.done).toEqual([1]);
      expect(port.committed[0]?.failed.map((f) => [f.stageId, f.status, f.error?.phase, f.transientFailures])).toEqual([
        [2, 'RETRY_WAIT', 'MERGE', 1],
      ]);
      expect(result.counts).toMatchObject({ done: 1, error: 0, retryWait: 1, mergeErrors: 1 });
    });

    it('the isolation block asked of the database comes from the chunk size and the failure rate', async () => {
      const port = new FakePort(rows(40), {
        inDatabase: true,
        mergeFailure: (r) => (r.stageId % 10 === 1 ? { code: '22003', message: 'numeric field overflow', kind: 'rejected' } : undefined),
      });
      await processBacklog(port, options({ chunkSize: 20 }));
      // no failure seen yet: the whole chunk; then sqrt(2.5 / (0.3 × 2/20)) ≈ 9 rows
      expect(port.merges.map((m) => m.options.isolationBlock)).toEqual([20, isolationBlockFor(20, 0.03)]);
      expect(isolationBlockFor(20, 0.03)).toBe(9);
    });
  });
});
