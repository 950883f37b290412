import { LIMITS, MAX_BYTES, ORACLE_MAX_CHUNK, slices } from './binds.js';
import type { OraConnection } from './oracledb-types.js';
import { intOrNull, type OracleKit } from './rows.js';
import { oracleQuery } from './sql-text.js';

/**
 * StagingTx.laterLoadKeys on Oracle: the keys among `sourceKeys` that a load begun after `loadId`
 * staged, either by writing the key's stage row or by staging a line identical to it
 * (order_stage_unchanged), not counting the loads of `except`. The same answer as PostgreSQL's
 * later_load_keys.sql, asked one key per iteration of one array execution of
 * queries/later_load_keys.sql (a PL/SQL block with OUT binds, as process_rows.sql: the codebase
 * binds no collection on Oracle), which returns each key's later loads; `except` is applied
 * here, so no list of load ids is bound, whatever its length. A key longer than order_stage's
 * source_key has no row of any load: not asked (stageBatch refuses it with its own message).
 */
export async function oracleLaterLoadKeys(
  connection: OraConnection,
  { binds }: OracleKit,
  loadId: number,
  sourceKeys: readonly string[],
  except: readonly number[],
): Promise<string[]> {
  const notLater = new Set(except);
  // the query returns only greater ids (NULL else): what is left is whether the caller excepts them
  const later = (id: number | null) => id !== null && !notLater.has(id);
  const keys: string[] = [];
  const asked = [...new Set(sourceKeys)].filter((key) => Array.from(key).length <= LIMITS.sourceKey);
  for (const part of slices(asked, ORACLE_MAX_CHUNK)) {
    const result = await connection.executeMany(
      oracleQuery('later_load_keys'),
      part.map((key) => ({ source_key: key, load_id: loadId })),
      {
        autoCommit: false,
        bindDefs: {
          source_key: binds.varchar(MAX_BYTES.sourceKey),
          load_id: binds.number(),
          stage_load: binds.outNumber(),
          unchanged_load: binds.outNumber(),
        },
      },
    );
    const outs = result.outBinds;
    if (!Array.isArray(outs) || outs.length !== part.length)
      throw new Error(`later load keys: ${Array.isArray(outs) ? outs.length : 'no'} out binds for the ${part.length} keys bound`);
    part.forEach((key, i) => {
      const out = (outs[i] ?? {}) as Record<string, unknown>;
      if (later(intOrNull(out.stage_load, 'stage_load')) || later(intOrNull(out.unchanged_load, 'unchanged_load'))) keys.push(key);
    });
  }
  return keys;
}
