/**
 * The real-Oracle test target, for the integration suite. Off unless ORDER_LOADER_TEST_ORACLE
 * is set to an Easy Connect URL such as oracle://loader@localhost:1521/FREEPDB1 (the password
 * comes from ORDER_LOADER_TEST_ORACLE_PASSWORD). Only `npm run test:oracle` uses it (see docs/oracle.md,
 * "Running the tests against a real Oracle"); `npm test` never does.
 */
import { type DbTarget, parseDbUrl } from '../../src/engine/db-url.js';
import { loadOracledb, type OraConnection, type OraModule } from '../../src/engine/oracle/oracledb-types.js';
import { oracleCodesOf } from '../../src/engine/oracle/classify.js';

export interface OracleTestTarget {
  /** The --db value (no password in it). */
  db: string;
  /** Environment for a CLI child process: ORDER_LOADER_DB and ORDER_LOADER_DB_PASSWORD. */
  env: Record<string, string>;
  /** Drop the loader's tables (and their identity sequences) in that schema. */
  reset(): Promise<void>;
}

/**
 * Every table the Oracle migrations and migrate() create, children before parents (checked
 * against the migrations by test/oracle/test-target.recording.test.ts): one left out keeps its
 * rows through the drop-and-migrate of a file's first test, whose migration finds it standing.
 */
export const ORACLE_LOADER_TABLES = [
  'load_hold_set',
  'load_place',
  'order_loader_file_claim',
  'load_run_event',
  'load_run',
  'order_stage_audit',
  'order_bulk_error',
  'orders',
  'order_stage_unchanged',
  'order_stage',
  'order_stage_batch',
  'order_loader_migration',
  'order_loader_migration_lock',
] as const;

/** DROP TABLE also drops the table's identity sequence (ISEQ$$_...). */
export function oracleDropTable(table: string): string {
  return `DROP TABLE ${table} CASCADE CONSTRAINTS PURGE`;
}

export type OracleDbTarget = Extract<DbTarget, { kind: 'oracle' }>;

/**
 * `work` on one connection to the test database (through a one-connection pool, closed after),
 * outside the loader: the tests' own statements (assertions, schema reset, the readiness wait).
 */
export async function withOracleConnection<T>(
  target: OracleDbTarget,
  work: (connection: OraConnection, oracledb: OraModule) => Promise<T>,
  queueTimeoutMs = 60_000,
): Promise<T> {
  const pool = await testPool(target, 1, queueTimeoutMs);
  try {
    return await pool.run(work);
  } finally {
    await pool.close();
  }
}

/** A pool of the test database's own connections, kept for one test (db.sql); closed by `close`. */
export interface OracleTestPool {
  run<T>(work: (connection: OraConnection, oracledb: OraModule) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The pool of the database's own statements (db.sql) for one test. */
export async function oracleTestPool(db: string, env: Record<string, string>): Promise<OracleTestPool> {
  const target = parseDbUrl(db, env);
  if (target.kind !== 'oracle') throw new Error('not an Oracle URL');
  return testPool(target, 2, 60_000);
}

async function testPool(target: OracleDbTarget, poolMax: number, queueTimeoutMs: number): Promise<OracleTestPool> {
  const oracledb = await loadOracledb();
  const pool = await oracledb.createPool({
    ...target.driverOptions, // a wallet, a tnsnames.ora folder
    user: target.user,
    password: target.password ?? '',
    connectString: target.connectString,
    poolMin: 0,
    poolMax,
    poolIncrement: 1,
    poolTimeout: 10,
    queueTimeout: queueTimeoutMs,
    // the reset drops and re-creates the tables these statements name
    stmtCacheSize: 0,
  });
  return {
    async run(work) {
      const connection = await pool.getConnection();
      try {
        return await work(connection, oracledb);
      } finally {
        await connection.close();
      }
    },
    close: () => pool.close(0),
  };
}

export async function oracleTestTarget(): Promise<OracleTestTarget | null> {
  const db = process.env.ORDER_LOADER_TEST_ORACLE;
  if (db === undefined || db === '') return null;
  const password = process.env.ORDER_LOADER_TEST_ORACLE_PASSWORD ?? '';
  const target = parseDbUrl(db, { ORDER_LOADER_DB_PASSWORD: password });
  if (target.kind !== 'oracle') throw new Error('ORDER_LOADER_TEST_ORACLE must be an oracle:// URL');
  const effectivePassword = target.password ?? '';

  return {
    db,
    env: { ORDER_LOADER_DB: db, ORDER_LOADER_DB_PASSWORD: effectivePassword },
    async reset() {
      await withOracleConnection(target, async (connection) => {
        for (const table of ORACLE_LOADER_TABLES) {
          try {
            await connection.execute(oracleDropTable(table), {}, { autoCommit: false });
          } catch (error) {
            if (!oracleCodesOf(error).includes('ORA-00942')) throw error; // table or view does not exist
          }
        }
      });
    },
  };
}
