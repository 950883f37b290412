import type { ClaimedRow, FailureKind, RowFailure } from '../types.js';
import { type Binds, LIMITS, MAX_BYTES, ORACLE_MAX_CHUNK, slices } from './binds.js';
import { classifyOracleCode, classifyOracleCodes, classifyOracleError, oracleCodesFromMessage, primaryOracleCode } from './classify.js';
import { type LockBudget, withinLockBudget } from './lock-budget.js';
import type { OraBatchError, OraConnection } from './oracledb-types.js';
import { cutChars, oracleQuery } from './sql-text.js';
import { storedMessage } from './stored-message.js';

/**
 * The MERGE of a chunk into orders: a work queue of blocks of rows, each one executeMany of
 * queries/merge_orders.sql with batchErrors: true, and the mapping of what fails to row
 * failures.
 */

/** Thrown when a batch error of the MERGE carries a fatal code (e.g. ORA-01653 out of space):
 * no row is at fault, the chunk must roll back. The message holds the code only. */
export class OracleChunkError extends Error {
  override readonly name = 'OracleChunkError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Whole-call errors of executeMany that are about one bind value, not the statement: the
 * driver checks values on the client before sending anything (lib/transformer.js):
 * NJS-058 "maxSize of %d is too small for value of length %d in row %d" (names its 0-based
 * row) and NJS-011 "encountered bind value and type mismatch" (names no row). Only these are
 * isolated to rows; any other whole-call error (a server error, NJS-098 placeholders, NJS-005,
 * a TypeError of our own) is about the call and fails the chunk.
 */
export const ROW_BIND_ERRORS: ReadonlySet<string> = new Set(['NJS-058', 'NJS-011']);

/** The 0-based row an NJS-058 names, if it is one of the `rowCount` rows bound. */
export function bindErrorRowIndex(error: unknown, rowCount: number): number | undefined {
  if (primaryOracleCode(error) !== 'NJS-058') return undefined;
  const message = error instanceof Error ? error.message : String(error);
  const m = /\bin row (\d+)\b/.exec(message);
  if (m?.[1] === undefined) return undefined;
  const index = Number(m[1]);
  return Number.isInteger(index) && index >= 0 && index < rowCount ? index : undefined;
}

/** A row the database (or the driver's bind check) refused, with its code and kind. */
export function failureOf(row: ClaimedRow, code: string, kind: FailureKind, cause: unknown): RowFailure {
  const message = typeof cause === 'string' ? cause : cause instanceof Error ? cause.message : String(cause);
  return {
    stageId: row.stageId,
    code: cutChars(code, LIMITS.code),
    message: storedMessage(message, code),
    kind: kind === 'transient' ? 'transient' : 'rejected',
  };
}

/** The longest lock wait Oracle's FOR UPDATE WAIT is given: --row-lock-wait's own maximum, 24 h. */
const MAX_LOCK_WAIT_SECONDS = 86_400;

/**
 * `FOR UPDATE WAIT n` takes whole seconds: a wait in milliseconds rounded up (500 ms waits 1 s).
 * 0 or undefined: no lock step (wait for ever, or the database's own behaviour, which for
 * Oracle DML is the same).
 */
export function lockWaitSeconds(lockWaitMs: number | undefined): number | undefined {
  if (lockWaitMs === undefined || !(lockWaitMs > 0)) return undefined;
  return Math.min(MAX_LOCK_WAIT_SECONDS, Math.ceil(lockWaitMs / 1000));
}

/**
 * A lock statement's wait (merge_lock.sql, stage_batch_lock.sql): the file's `WAIT 86400` (Oracle
 * takes no bind there) replaced by `seconds` (0: NOWAIT), or taken out when there is no bound
 * (undefined).
 */
export function boundedWait(text: string, seconds: number | undefined): string {
  const marker = /(\bFOR UPDATE(?: OF [a-z_.]+)?) WAIT 86400\b/;
  if (!marker.test(text)) throw new Error('lock statement: no FOR UPDATE ... WAIT 86400 to set the wait in');
  if (seconds === undefined) return text.replace(marker, '$1');
  return text.replace(marker, seconds > 0 ? `$1 WAIT ${Math.ceil(seconds)}` : '$1 NOWAIT');
}

/** queries/merge_lock.sql with its wait: the file's WAIT 86400 replaced by `seconds` (0: NOWAIT). */
export function mergeLockSql(seconds: number): string {
  return boundedWait(oracleQuery('merge_lock'), seconds);
}

/**
 * merge_lock.sql for `part` with one wait: the rows whose :failure came back, each with its
 * message (a transient code: ORA-00054 or ORA-30006 held, ORA-00060 deadlock); any other code
 * fails the chunk.
 */
export async function lockPart(
  connection: OraConnection,
  binds: Binds,
  part: readonly ClaimedRow[],
  seconds: number,
): Promise<Array<{ row: ClaimedRow; message: string; code: string }>> {
  const result = await connection.executeMany(
    mergeLockSql(seconds),
    part.map((r) => ({ stage_id: r.stageId })),
    { autoCommit: false, bindDefs: { stage_id: binds.number(), failure: binds.outVarchar(MAX_BYTES.message) } },
  );
  const outs = result.outBinds;
  if (!Array.isArray(outs) || outs.length !== part.length) {
    throw new Error(`merge lock: ${Array.isArray(outs) ? outs.length : 'no'} out binds for the ${part.length} rows bound`);
  }
  const held: Array<{ row: ClaimedRow; message: string; code: string }> = [];
  part.forEach((row, i) => {
    const failure = (outs[i] as { failure?: unknown } | undefined)?.failure;
    if (failure === null || failure === undefined) return;
    if (typeof failure !== 'string') throw new Error('merge lock: an out bind :failure that is not text');
    const codes = oracleCodesFromMessage(failure);
    if (classifyOracleCodes(codes) !== 'transient') {
      throw new OracleChunkError(codes[0] ?? 'ORA-UNKNOWN', `merge lock: ${codes.join(' ')} reported for a row; the chunk is rolled back`);
    }
    held.push({ row, message: failure, code: codes[0] ?? 'ORA-30006' });
  });
  return held;
}

/**
 * Lock the orders rows of `rows` (queries/merge_lock.sql) within the chunk's one bound, `budget`
 * (lock-budget.ts): first every row with NOWAIT (one round trip; a row another session holds comes back
 * with ORA-00054), then the held rows one at a time, each waiting at most what is left of the
 * bound in whole seconds (LockBudget.secondsLeft: rounded up, the waits end less than a second
 * past the bound); once nothing is left, the rows still held are given up without waiting. A deadlock (ORA-00060) is
 * given up at once. The rows given up come back as transient failures, to be left out of the
 * MERGE (RETRY_WAIT); every other row's target is locked by this transaction (or does not exist
 * yet), so the MERGE waits for no other session's row lock. Before, each row waited `seconds`
 * of its own: k held rows held the chunk k times the bound.
 */
export async function lockTargets(
  connection: OraConnection,
  binds: Binds,
  rows: readonly ClaimedRow[],
  budget: LockBudget,
): Promise<RowFailure[]> {
  budget.leftMs(); // the bound starts here at the latest
  const held: Array<{ row: ClaimedRow; message: string; code: string }> = [];
  for (const part of slices(rows, ORACLE_MAX_CHUNK)) held.push(...(await lockPart(connection, binds, part, 0)));
  const failures: RowFailure[] = [];
  for (const h of held) {
    const left = budget.secondsLeft();
    const still = h.code === 'ORA-00060' || left < 1 ? [h] : await lockPart(connection, binds, [h.row], left);
    for (const f of still) failures.push(failureOf(f.row, f.code, 'transient', f.message));
  }
  return failures;
}

/**
 * The MERGE of a chunk, after its targets are locked when the transaction has a bound on its
 * waits (`budget`, lockTargets): a row held by another session past the wait is a transient
 * failure (RETRY_WAIT) and is not merged; the others are, under a call timeout of what is left
 * of the bound (a key another session inserted and has not committed: OracleLockWaitTimeout,
 * the chunk rolls back and is run again).
 */
export async function lockAndMerge(
  connection: OraConnection,
  binds: Binds,
  rows: readonly ClaimedRow[],
  budget: LockBudget | undefined,
): Promise<RowFailure[]> {
  if (budget === undefined || rows.length === 0) return mergeOrders(connection, binds, rows);
  const held = await lockTargets(connection, binds, rows, budget);
  if (held.length === 0) return mergeOrders(connection, binds, rows, budget);
  const out = new Set(held.map((f) => f.stageId));
  return [
    ...held,
    ...(await mergeOrders(
      connection,
      binds,
      rows.filter((r) => !out.has(r.stageId)),
      budget,
    )),
  ];
}

/**
 * Each batchErrors[i].offset indexes the bind array, i.e. the row passed at that position.
 * A batch error with a fatal code anywhere in its message (out of space, ...) fails the chunk,
 * and so does any error thrown for the whole call, except a value-specific bind error
 * (ROW_BIND_ERRORS): that one is isolated, NJS-058 by the row it names (that row fails, the
 * rest is re-run), NJS-011 by splitting the block in halves, down to single rows. Re-running
 * rows already merged is harmless (the MERGE of an identical row updates nothing). No
 * isolation block size is needed: Oracle reports failing rows itself.
 */
export async function mergeOrders(
  connection: OraConnection,
  binds: Binds,
  rows: readonly ClaimedRow[],
  budget?: LockBudget,
): Promise<RowFailure[]> {
  const failures: RowFailure[] = [];
  const work: ClaimedRow[][] = slices(rows, ORACLE_MAX_CHUNK).reverse();
  while (work.length > 0) {
    const block = work.pop();
    if (block === undefined || block.length === 0) continue;
    let batchErrors: OraBatchError[];
    try {
      // a new key another session inserted and has not committed makes the insert wait: no lock
      // step can take it first, so the call is bounded by what is left of the chunk's wait
      const result = await withinLockBudget(connection, budget, () =>
        connection.executeMany(
          oracleQuery('merge_orders'),
          block.map((r) => ({ stage_id: r.stageId })),
          { autoCommit: false, batchErrors: true, bindDefs: { stage_id: binds.number() } },
        ),
      );
      batchErrors = result.batchErrors ?? [];
    } catch (error) {
      // With batchErrors every error the server raises for a row comes back in batchErrors;
      // an error thrown for the whole call is about the statement or the call (ORA-00942,
      // ORA-01031, an unusable index, a deadlock on the call, NJS-098, ...), not about any
      // row. Isolating it would mark every row of the chunk ERROR and commit that: the chunk
      // fails instead (retried when transient or fatal).
      const code = primaryOracleCode(error);
      if (classifyOracleError(error) === 'fatal' || !ROW_BIND_ERRORS.has(code)) throw error;
      const index = bindErrorRowIndex(error, block.length);
      if (index !== undefined) {
        const bad = block[index];
        if (bad !== undefined) failures.push(failureOf(bad, code, 'rejected', error));
        const rest = block.filter((_, i) => i !== index);
        if (rest.length > 0) work.push(rest);
      } else if (block.length === 1) {
        const only = block[0];
        if (only !== undefined) failures.push(failureOf(only, code, 'rejected', error));
      } else {
        const middle = Math.ceil(block.length / 2);
        work.push(block.slice(middle), block.slice(0, middle)); // first half runs first
      }
      continue;
    }
    for (const batchError of batchErrors) {
      const row = block[batchError.offset];
      if (row === undefined) throw new Error(`merge: batch error offset ${batchError.offset} outside the ${block.length} rows bound`);
      const codes = oracleCodesFromMessage(batchError.message);
      const kind = classifyOracleCodes(codes);
      const fatal = codes.find((c) => classifyOracleCode(c) === 'fatal');
      if (kind === 'fatal') {
        throw new OracleChunkError(
          fatal ?? codes[0] ?? 'ORA-UNKNOWN',
          `merge into orders: ${codes.join(' ')} reported for a row; the chunk is rolled back`,
        );
      }
      failures.push(failureOf(row, codes[0] ?? 'ORA-UNKNOWN', kind, batchError.message));
    }
  }
  return failures;
}
