import type { ClaimedRow, InDatabaseChunk, InDatabaseChunkQuery, RowFailure } from '../types.js';
import { type Binds, LIMITS, MAX_BYTES, ORACLE_MAX_CHUNK, slices } from './binds.js';
import { claimRows } from './claim.js';
import { classifyOracleCode, classifyOracleCodes, oracleCodesFromMessage } from './classify.js';
import { type LockBudget, withinLockBudget } from './lock-budget.js';
import { failureOf, lockPart, OracleChunkError } from './merge.js';
import type { OraConnection } from './oracledb-types.js';
import { claimedRow, type OracleKit } from './rows.js';
import { cutChars, oracleQuery } from './sql-text.js';

/**
 * The chunk processed in the database on Oracle (ChunkTx.processInDatabase): after its claim, the
 * rows whose values are plainly valid (claim.sql's `plain`) are locked, merged and written DONE by
 * one array execution of a PL/SQL block (process_rows.sql), one iteration per row, each isolated
 * by a savepoint; the client judges the rest as before (validateOrder, the array MERGE) and writes
 * the failures. A clean chunk is three round trips (claim, block, COMMIT) where the client path
 * sends five (claim, lock step, MERGE, DONE, COMMIT). No stored procedure: the loader's user has
 * no CREATE PROCEDURE (docs/oracle.md, "Privileges"), so the block is anonymous, sent each chunk
 * (thin mode caches the statement per connection).
 */

/** `ORDER_LOADER_PROCESS_IN_DATABASE=off`: every chunk claimed to the client (the engine's first way). */
export function processInDatabaseEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.ORDER_LOADER_PROCESS_IN_DATABASE !== 'off';
}

let composed: string | undefined;

/** process_rows.sql with merge_orders.sql and finalize_done.sql in their places (the file says why). */
export function processRowsSql(): string {
  if (composed === undefined) {
    const statement = (name: string) => `${oracleQuery(name).trim()};`;
    const template = oracleQuery('process_rows');
    for (const marker of ['merge_orders_here;', 'finalize_done_here;'])
      if (template.split(marker).length !== 2) throw new Error(`process_rows.sql: "${marker}" is not there once`);
    composed = template
      .replace('merge_orders_here;', () => statement('merge_orders'))
      .replace('finalize_done_here;', () => statement('finalize_done'));
  }
  return composed;
}

interface RowResult {
  row: ClaimedRow;
  code: string;
  message: string;
}

/** process_rows.sql over `rows`: the rows whose :failure came back; a fatal code fails the chunk. */
async function processRows(
  connection: OraConnection,
  binds: Binds,
  rows: readonly ClaimedRow[],
  batchId: string,
  budget: LockBudget | undefined,
  lockFirst: boolean,
): Promise<RowResult[]> {
  const failed: RowResult[] = [];
  for (const part of slices(rows, ORACLE_MAX_CHUNK)) {
    // the block's MERGE of a new key another session inserted and has not committed waits for
    // it (its NOWAIT lock finds no row to lock): bounded by what is left of the chunk's wait
    const result = await withinLockBudget(connection, budget, () =>
      connection.executeMany(
        processRowsSql(),
        part.map((r) => ({ stage_id: r.stageId, batch_id: batchId, lock_first: lockFirst ? 1 : 0 })),
        {
          autoCommit: false,
          bindDefs: {
            stage_id: binds.number(),
            batch_id: binds.varchar(MAX_BYTES.batchId),
            lock_first: binds.number(),
            failure: binds.outVarchar(MAX_BYTES.message),
          },
        },
      ),
    );
    const outs = result.outBinds;
    if (!Array.isArray(outs) || outs.length !== part.length)
      throw new Error(`process rows: ${Array.isArray(outs) ? outs.length : 'no'} out binds for the ${part.length} rows bound`);
    part.forEach((row, i) => {
      const failure = (outs[i] as { failure?: unknown } | undefined)?.failure;
      if (failure === null || failure === undefined) return;
      if (typeof failure !== 'string') throw new Error('process rows: an out bind :failure that is not text');
      const codes = oracleCodesFromMessage(failure);
      if (classifyOracleCodes(codes) === 'fatal') {
        const fatal = codes.find((c) => classifyOracleCode(c) === 'fatal') ?? codes[0] ?? 'ORA-UNKNOWN';
        throw new OracleChunkError(fatal, `process rows: ${codes.join(' ')} reported for a row; the chunk is rolled back`);
      }
      failed.push({ row, code: codes[0] ?? 'ORA-UNKNOWN', message: failure });
    });
  }
  return failed;
}

/**
 * The rows process_rows.sql found held (ORA-00054 from its NOWAIT lock), each waited for within
 * what is left of the chunk's bound (merge_lock.sql with WAIT k, as lockTargets does), then sent
 * again without the lock step; a row still held, or once less than a second is left, fails as
 * transient (RETRY_WAIT).
 */
async function waitForHeld(
  connection: OraConnection,
  binds: Binds,
  failed: readonly RowResult[],
  batchId: string,
  budget: LockBudget,
): Promise<RowResult[]> {
  const out: RowResult[] = [];
  for (const f of failed) {
    const left = budget.secondsLeft();
    if (f.code !== 'ORA-00054' || left < 1) {
      out.push(f);
      continue;
    }
    const still = await lockPart(connection, binds, [f.row], left);
    if (still.length > 0) out.push(...still);
    else out.push(...(await processRows(connection, binds, [f.row], batchId, budget, false)));
  }
  return out;
}

/** ChunkTx.processInDatabase on Oracle (see the file comment); null when nothing was claimable. */
export async function processChunkInDatabase(
  connection: OraConnection,
  kit: OracleKit,
  query: InDatabaseChunkQuery,
): Promise<InDatabaseChunk | null> {
  const claimed = await claimRows(connection, kit, query);
  const last = claimed.at(-1);
  if (last === undefined) return null;
  const plain: ClaimedRow[] = [];
  const toValidate: ClaimedRow[] = [];
  const loads = new Map<number | null, number>();
  for (const raw of claimed) {
    const row = claimedRow(raw);
    (String(raw.PLAIN) === '1' ? plain : toValidate).push(row);
    loads.set(row.loadId, (loads.get(row.loadId) ?? 0) + 1);
  }
  const batchId = cutChars(query.batchId, LIMITS.batchId);
  const budget = kit.lockWaits?.get(connection);
  let failed = plain.length > 0 ? await processRows(connection, kit.binds, plain, batchId, budget, budget !== undefined) : [];
  if (budget !== undefined) failed = await waitForHeld(connection, kit.binds, failed, batchId, budget);
  const refused = failed.map((f): { row: ClaimedRow; failure: RowFailure } => {
    const kind = classifyOracleCodes(oracleCodesFromMessage(f.message));
    return { row: f.row, failure: failureOf(f.row, f.code, kind === 'transient' ? 'transient' : 'rejected', f.message) };
  });
  return {
    claimed: claimed.length,
    lastStageId: claimedRow(last).stageId,
    merged: plain.length,
    rejected: 0,
    loads: [...loads].map(([loadId, rows]) => ({ loadId, rows })),
    toValidate,
    refused,
  };
}
