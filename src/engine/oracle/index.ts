import { UserError } from '../../errors.js';
import { assembleEngine } from '../assemble.js';
import type { Engine } from '../contract.js';
import { runMigrations } from '../migrations.js';
import { Binds } from './binds.js';
import { oracleChunkTx } from './chunk.js';
import { processInDatabaseEnabled } from './chunk-in-database.js';
import { oracleFileClaims } from './file-claims.js';
import { checkDatabaseCharset } from './charset.js';
import type { OracleDriverOptions } from './connect-options.js';
import { onOracleConnection, oracleDriver } from './driver.js';
import { oracleJournalTx, oracleRunJournal } from './journal.js';
import type { LockBudget } from './lock-budget.js';
import { oracleMigrationHooks } from './migrations.js';
import { oracleOperatorTx } from './operator.js';
import type { OracleUrlOptions } from '../db-url.js';
import {
  loadOracledb,
  withDestroy,
  type OraConnection,
  type OraConnectionAttributes,
  type OraConnector,
  type OraConstants,
} from './oracledb-types.js';
import { type OracleKit, queryOptions } from './rows.js';
import { oracleReports } from './reports.js';
import { oracleStagingTx } from './staging.js';
import { oracleHoldSetsTx } from './hold-sets.js';
import { gatherStageStatistics } from './statistics.js';
import { DirectInsertPolicy, stageDirectEnabled } from './stage-direct.js';
import { detectVarcharLimit } from './string-size.js';
import { oracleWorkspaces } from './workspaces.js';
import { WorkspaceScope, scopedConnector } from './workspace-scope.js';

/**
 * The Oracle engine (node-oracledb 26, thin mode): same behaviour as the PostgreSQL engine,
 * behind the same contract; the SQL is in sql/oracle/queries/.
 */

export { ORACLE_MAX_CHUNK } from './binds.js';
export { OracleChunkError } from './merge.js';

export interface OracleEngineOptions {
  user: string;
  password: string | undefined;
  connectString: string;
  /** A wallet, a tnsnames.ora folder: see connect-options.ts. */
  driverOptions?: OracleDriverOptions | undefined;
  /** Connections the caller uses at once: that many are kept open between uses. */
  poolMax: number;
  /** The URL's Oracle parameters (src/engine/db-url.ts); defaults below. */
  oracle?: OracleUrlOptions | undefined;
}

/** A round trip may take 30 minutes: longer than the MERGE of the largest chunk, or a wait for
 * another session's chunk (lockErrorRows), is expected to take. */
export const DEFAULT_CALL_TIMEOUT_SECONDS = 1_800;
/** TCP keepalive after 2 idle minutes. */
export const DEFAULT_EXPIRE_TIME_MINUTES = 2;

/** The engine's settings: its connections (the URL's parameters over the defaults) and how it stages. */
export interface OracleEngineSettings {
  readonly callTimeoutMs: number;
  readonly maxIdle: number;
  /** Connections open at once, at most (driver.ts); default: maxIdle + OPEN_OVER_IDLE. */
  readonly maxOpen: number;
  /**
   * Staging tries the direct insert into order_stage first (stage-direct.ts); default: unless
   * ORDER_LOADER_STAGE_DIRECT=off, read when the engine is made.
   */
  readonly stageDirect: boolean;
  /**
   * A chunk's plainly valid rows are merged and written DONE by one PL/SQL block after the claim
   * (chunk-in-database.ts); default: unless ORDER_LOADER_PROCESS_IN_DATABASE=off, read when the
   * engine is made.
   */
  readonly processInDatabase: boolean;
}

/** Connections that may be open beyond those kept idle: short-lived work (a report, the run
 * journal, the progress count) beside the callers' own, before a caller has to wait. */
export const OPEN_OVER_IDLE = 2;

/** The engine over any connector (tests inject a recording one); no check of the database. */
export function createOracleEngineWith(connector: OraConnector, constants: OraConstants, settings?: Partial<OracleEngineSettings>): Engine {
  return assemble(connector, constants, settings).engine;
}

/**
 * The engine over a connector, opened: one connection is made now; on it the database character
 * set is checked (charset.ts; unless `charsetCheck` is false) and the longest VARCHAR2 bind
 * read (string-size.ts: 32767 bytes under MAX_STRING_SIZE = EXTENDED, else 4000). That
 * connection is kept for the first use. On a refusal every connection is closed.
 */
export async function openOracleEngine(
  connector: OraConnector,
  constants: OraConstants,
  settings?: Partial<OracleEngineSettings> & { charsetCheck?: boolean | undefined },
): Promise<Engine> {
  const { engine, driver, kit } = assemble(connector, constants, settings);
  try {
    await onOracleConnection(driver, async (connection) => {
      if (settings?.charsetCheck !== false) await checkDatabaseCharset(connection, kit);
      kit.binds.varcharLimit = await detectVarcharLimit(connection, kit);
    });
  } catch (error) {
    await engine.close().catch(() => undefined);
    throw error;
  }
  return engine;
}

function assemble(connector: OraConnector, constants: OraConstants, settings?: Partial<OracleEngineSettings>) {
  // every statement goes through the bench workspace scope (the loader's tables when none)
  const scope = new WorkspaceScope();
  const maxIdle = settings?.maxIdle ?? 3;
  const lockWaits = new WeakMap<OraConnection, LockBudget | undefined>();
  const scoped = scopedConnector(connector, scope);
  const callTimeoutMs = settings?.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_SECONDS * 1000;
  const driver = oracleDriver(scoped, {
    callTimeoutMs,
    maxIdle,
    maxOpen: settings?.maxOpen ?? maxIdle + OPEN_OVER_IDLE,
    lockWaits,
  });
  const kit: OracleKit = { binds: new Binds(constants), queryOptions: queryOptions(constants), lockWaits };
  const direct = new DirectInsertPolicy(settings?.stageDirect ?? stageDirectEnabled());
  const inDatabase = settings?.processInDatabase ?? processInDatabaseEnabled();
  const engine = assembleEngine({
    driver,
    transactionSlices: (connection) => ({
      ...oracleStagingTx(connection, kit, direct),
      ...oracleHoldSetsTx(connection, kit),
      ...oracleChunkTx(connection, kit, inDatabase),
      ...oracleOperatorTx(connection, kit),
      ...oracleJournalTx(connection, kit),
    }),
    journal: oracleRunJournal(driver, kit),
    reports: oracleReports(driver, kit),
    workspaces: oracleWorkspaces(driver, kit, scope),
    claims: oracleFileClaims(scoped, kit, callTimeoutMs),
    migrate: () => runMigrations(oracleMigrationHooks(driver, kit, constants)),
  });
  engine.refreshStageStatistics = gatherStageStatistics(driver, kit, scope);
  return { engine, driver, kit };
}

/**
 * Open the Oracle engine: node-oracledb thin mode (initOracleClient is never called), standalone
 * connections kept by the driver (driver.ts says why not a pool), at most `poolMax` of them idle
 * (at least 2: migrate() holds its lock on a second connection) and OPEN_OVER_IDLE more open at
 * once. The first connection is made
 * now, to check the database character set (openOracleEngine).
 */
export async function createOracleEngine(options: OracleEngineOptions): Promise<Engine> {
  if (options.password === undefined || options.password === '') {
    throw new UserError('oracle: no password given: set ORDER_LOADER_DB_PASSWORD (or oracle://user:password@host/service)');
  }
  const oracledb = await loadOracledb();
  const expireTime = options.oracle?.expireTimeMinutes ?? DEFAULT_EXPIRE_TIME_MINUTES;
  const attributes: OraConnectionAttributes = {
    ...options.driverOptions,
    user: options.user,
    password: options.password,
    connectString: options.connectString,
    stmtCacheSize: 40,
    ...(expireTime > 0 ? { expireTime } : {}),
  };
  return openOracleEngine({ getConnection: async () => withDestroy(await oracledb.getConnection(attributes)) }, oracledb, {
    callTimeoutMs: (options.oracle?.callTimeoutSeconds ?? DEFAULT_CALL_TIMEOUT_SECONDS) * 1000,
    maxIdle: Math.max(2, Math.floor(options.poolMax)),
    charsetCheck: options.oracle?.charsetCheck,
  });
}
