import type { ClaimedRow, RowFailure } from '../types.js';
import { type Binds, LIMITS, ORACLE_MAX_CHUNK, slices } from './binds.js';
import { classifyOracleCode, classifyOracleError, oracleCodeFromMessage, primaryOracleCode } from './classify.js';
import type { OraBatchError, OraConnection } from './oracledb-types.js';
import { cutChars, nonEmpty, oracleQuery } from './sql-text.js';

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

/** A failure of a whole executeMany that names the row it is about: node-oracledb's
 * bind checks (lib/transformer.js) report the 0-based index of the offending row. */
export function bindErrorRowIndex(error: unknown, rowCount: number): number | undefined {
  const message = error instanceof Error ? error.message : String(error);
  const code = primaryOracleCode(error);
  let m: RegExpExecArray | null = null;
  if (code === 'NJS-058') m = /\bin row (\d+)\b/.exec(message); // maxSize of %d is too small for value of length %d in row %d
  else if (code === 'NJS-037' || code === 'NJS-052') m = /\bat array index (\d+)\b/.exec(message); // invalid data type at array index %d ...
  if (m?.[1] === undefined) return undefined;
  const index = Number(m[1]);
  return Number.isInteger(index) && index >= 0 && index < rowCount ? index : undefined;
}

/** An error the database server raised (an ORA code), as opposed to a driver check on the
 * client (NJS-058 maxSize, NJS-011 type mismatch, ...) that names or implies a row. */
export function isServerError(error: unknown): boolean {
  return primaryOracleCode(error).startsWith('ORA-');
}

/** A row the database (or the driver's bind check) refused, with its code and kind. */
export function failureOf(row: ClaimedRow, code: string, cause: unknown): RowFailure {
  const message = typeof cause === 'string' ? cause : cause instanceof Error ? cause.message : String(cause);
  const kind = code.startsWith('ORA-') ? classifyOracleCode(code) : classifyOracleError(cause);
  return {
    stageId: row.stageId,
    code: cutChars(code, LIMITS.code),
    message: cutChars(nonEmpty(message.trim(), code), LIMITS.message),
    kind: kind === 'transient' ? 'transient' : 'rejected',
  };
}

/**
 * Each batchErrors[i].offset indexes the bind array, i.e. the row passed at that position.
 * A batch error with a fatal code (out of space, ...) fails the chunk, and so does an ORA
 * error thrown for the whole call (a statement-level error). If the call throws as a whole
 * with a driver (NJS) error, the rows are isolated: a driver bind error that names its row
 * (NJS-058 "in row n", NJS-037/052 "at array index n") fails that row and the rest is re-run;
 * any other error splits the block in halves, down to single rows. Re-running rows already
 * merged is harmless (the MERGE of an identical row updates nothing). No isolation block size
 * is needed: Oracle reports failing rows itself.
 */
export async function mergeOrders(connection: OraConnection, binds: Binds, rows: readonly ClaimedRow[]): Promise<RowFailure[]> {
  const failures: RowFailure[] = [];
  const work: ClaimedRow[][] = slices(rows, ORACLE_MAX_CHUNK).reverse();
  while (work.length > 0) {
    const block = work.pop();
    if (block === undefined || block.length === 0) continue;
    let batchErrors: OraBatchError[];
    try {
      const result = await connection.executeMany(
        oracleQuery('merge_orders'),
        block.map((r) => ({ stage_id: r.stageId })),
        { autoCommit: false, batchErrors: true, bindDefs: { stage_id: binds.number() } },
      );
      batchErrors = result.batchErrors ?? [];
    } catch (error) {
      if (classifyOracleError(error) === 'fatal') throw error;
      // With batchErrors every error the server raises for a row comes back in batchErrors;
      // an ORA error thrown for the whole call is about the statement (ORA-00942, ORA-01031,
      // ORA-00904, an unusable index, a deadlock on the call, ...), not about any row, and
      // no transaction was started for it. Isolating it would mark every row of the chunk
      // ERROR (and commit that): the chunk fails instead (retried when transient).
      if (isServerError(error)) throw error;
      const index = bindErrorRowIndex(error, block.length);
      if (index !== undefined) {
        const bad = block[index];
        if (bad !== undefined) failures.push(failureOf(bad, primaryOracleCode(error), error));
        const rest = block.filter((_, i) => i !== index);
        if (rest.length > 0) work.push(rest);
      } else if (block.length === 1) {
        const only = block[0];
        if (only !== undefined) failures.push(failureOf(only, primaryOracleCode(error), error));
      } else {
        const middle = Math.ceil(block.length / 2);
        work.push(block.slice(middle), block.slice(0, middle)); // first half runs first
      }
      continue;
    }
    for (const batchError of batchErrors) {
      const row = block[batchError.offset];
      if (row === undefined) throw new Error(`merge: batch error offset ${batchError.offset} outside the ${block.length} rows bound`);
      const code = oracleCodeFromMessage(batchError.message);
      if (classifyOracleCode(code) === 'fatal') {
        throw new OracleChunkError(code, `merge into orders: ${code} reported for a row; the chunk is rolled back`);
      }
      failures.push(failureOf(row, code, batchError.message));
    }
  }
  return failures;
}
