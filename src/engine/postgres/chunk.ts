import type { ChunkTx } from '../contract.js';
import type {
  ChunkFinalization,
  ClaimQuery,
  ClaimedRow,
  InDatabaseChunk,
  InDatabaseChunkQuery,
  MergeOptions,
  RowFailure,
} from '../types.js';
import { classifySqlstate, ROW_LEVEL_SQLSTATES, TRANSIENT_SQLSTATE_LIST } from './classify.js';
import { type ClaimRow, sqlQuery, toClaimed } from './rows.js';
import type { PgSession } from './session.js';

/** A row of process_chunk.sql: a count ('claimed', 'merged', 'rejected', 'load') or a stage row ('check', 'failed'). */
interface ProcessChunkRow extends ClaimRow {
  kind: 'claimed' | 'merged' | 'rejected' | 'load' | 'check' | 'failed';
  n: number | null;
  failed_sqlstate: string | null;
  failed_message: string | null;
}

function rowFailure(stageId: number, sqlstate: string, message: string): RowFailure {
  return { stageId, code: sqlstate, message, kind: classifySqlstate(sqlstate) === 'transient' ? 'transient' : 'rejected' };
}

/** The rows of process_chunk.sql as one chunk (null: nothing was claimed). */
function toInDatabaseChunk(rows: readonly ProcessChunkRow[]): InDatabaseChunk | null {
  const chunk: InDatabaseChunk = { claimed: 0, lastStageId: 0, merged: 0, rejected: 0, loads: [], toValidate: [], refused: [] };
  for (const r of rows) {
    if (r.kind === 'claimed') {
      chunk.claimed = r.n ?? 0;
      chunk.lastStageId = r.stage_id;
    } else if (r.kind === 'merged') chunk.merged = r.n ?? 0;
    else if (r.kind === 'rejected') chunk.rejected = r.n ?? 0;
    else if (r.kind === 'load') chunk.loads.push({ loadId: r.load_id, rows: r.n ?? 0 });
    else if (r.kind === 'check') chunk.toValidate.push(toClaimed(r));
    else chunk.refused.push({ row: toClaimed(r), failure: rowFailure(r.stage_id, r.failed_sqlstate ?? '', r.failed_message ?? '') });
  }
  return chunk.claimed === 0 ? null : chunk;
}

/**
 * One chunk on one connection: claim, merge, finalize (the functions of
 * sql/postgres/migrations/002-004), and the whole chunk in one call (012) unless `inDatabase` is
 * false (ORDER_LOADER_PROCESS_IN_DATABASE=off, src/engine/postgres/index.ts).
 */
export function chunkSlice(session: PgSession, inDatabase = true): ChunkTx {
  const slice: ChunkTx = {
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
      return failed.map((f) => rowFailure(f.failed_stage_id, f.failed_sqlstate, f.failed_message));
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
  if (inDatabase) {
    slice.processInDatabase = async (query: InDatabaseChunkQuery): Promise<InDatabaseChunk | null> => {
      const { rows } = await session.query<ProcessChunkRow>(sqlQuery('process_chunk'), [
        query.afterStageId,
        query.limit,
        query.loadIds ?? null,
        Math.max(1, Math.floor(query.isolationBlock)),
        ROW_LEVEL_SQLSTATES,
        query.batchId,
        TRANSIENT_SQLSTATE_LIST,
      ]);
      return toInDatabaseChunk(rows);
    };
  }
  return slice;
}
