import type { Driver } from '../contract.js';
import { inTransaction } from '../transaction.js';
import { ORACLE_MAX_CHUNK } from './binds.js';
import { classifyOracleError } from './classify.js';
import type { OraConnection, OraPool } from './oracledb-types.js';

/**
 * The Oracle driver over a pool (node-oracledb's, or a recording one in tests). Every
 * statement runs with autoCommit: false; Oracle starts a transaction with the first statement,
 * so `begin` has nothing to do and a transaction commits once, at its end.
 */
export function oracleDriver(pool: OraPool): Driver<OraConnection> {
  return {
    kind: 'oracle',
    capabilities: { concurrentConnections: true, maxChunkSize: ORACLE_MAX_CHUNK },
    acquire: () => pool.getConnection(),
    begin: async () => undefined,
    commit: (connection) => connection.commit(),
    rollback: (connection) => connection.rollback(),
    release: (connection, broken) => (broken === undefined ? connection.close() : connection.close({ drop: true })),
    classifyError: (error) => classifyOracleError(error),
    // drainTime 10 s: in-flight transactions may finish; then connections are closed.
    close: () => pool.close(10),
  };
}

/**
 * Work on one connection outside the pipeline's transactions (the run journal, the reports).
 * It is a transaction all the same: its first statement opened one, so it ends with COMMIT
 * (ROLLBACK on throw) before the connection goes back to the pool.
 */
export function onOracleConnection<T>(driver: Driver<OraConnection>, fn: (connection: OraConnection) => Promise<T>): Promise<T> {
  return inTransaction(driver, fn);
}
