import type { StageInput } from '../types.js';
import type { BindRun } from './binds.js';
import { classifyOracleCodes, oracleCodesFromMessage } from './classify.js';
import { type LockBudget, withinLockBudget } from './lock-budget.js';
import { OracleChunkError } from './merge.js';
import type { OraBindDef, OraBinds, OraConnection } from './oracledb-types.js';
import { oracleQuery } from './sql-text.js';

/**
 * Staging's first write on Oracle: the batch straight into order_stage as one array
 * INSERT (stage_batch_direct.sql, executeMany with batchErrors), before the batch-table way of
 * staging.ts. Oracle's counterpart of PostgreSQL's COPY into order_stage
 * (src/engine/postgres/staging.ts), with one difference that shapes it: a COPY is all or
 * nothing, an array INSERT with batchErrors is per line. Thin mode sends every iteration in one
 * round trip with TNS_EXEC_OPTION_BATCH_ERRORS and the server goes on after a refused line
 * (lib/thin/protocol/messages/execute.js; base.js reads the errors, each an offset and a message;
 * withData.js clears errorOccurred when there are batch errors, so the call does not throw).
 * So only the refused lines go on, not the batch.
 */

/** `ORDER_LOADER_STAGE_DIRECT=off`: every batch through the batch table alone (the path before direct staging). */
export function stageDirectEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.ORDER_LOADER_STAGE_DIRECT !== 'off';
}

/**
 * A batch is tried as a direct insert while, in the batch staged last, at most this share of
 * the lines had keys order_stage already held. Not measured (no Oracle server here), estimated
 * from what each way does per line: a new key sent directly saves the batch table's work for it
 * (a row into order_stage_batch and its primary key, three index probes by source_key, the per-key
 * INSERT ... SELECT); a known key sent directly costs a refused insert (its table row and the
 * index entries written before uq_order_stage_source refuses it, then undone) on top of that
 * same work. Both are about one row insert, so the break-even is near one half.
 */
export const DIRECT_MAX_EXISTING_SHARE = 0.5;

/**
 * When a batch is first tried as a direct insert. Unlike PostgreSQL's StageCopyPolicy (a COPY
 * that meets one known key gives way as a whole, so after a fallback COPY is skipped for 1, 2,
 * 4 … 64 batches), every batch tells how many of its keys were known, whichever way it went
 * (the direct insert's ORA-00001 lines, or the batch table's counts): the next batch goes the
 * way that suits the last one. A first load goes direct throughout; a reload of a known file
 * pays the refused inserts of its first batch only; a file that turns from known keys to new
 * ones goes direct from the batch after the turn. One policy per engine, shared by its
 * connections (files are staged one batch at a time).
 */
export class DirectInsertPolicy {
  private existingShare = 0;
  constructor(readonly enabled: boolean) {}

  /** Whether this batch goes as a direct insert first. */
  tryDirect(): boolean {
    return this.enabled && this.existingShare <= DIRECT_MAX_EXISTING_SHARE;
  }

  /** What the batch found: `existing` of its `lines` had a key order_stage held (refused lines left out). */
  observe(existing: number, lines: number): void {
    if (lines > 0) this.existingShare = existing / lines;
  }
}

export interface DirectOutcome {
  /** Lines inserted: each iteration inserts its one row or is a batch error. */
  inserted: number;
  /** Lines refused with ORA-00001: a key order_stage already held. */
  existing: number;
  /** Indexes (into the rows given, in line order) of every line not inserted: for the batch table. */
  rest: number[];
}

/**
 * What a batch error of the direct insert means for its line: the key is already staged
 * (ORA-00001 first, on uq_order_stage_source; a concurrent session's uncommitted insert of the
 * key is waited for first, and when that session commits it is ORA-00001 too: the batch table
 * then finds the key committed, locks and updates it), a row-level refusal (the batch table
 * decides: it refuses the line as it always did, or stages it when the key exists), or a
 * fatal or other transient code: the batch fails (rolled back, retried), as in refusalsOf.
 */
function directErrorKind(message: string): 'existing' | 'refused' | { fail: string } {
  const codes = oracleCodesFromMessage(message);
  const kind = classifyOracleCodes(codes);
  if (kind === 'fatal') return { fail: codes.find((c) => classifyOracleCodes([c]) === 'fatal') ?? codes[0] ?? 'ORA-UNKNOWN' };
  if (codes[0] === 'ORA-00001') return 'existing';
  if (kind === 'transient') return { fail: codes[0] ?? 'ORA-UNKNOWN' };
  return 'refused';
}

/**
 * stage_batch_direct.sql for `rows`, one call per run (`runs`: their stage binds with load_id, in
 * the same order, split by attributeRuns in binds.ts at ORACLE_MAX_CHUNK, the most batch errors
 * thin mode can report, NJS-141, and where the attributes' bind type changes), `defsOf` giving a
 * run's bind definitions. `inserted` is counted from the batch errors, not from rowsAffected: each
 * iteration of an INSERT ... VALUES inserts exactly one row or is a batch error (rowsAffected says
 * the same, the recording tests check that the model agrees).
 */
export async function insertDirect(
  connection: OraConnection,
  rows: readonly StageInput[],
  runs: readonly BindRun[],
  defsOf: (part: readonly OraBinds[]) => Record<string, OraBindDef>,
  budget?: LockBudget,
): Promise<DirectOutcome> {
  const outcome: DirectOutcome = { inserted: 0, existing: 0, rest: [] };
  for (const { start, part } of runs) {
    // a key another session inserted and has not committed is waited for: within the batch's bound
    const result = await withinLockBudget(connection, budget, () =>
      connection.executeMany(oracleQuery('stage_batch_direct'), part, {
        autoCommit: false,
        batchErrors: true,
        bindDefs: defsOf(part),
      }),
    );
    const errors = result.batchErrors ?? [];
    const failed = new Set<number>();
    for (const error of errors) {
      const index = start + error.offset;
      const row = rows[index];
      if (row === undefined || error.offset >= part.length)
        throw new Error(`stage batch (direct): batch error offset ${error.offset} outside the ${part.length} rows bound`);
      const kind = directErrorKind(error.message);
      if (typeof kind === 'object') {
        const codes = oracleCodesFromMessage(error.message);
        throw new OracleChunkError(
          kind.fail,
          `stage batch (direct): ${codes.join(' ')} reported for line ${row.lineNo}; the batch is rolled back`,
        );
      }
      if (kind === 'existing') outcome.existing++;
      failed.add(index);
    }
    outcome.inserted += part.length - failed.size;
    for (const index of [...failed].sort((a, b) => a - b)) outcome.rest.push(index);
  }
  return outcome;
}
