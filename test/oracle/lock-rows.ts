/**
 * The rows the row-lock tests claim (row-lock-wait, new-key-wait): a chunk's rows as the engine
 * holds them, the claim's answer as claim.sql returns it, and how to tell the lock step's calls.
 */
import type { ClaimedRow } from '../../src/engine/types.js';
import type { ProcessOptions } from '../../src/pipeline/process.js';
import { DEFAULT_RETRY } from '../../src/pipeline/retry.js';
import { memoryLogger } from '../support/memory-logger.js';

/** A claimed row of load 7, key `K<stageId>`. */
export function claimed(stageId: number): ClaimedRow {
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
  };
}

/** claim.sql's rows for `ids` (the values of `claimed`); `plain`: merged by process_rows.sql, in the database. */
export function claimRows(ids: readonly number[], plain?: boolean): Record<string, string>[] {
  return ids.map((id) => ({
    STAGE_ID: String(id),
    SOURCE_KEY: `K${id}`,
    CUSTOMER_ID: '42',
    ORDER_DATE: '2024-04-01',
    AMOUNT: '12.00',
    CURRENCY: 'JPY',
    ATTEMPT_COUNT: '0',
    TRANSIENT_FAILURES: '0',
    LOAD_ID: '7',
    LINE_NO: String(id + 1),
    ...(plain === undefined ? {} : { PLAIN: plain ? '1' : '0' }),
  }));
}

/** merge_lock.sql as sent (a PL/SQL block with FOR UPDATE WAIT n or NOWAIT). */
export const isLock = (sql: string) => sql.startsWith('DECLARE') && /FOR UPDATE (WAIT \d+|NOWAIT)/.test(sql);

/** processBacklog's options for these tests: one worker, chunks of 10, `lockWaitMs` as given. */
export function processOptions(lockWaitMs: number, more?: Partial<ProcessOptions>): ProcessOptions {
  return {
    runId: 1,
    chunkSize: 10,
    workers: 1,
    maxAttempts: 5,
    rowRetryBaseMs: 30_000,
    rowRetryMaxMs: 600_000,
    lockWaitMs,
    retry: DEFAULT_RETRY,
    logger: memoryLogger().logger,
    ...more,
  };
}
