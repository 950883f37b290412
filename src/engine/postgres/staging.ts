import type { StagingTx } from '../contract.js';
import type { ErrorLogInput, StageBatchCounts, StageInput } from '../types.js';
import { sqlQuery } from './rows.js';
import type { PgSession } from './session.js';

/** Staging on one connection: each batch is one call of order_loader_stage_batch, column arrays bound. */
export function stagingSlice(session: PgSession): StagingTx {
  return {
    async stageBatch(loadId: number, rows: StageInput[]): Promise<StageBatchCounts> {
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
  };
}
