import { UserError } from '../../errors.js';
import { assembleEngine } from '../assemble.js';
import type { Engine } from '../contract.js';
import { runMigrations } from '../migrations.js';
import { Binds } from './binds.js';
import { oracleChunkTx } from './chunk.js';
import { oracleDriver } from './driver.js';
import { oracleJournalTx, oracleRunJournal } from './journal.js';
import { oracleMigrationHooks } from './migrations.js';
import { oracleOperatorTx } from './operator.js';
import { loadOracledb, type OraConstants, type OraPool } from './oracledb-types.js';
import { type OracleKit, queryOptions } from './rows.js';
import { oracleReports } from './reports.js';
import { oracleStagingTx } from './staging.js';
import { oracleWorkspaces } from './workspaces.js';

/**
 * The Oracle engine (node-oracledb 6, thin mode): same behaviour as the PostgreSQL engine,
 * behind the same contract; the SQL is in sql/oracle/queries/.
 */

export { ORACLE_MAX_CHUNK } from './binds.js';
export { OracleChunkError } from './merge.js';

export interface OracleEngineOptions {
  user: string;
  password: string | undefined;
  connectString: string;
  poolMax: number;
}

/** The engine over any pool-like object (tests inject a recording pool). */
export function createOracleEngineWithPool(pool: OraPool, constants: OraConstants): Engine {
  const driver = oracleDriver(pool);
  const kit: OracleKit = { binds: new Binds(constants), queryOptions: queryOptions(constants) };
  return assembleEngine({
    driver,
    transactionSlices: (connection) => ({
      ...oracleStagingTx(connection, kit),
      ...oracleChunkTx(connection, kit),
      ...oracleOperatorTx(connection, kit),
      ...oracleJournalTx(connection, kit),
    }),
    journal: oracleRunJournal(driver, kit),
    reports: oracleReports(driver, kit),
    workspaces: oracleWorkspaces,
    migrate: () => runMigrations(oracleMigrationHooks(driver, constants)),
  });
}

/**
 * Open the Oracle engine: node-oracledb thin mode (initOracleClient is never called), one
 * pool of at most `poolMax` connections (at least 2: migrate() holds its lock on a second
 * connection). No connection is made until the first use.
 */
export async function createOracleEngine(options: OracleEngineOptions): Promise<Engine> {
  if (options.password === undefined || options.password === '') {
    throw new UserError('oracle: no password given: set ORDER_LOADER_DB_PASSWORD (or oracle://user:password@host/service)');
  }
  const oracledb = await loadOracledb();
  const pool = await oracledb.createPool({
    user: options.user,
    password: options.password,
    connectString: options.connectString,
    poolMin: 0,
    poolMax: Math.max(2, Math.floor(options.poolMax)),
    poolIncrement: 1,
    poolTimeout: 60,
    queueTimeout: 60_000,
    stmtCacheSize: 40,
  });
  return createOracleEngineWithPool(pool, oracledb);
}
