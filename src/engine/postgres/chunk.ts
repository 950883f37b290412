import type { ChunkTx } from '../contract.js';
import type { ChunkFinalization, ClaimQuery, ClaimedRow, MergeOptions, RowFailure } from '../types.js';
import { classifySqlstate, ROW_LEVEL_SQLSTATES } from './classify.js';
import { type ClaimRow, sqlQuery, toClaimed } from './rows.js';
import type { PgSession } from './session.js';

/** One chunk on one connection: claim, merge, finalize (the functions of sql/postgres/migrations/002-004). */
export function chunkSlice(session: PgSession): ChunkTx {
  return {
    async claimChunk(query: ClaimQuery): Promise<ClaimedRow[]> {
      const { rows } = await session.query<ClaimRow>(sqlQuery('claim'), [query.afterStageId, query.limit, query.loadIds ?? null]);
      return rows.map(toClaimed);
    },

    async mergeOrders(rows: ClaimedRow[], options: MergeOptions): Promise<RowFailure[]> {
      if (rows.length === 0) return [];
      const { rows: failed } = await session.query<{
        failed_stage_id: number;
        failed_sqlstate: string;
        failed_message: string;
      }>(sqlQuery('merge_chunk'), [rows.map((r) => r.stageId), Math.max(1, Math.floor(options.isolationBlock)), ROW_LEVEL_SQLSTATES]);
      return failed.map((f) => ({
        stageId: f.failed_stage_id,
        code: f.failed_sqlstate,
        message: f.failed_message,
        kind: classifySqlstate(f.failed_sqlstate) === 'transient' ? 'transient' : 'rejected',
      }));
    },

    async finalizeChunk(chunk: ChunkFinalization): Promise<void> {
      if (chunk.done.length > 0) {
        await session.query(sqlQuery('finalize_done'), [chunk.done, chunk.batchId]);
      }
      if (chunk.failed.length > 0) {
        const f = chunk.failed;
        await session.query(sqlQuery('finalize_failed'), [
          f.map((r) => r.stageId),
          f.map((r) => r.status),
          f.map((r) => r.attemptNo),
          f.map((r) => r.transientFailures),
          f.map((r) => r.error?.phase ?? 'MERGE'),
          f.map((r) => r.error?.code ?? 'UNKNOWN'),
          f.map((r) => r.error?.message ?? ''),
          f.map((r) => r.nextAttemptAt ?? null),
          f.map((r) => r.loadId),
          f.map((r) => r.lineNo),
          chunk.batchId,
        ]);
      }
    },
  };
}
