import type { StagingTx } from '../contract.js';
import type { ErrorLogInput, StageBatchCounts, StageBatchResult, StageInput, StageRefusal } from '../types.js';
import { classifySqlstate, isRowLevelSqlstate, sqlstateOf } from './classify.js';
import { sqlQuery } from './rows.js';
import type { PgSession } from './session.js';

/** The savepoint a staging batch runs under, so that a row-level refusal can be isolated. */
const SAVEPOINT = 'order_loader_stage';

/**
 * A row's own refusal: a row-level SQLSTATE (the list the chunk MERGE isolates,
 * ROW_LEVEL_SQLSTATES) that is not transient. A transient one (a deadlock, a lock timeout, a
 * concurrent insert of the same key) or any other error fails the whole batch: retried or fatal.
 */
function rowRefusalCode(error: unknown): string | undefined {
  const code = sqlstateOf(error);
  if (code === undefined || !/^[0-9A-Z]{5}$/.test(code)) return undefined;
  return isRowLevelSqlstate(code) && classifySqlstate(code) === 'rejected' ? code : undefined;
}

/** The first line of the server's message with quoted text blanked (PostgreSQL quotes the
 * offending input in some messages, 22P02, and an error-log message never carries a value),
 * then the constraint's name when the server gives it (a name, not a value). */
function refusalMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = (message.split('\n')[0] ?? '').replace(/"[^"]*"/g, '"…"').replace(/'[^']*'/g, "'…'");
  const constraint = (error as { constraint?: unknown }).constraint;
  return typeof constraint === 'string' && constraint !== '' ? `${line} (constraint ${constraint})` : line;
}

function addCounts(into: StageBatchCounts, more: StageBatchCounts): void {
  into.inserted += more.inserted;
  into.updated += more.updated;
  into.unchanged += more.unchanged;
  into.unchangedError += more.unchangedError;
  into.repeatedInLoad += more.repeatedInLoad;
}

/**
 * Staging on one connection: each batch is one call of order_loader_stage_batch, column arrays
 * bound, under a savepoint. When the database refuses a row of it (a row-level SQLSTATE, e.g.
 * 22003 numeric overflow, a check constraint), the batch is rolled back to the savepoint and
 * staged again in halves, each under its own savepoint, down to the rows that fail alone: those
 * are returned as refused, the rest is staged (in line order, as one call would have). k bad
 * rows among n cost about k·log2(n) extra calls; a batch without one costs one SAVEPOINT.
 */
export function stagingSlice(session: PgSession): StagingTx {
  async function stageRows(loadId: number, rows: StageInput[]): Promise<StageBatchCounts> {
    const { rows: result } = await session.query<{
      inserted: number;
      updated: number;
      unchanged: number;
      unchanged_error: number;
      repeated_in_load: number;
    }>(sqlQuery('stage_batch'), [
      rows.map((r) => r.sourceKey),
      rows.map((r) => r.customerId),
      rows.map((r) => r.orderDate),
      rows.map((r) => r.amount),
      rows.map((r) => r.currency),
      rows.map((r) => r.lineNo),
      rows.map((r) => r.parseError?.code ?? null),
      rows.map((r) => r.parseError?.message ?? null),
      loadId,
    ]);
    const counts = result[0];
    if (counts === undefined) throw new Error('stage batch returned no counts');
    return {
      inserted: counts.inserted,
      updated: counts.updated,
      unchanged: counts.unchanged,
      unchangedError: counts.unchanged_error,
      repeatedInLoad: counts.repeated_in_load,
    };
  }

  /** Stage `rows` under a savepoint; on a row's refusal roll back to it and split. */
  async function stageIsolating(loadId: number, rows: StageInput[], out: StageBatchResult, release: boolean): Promise<void> {
    await session.exec(`SAVEPOINT ${SAVEPOINT}`);
    let counts: StageBatchCounts;
    try {
      counts = await stageRows(loadId, rows);
    } catch (error) {
      const code = rowRefusalCode(error);
      if (code === undefined) throw error;
      await session.exec(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}; RELEASE SAVEPOINT ${SAVEPOINT}`);
      const only = rows.length === 1 ? rows[0] : undefined;
      if (only !== undefined) {
        out.refused.push({ lineNo: only.lineNo, sourceKey: only.sourceKey, code, message: refusalMessage(error) });
        return;
      }
      const middle = Math.ceil(rows.length / 2);
      await stageIsolating(loadId, rows.slice(0, middle), out, true); // the first half first: line order
      await stageIsolating(loadId, rows.slice(middle), out, true);
      return;
    }
    addCounts(out, counts);
    // the batch's own savepoint ends with the transaction; those of the halves are released
    // at once, so that a long isolation does not pile up subtransactions
    if (release) await session.exec(`RELEASE SAVEPOINT ${SAVEPOINT}`);
  }

  return {
    async stageBatch(loadId: number, rows: StageInput[]): Promise<StageBatchResult> {
      const out: StageBatchResult = { inserted: 0, updated: 0, unchanged: 0, unchangedError: 0, repeatedInLoad: 0, refused: [] };
      await stageIsolating(loadId, rows, out, false);
      out.refused.sort((a: StageRefusal, b: StageRefusal) => a.lineNo - b.lineNo);
      return out;
    },

    async logErrors(rows: ErrorLogInput[]): Promise<void> {
      if (rows.length === 0) return;
      await session.query(sqlQuery('log_errors'), [
        rows.map((r) => r.stageId),
        rows.map((r) => r.sourceKey),
        rows.map((r) => r.loadId),
        rows.map((r) => r.lineNo),
        rows.map((r) => r.batchId),
        rows.map((r) => r.attemptNo),
        rows.map((r) => r.phase),
        rows.map((r) => r.code),
        rows.map((r) => r.message),
        rows.map((r) => r.rawRecord),
      ]);
    },

    async holdRows(loadId: number, sourceKeys: string[]): Promise<void> {
      if (sourceKeys.length === 0) return;
      await session.query(sqlQuery('hold_rows'), [sourceKeys, loadId]);
    },

    async releaseHeld(loadIds: number[]): Promise<number> {
      if (loadIds.length === 0) return 0;
      return (await session.query(sqlQuery('release_held'), [loadIds])).affectedRows;
    },
  };
}
