import type { ChunkTx } from '../contract.js';
import type { ChunkFinalization, ClaimQuery, ClaimedRow, MergeOptions, RowFailure } from '../types.js';
import { LIMITS, MAX_BYTES, ORACLE_MAX_CHUNK, slices } from './binds.js';
import { lockAndMerge } from './merge.js';
import type { OraConnection } from './oracledb-types.js';
import { claimedRow, int, type OracleKit, type Row } from './rows.js';
import { cutChars, nonEmpty, oracleQuery, utcTimestampText } from './sql-text.js';

/** One chunk on one connection: claim, merge, finalize, committed together by the caller. */
export function oracleChunkTx(connection: OraConnection, { binds, queryOptions, lockWaits }: OracleKit): ChunkTx {
  return {
    /**
     * queries/claim.sql (which says why the row count is not in the SQL) executed with
     * resultSet: true, read with exactly one getRows(n), then closed: prefetchRows and
     * fetchArraySize are both n, so the driver asks the server for n rows at most (thin mode
     * fetches only the difference if the prefetch returned fewer, lib/thin/resultSet.js).
     * Chosen over a PL/SQL block with BULK COLLECT ... LIMIT n because it needs no PL/SQL
     * collection out-binds, keeps the SQL a plain query a DBA can run, and costs one round trip
     * (the rows come back with the execute).
     */
    async claimChunk(query: ClaimQuery): Promise<ClaimedRow[]> {
      const limit = Math.min(Math.floor(query.limit), ORACLE_MAX_CHUNK);
      if (!(limit > 0)) return [];
      let loadIds: string | null = null;
      if (query.loadIds !== undefined) {
        if (query.loadIds.length === 0) return [];
        loadIds = `,${query.loadIds.map((id) => int(id, 'load id')).join(',')},`;
        if (loadIds.length > MAX_BYTES.varchar) throw new Error('claim: too many load ids for one claim');
      }
      const result = await connection.execute(
        oracleQuery('claim'),
        { after_stage_id: binds.num(int(query.afterStageId, 'afterStageId')), load_ids: binds.str(loadIds, MAX_BYTES.varchar) },
        { ...queryOptions, resultSet: true, fetchArraySize: limit, prefetchRows: limit },
      );
      const resultSet = result.resultSet;
      if (resultSet === undefined) throw new Error('claim: the query returned no result set');
      let rows: unknown[];
      try {
        rows = await resultSet.getRows(limit);
      } finally {
        await resultSet.close();
      }
      return (rows as Row[]).map(claimedRow);
    },

    /**
     * The MERGE (merge.ts), after the rows' orders rows are locked with a bounded wait when the
     * transaction has one (--row-lock-wait, noted by the driver's begin): a row another session
     * holds past it goes to RETRY_WAIT and the rest of the chunk merges, as on PostgreSQL.
     */
    mergeOrders(rows: ClaimedRow[], _options: MergeOptions): Promise<RowFailure[]> {
      return lockAndMerge(connection, binds, rows, lockWaits?.get(connection));
    },

    async finalizeChunk(chunk: ChunkFinalization): Promise<void> {
      const batchId = cutChars(chunk.batchId, LIMITS.batchId);
      for (const part of slices(chunk.done, ORACLE_MAX_CHUNK)) {
        await connection.executeMany(
          oracleQuery('finalize_done'),
          part.map((stageId) => ({ stage_id: stageId, batch_id: batchId })),
          { autoCommit: false, bindDefs: { stage_id: binds.number(), batch_id: binds.varchar(MAX_BYTES.batchId) } },
        );
      }
      const failed = chunk.failed.map((r) => ({
        stage_id: r.stageId,
        source_key: cutChars(r.sourceKey, LIMITS.sourceKey),
        status: r.status,
        attempt_no: r.attemptNo,
        transient_failures: r.transientFailures,
        batch_id: batchId,
        load_id: r.loadId,
        line_no: r.lineNo,
        phase: r.error?.phase ?? 'MERGE',
        error_code: cutChars(nonEmpty(r.error?.code, 'UNKNOWN'), LIMITS.code),
        error_message: cutChars(nonEmpty(r.error?.message, '(no message)'), LIMITS.message),
        next_attempt_at: r.nextAttemptAt === undefined ? null : utcTimestampText(r.nextAttemptAt),
      }));
      for (const part of slices(failed, ORACLE_MAX_CHUNK)) {
        await connection.executeMany(
          oracleQuery('finalize_failed'),
          part.map((r) => ({
            stage_id: r.stage_id,
            status: r.status,
            attempt_no: r.attempt_no,
            transient_failures: r.transient_failures,
            batch_id: r.batch_id,
            error_code: r.error_code,
            error_message: r.error_message,
            next_attempt_at: r.next_attempt_at,
          })),
          {
            autoCommit: false,
            bindDefs: {
              stage_id: binds.number(),
              status: binds.varchar(MAX_BYTES.status),
              attempt_no: binds.number(),
              transient_failures: binds.number(),
              batch_id: binds.varchar(MAX_BYTES.batchId),
              error_code: binds.varchar(MAX_BYTES.code),
              error_message: binds.varchar(MAX_BYTES.message),
              next_attempt_at: binds.varchar(MAX_BYTES.timestampText),
            },
          },
        );
        await connection.executeMany(
          oracleQuery('finalize_failed_log'),
          part.map((r) => ({
            stage_id: r.stage_id,
            source_key: r.source_key,
            load_id: r.load_id,
            line_no: r.line_no,
            batch_id: r.batch_id,
            attempt_no: r.attempt_no,
            phase: r.phase,
            error_code: r.error_code,
            error_message: r.error_message,
          })),
          {
            autoCommit: false,
            bindDefs: binds.errorLogDefs(),
          },
        );
      }
    },
  };
}
