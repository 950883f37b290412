import type { StagingTx } from '../contract.js';
import type { ErrorLogInput, StageBatchCounts, StageInput } from '../types.js';
import { checkValueSizes, LIMITS, MAX_BYTES, ORACLE_MAX_CHUNK, slices, textRuns } from './binds.js';
import type { OraBindDef, OraBinds, OraConnection } from './oracledb-types.js';
import { int, type OracleKit, type Row } from './rows.js';
import { cutChars, nonEmpty, oracleQuery } from './sql-text.js';

/**
 * Staging on one connection: a batch goes into the global temporary table order_stage_batch
 * (executeMany of queries/stage_batch_insert.sql after stage_batch_clear.sql), is counted
 * (stage_batch_counts.sql) and merged into order_stage (stage_batch_merge.sql).
 */
export function oracleStagingTx(connection: OraConnection, { binds, queryOptions }: OracleKit): StagingTx {
  return {
    async stageBatch(loadId: number, rows: StageInput[]): Promise<StageBatchCounts> {
      if (rows.length === 0) return { inserted: 0, updated: 0, unchanged: 0, unchangedError: 0, repeatedInLoad: 0 };
      const values: OraBinds[] = rows.map((r) => {
        const bind = {
          source_key: r.sourceKey,
          customer_id: r.customerId,
          order_date: r.orderDate,
          amount: r.amount,
          currency: r.currency,
          line_no: r.lineNo,
          parse_code: r.parseError === undefined ? null : cutChars(nonEmpty(r.parseError.code, 'PARSE'), LIMITS.code),
          parse_message: r.parseError === undefined ? null : cutChars(nonEmpty(r.parseError.message, '(no message)'), LIMITS.message),
        };
        // A failed batch is then the same outcome as on PostgreSQL (varchar(100) / cast errors).
        checkValueSizes('stage batch', `line ${r.lineNo}`, r.sourceKey, r);
        return bind;
      });
      const bindDefs: Record<string, OraBindDef> = {
        source_key: binds.varchar(MAX_BYTES.sourceKey),
        customer_id: binds.varchar(MAX_BYTES.numberText),
        order_date: binds.varchar(MAX_BYTES.dateText),
        amount: binds.varchar(MAX_BYTES.numberText),
        currency: binds.varchar(MAX_BYTES.currency),
        line_no: binds.number(),
        parse_code: binds.varchar(MAX_BYTES.code),
        parse_message: binds.varchar(MAX_BYTES.message),
      };
      await connection.execute(oracleQuery('stage_batch_clear'), {}, { autoCommit: false });
      for (const part of slices(values, ORACLE_MAX_CHUNK)) {
        await connection.executeMany(oracleQuery('stage_batch_insert'), part, { autoCommit: false, bindDefs });
      }
      const counted = await connection.execute(oracleQuery('stage_batch_counts'), { load_id: binds.num(loadId) }, queryOptions);
      const row = (counted.rows?.[0] ?? undefined) as Row | undefined;
      if (row === undefined) throw new Error('stage batch: the count query returned no row');
      await connection.execute(oracleQuery('stage_batch_merge'), { load_id: binds.num(loadId) }, { autoCommit: false });
      return {
        inserted: int(row.INSERTED, 'inserted'),
        updated: int(row.UPDATED, 'updated'),
        unchanged: int(row.UNCHANGED, 'unchanged'),
        unchangedError: int(row.UNCHANGED_ERROR, 'unchanged_error'),
        repeatedInLoad: int(row.REPEATED_IN_LOAD, 'repeated_in_load'),
      };
    },

    async logErrors(rows: ErrorLogInput[]): Promise<void> {
      if (rows.length === 0) return;
      const values = rows.map((r) => ({
        stage_id: r.stageId,
        // The error log's source_key is VARCHAR2(100 CHAR); a longer key (the reason the line
        // was rejected) is cut here, its full text stays in raw_record.
        source_key: r.sourceKey === null ? null : cutChars(r.sourceKey, LIMITS.sourceKey),
        // the stage row is looked up by the full key only (a cut key could match another row)
        lookup_key: r.sourceKey !== null && Array.from(r.sourceKey).length <= LIMITS.sourceKey ? r.sourceKey : null,
        load_id: r.loadId,
        line_no: r.lineNo,
        batch_id: r.batchId === null ? null : cutChars(r.batchId, LIMITS.batchId),
        attempt_no: r.attemptNo,
        phase: r.phase,
        error_code: cutChars(nonEmpty(r.code, 'UNKNOWN'), LIMITS.code),
        error_message: cutChars(nonEmpty(r.message, '(no message)'), LIMITS.message),
        raw_record: r.rawRecord,
      }));
      for (const part of slices(values, ORACLE_MAX_CHUNK).flatMap((slice) => textRuns(slice, (v) => [v.raw_record]))) {
        await connection.executeMany(oracleQuery('log_errors'), part, {
          autoCommit: false,
          bindDefs: {
            ...binds.errorLogDefs(),
            lookup_key: binds.varchar(MAX_BYTES.sourceKey),
            raw_record: binds.longText(part.map((b) => b.raw_record)),
          },
        });
      }
    },
  };
}
