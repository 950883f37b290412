import type { Driver } from '../contract.js';
import { MAX_BYTES } from './binds.js';
import { onOracleConnection } from './driver.js';
import type { OraConnection } from './oracledb-types.js';
import type { OracleKit } from './rows.js';
import { oracleQuery } from './sql-text.js';
import type { WorkspaceScope } from './workspace-scope.js';

/** The name order_stage has in the dictionary: the loader's, or the bench workspace's in scope. */
export function stageTableName(scope: WorkspaceScope): string {
  return scope.workspace?.names.get('ORDER_STAGE') ?? 'ORDER_STAGE';
}

/**
 * Engine.refreshStageStatistics on Oracle: DBMS_STATS.GATHER_TABLE_STATS of order_stage
 * (queries/gather_stage_stats.sql says why and with which options), on a connection of its own,
 * after a staging phase that staged rows, as the PostgreSQL engines ANALYZE it.
 */
export function gatherStageStatistics(driver: Driver<OraConnection>, { binds }: OracleKit, scope: WorkspaceScope): () => Promise<void> {
  return () =>
    onOracleConnection(driver, async (connection) => {
      await connection.execute(
        oracleQuery('gather_stage_stats'),
        { table_name: binds.str(stageTableName(scope), MAX_BYTES.identifier) },
        { autoCommit: false },
      );
    });
}
