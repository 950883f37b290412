import type { ChunkTx } from '../contract.js';
import type { ChunkFinalization, ClaimQuery, ClaimedRow, MergeOptions, RowFailure } from '../types.js';
import { LIMITS, MAX_BYTES, ORACLE_MAX_CHUNK, slices } from './binds.js';
import { lockAndMerge } from './merge.js';
import type { OraConnection } from './oracledb-types.js';
import { claimRows } from './claim.js';
import { processChunkInDatabase } from './chunk-in-database.js';
import { claimedRow, type OracleKit } from './rows.js';
import { cutChars, nonEmpty, oracleQuery, utcTimestampText } from './sql-text.js';

/**
 * One chunk on one connection: claim, merge, finalize, committed together by the caller; with
 * `inDatabase`, also the whole chunk after its claim in one array execution of a PL/SQL block
 * (chunk-in-database.ts).
 */
export function oracleChunkTx(connection: OraConnection, kit: OracleKit, inDatabase = false): ChunkTx {
  const { binds, lockWaits } = kit;
  const slice: ChunkTx = {
    async claimChunk(query: ClaimQuery): Promise<ClaimedRow[]> {
      return (await claimRows(connection, kit, query)).map(claimedRow);
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
  if (inDatabase) slice.processInDatabase = (query) => processChunkInDatabase(connection, kit, query);
  return slice;
}
