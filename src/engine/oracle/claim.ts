import type { ClaimQuery } from '../types.js';
import { MAX_BYTES, ORACLE_MAX_CHUNK } from './binds.js';
import type { OraConnection } from './oracledb-types.js';
import { int, type OracleKit, type Row } from './rows.js';
import { oracleQuery } from './sql-text.js';

/**
 * queries/claim.sql (which says why the row count is not in the SQL) executed with
 * resultSet: true, read with exactly one getRows(n), then closed: prefetchRows and
 * fetchArraySize are both n, so the driver asks the server for n rows at most (thin mode
 * fetches only the difference if the prefetch returned fewer, lib/thin/resultSet.js).
 * Chosen over a PL/SQL block with BULK COLLECT ... LIMIT n because it needs no PL/SQL
 * collection out-binds, keeps the SQL a plain query a DBA can run, and costs one round trip
 * (the rows come back with the execute).
 */
export async function claimRows(connection: OraConnection, { binds, queryOptions }: OracleKit, query: ClaimQuery): Promise<Row[]> {
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
  try {
    return (await resultSet.getRows(limit)) as Row[];
  } finally {
    await resultSet.close();
  }
}
