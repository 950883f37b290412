/**
 * The Oracle target of the integration tests (test/support/databases.ts): one schema, given to
 * one test at a time, migrated and empty when create() returns, as every target's database is
 * (oracle-fresh.ts says how). On only under npm run test:oracle.
 */
import { OrderLoader } from '../../src/loader.js';
import type { TestTarget } from './databases.js';
import { memoryLogger, type MemoryLogger } from './memory-logger.js';
import { GIVEN_BACK, testLoaders } from './test-loaders.js';
import { emptySchema, schemaShape } from './oracle-fresh.js';
import { runOracleTestQuery } from './oracle-query.js';
import { oracleTestPool, oracleTestTarget, type OracleTestTarget } from './oracle-target.js';

/**
 * The shape (oracle-fresh.ts) this process last left the one Oracle schema in, migrated and
 * empty; null before the first test of a file, whose create() drops and migrates.
 */
let oracleShape: string | null = null;

export const oracleTarget: TestTarget = {
  kind: 'oracle',
  async create() {
    const target = await oracleTestTarget();
    if (target === null) throw new Error('ORDER_LOADER_TEST_ORACLE is not set');
    // one pool for this database's own statements (db.sql), not one per statement
    const pool = await oracleTestPool(target.db, target.env);
    try {
      oracleShape = await pool.run(async (connection, oracledb) => {
        const shape = oracleShape === null ? null : await schemaShape(connection, oracledb.OUT_FORMAT_OBJECT);
        // the emptying path has not met a server yet: should a statement of it fail there, the
        // test still gets its database the slow way, and the job says so in its log
        const emptied =
          shape !== null &&
          shape === oracleShape &&
          (await emptySchema(connection, oracledb.OUT_FORMAT_OBJECT).then(
            () => true,
            (error: unknown) => {
              process.stderr.write(`oracle test target: emptying the schema failed, dropping and migrating instead: ${String(error)}\n`);
              return false;
            },
          ));
        if (!emptied) {
          await target.reset();
          // migrated here, as PostgreSQL's and PGlite's are from their template: the same create() on every target
          const { loader } = await openOracleLoader(target, memoryLogger(), true);
          await loader.close();
        }
        return schemaShape(connection, oracledb.OUT_FORMAT_OBJECT);
      });
    } catch (error) {
      oracleShape = null;
      await pool.close();
      throw error;
    }
    const loaders = testLoaders(async (logs, workers) => (await openOracleLoader(target, logs, false, workers)).loader);
    return {
      kind: 'oracle',
      url: target.db,
      env: target.env,
      reused: false,
      async sql<R>(text: string, params?: unknown[]) {
        if (loaders.closed) throw new Error(GIVEN_BACK);
        return pool.run((connection, oracledb) => runOracleTestQuery<R>(connection, oracledb, text, params ?? []));
      },
      open: (options) => loaders.open(options),
      openWith: (wrap, options) => loaders.open(options, wrap),
      async dispose() {
        if (loaders.closed) return;
        await loaders.closeAll();
        await pool.close();
      },
    };
  },
};

async function openOracleLoader(
  target: OracleTestTarget,
  logs: MemoryLogger,
  migrate: boolean,
  workers?: number,
): Promise<{ loader: OrderLoader }> {
  return { loader: await OrderLoader.open({ db: target.db, env: target.env, logger: logs.logger, workers, migrate }) };
}
