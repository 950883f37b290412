/**
 * Server PostgreSQL in the Oracle target's mode (ORDER_LOADER_TEST_PG_ONE_SCHEMA=1, under
 * `npx vitest run --config test/oracle-server/vitest.config.ts --mode postgres-one-schema`):
 * the integration suite the Oracle job runs, on PostgreSQL, with its databases given out as the
 * Oracle target gives its one schema (oracle-test-database.ts, oracle-fresh.ts) instead of a new
 * database from the template for each test:
 *  - one database for the whole run, under one name and URL for every test;
 *  - dropped and made again from the migrated template at a file's first test, or when its
 *    shape (tables, columns, constraints, indexes, triggers, functions) changed since it was
 *    last emptied, as the Oracle target drops and migrates;
 *  - otherwise emptied by DELETE, children before parents, the migration bookkeeping kept, and
 *    its identities restarted at 1: its planner statistics, its sessions' counters and whatever
 *    a test left running on it are kept, whether the test passed or failed, as on Oracle.
 * A test that leans on a new database for each test (work left running that writes into the
 * next test's rows, statistics, numbering that only a new database restarts) fails here the way
 * it would fail on the first run against Oracle, which no machine of this project can run.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { expect, inject } from 'vitest';
import { adminPool, createDatabase, databaseUrl } from '../../bench/pg-admin.js';
import { OrderLoader } from '../../src/loader.js';
import { serverSql, type TestTarget } from './databases.js';
import { testLoaders } from './test-loaders.js';

export const ONE_SCHEMA_ENV = 'ORDER_LOADER_TEST_PG_ONE_SCHEMA';

/** On when its variable says so; only one file at a time may run (the Oracle suite's config). */
export function pgOneSchemaMode(): boolean {
  if (process.env[ONE_SCHEMA_ENV] !== '1') return false;
  if (process.env.ORDER_LOADER_TEST_ORACLE_SUITE !== '1')
    throw new Error(
      `${ONE_SCHEMA_ENV}=1 shares one database between tests: run it under test/oracle-server/vitest.config.ts (one file at a time)`,
    );
  return true;
}

/** The migration bookkeeping, kept as the Oracle target keeps its own. */
const KEPT = ['order_loader_migration'];

const IN_SCHEMA = `n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname !~ '^pg_(toast|temp_|toast_temp_)'`;

/** The catalog rows whose text, hashed, is the database's shape (data and statistics left out). */
export const PG_SHAPE_QUERY = `SELECT x FROM (
  SELECT format('rel %s.%s %s', n.nspname, c.relname, c.relkind) AS x FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE ${IN_SCHEMA} AND c.relkind <> 't'
  UNION ALL SELECT format('col %s %s %s %s %s', a.attrelid::regclass, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attidentity)
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE a.attnum > 0 AND NOT a.attisdropped AND ${IN_SCHEMA}
  UNION ALL SELECT format('con %s %s %s', co.conrelid::regclass, co.conname, pg_get_constraintdef(co.oid))
    FROM pg_constraint co JOIN pg_namespace n ON n.oid = co.connamespace WHERE ${IN_SCHEMA}
  UNION ALL SELECT format('idx %s', pg_get_indexdef(i.indexrelid))
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${IN_SCHEMA}
  UNION ALL SELECT format('trg %s', pg_get_triggerdef(t.oid)) FROM pg_trigger t WHERE NOT t.tgisinternal
  UNION ALL SELECT format('fn %s %s', p.oid::regprocedure, md5(coalesce(p.prosrc, '')))
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE ${IN_SCHEMA}
) s ORDER BY x`;

const TABLES_QUERY = `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`;

const IDENTITIES_QUERY = `SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
  WHERE table_schema = current_schema() AND is_identity = 'YES' ORDER BY 1, 2`;

async function shapeOf(client: pg.PoolClient | pg.Pool): Promise<string> {
  const { rows } = await client.query<{ x: string }>(PG_SHAPE_QUERY);
  return createHash('sha256')
    .update(rows.map((r) => r.x).join('\n'))
    .digest('hex');
}

/** Oracle's emptying path (oracle-fresh.ts emptySchema) in PostgreSQL's words. */
async function emptyDatabase(client: pg.PoolClient): Promise<void> {
  const tables = (await client.query<{ name: string }>(TABLES_QUERY)).rows.map((r) => r.name).filter((t) => !KEPT.includes(t));
  await client.query('BEGIN');
  try {
    let pending = tables;
    while (pending.length > 0) {
      const refused: string[] = [];
      for (const table of pending) {
        await client.query('SAVEPOINT one_table');
        try {
          await client.query(`DELETE FROM "${table}"`);
          await client.query('RELEASE SAVEPOINT one_table');
        } catch (error) {
          // a child's foreign key refuses the DELETE: tried again after the others
          if ((error as { code?: string }).code !== '23503') throw error;
          await client.query('ROLLBACK TO SAVEPOINT one_table');
          refused.push(table);
        }
      }
      if (refused.length === pending.length) throw new Error(`cannot empty ${refused.join(', ')}: each is referenced by rows of another`);
      pending = refused;
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
  for (const { table, column } of (await client.query<{ table: string; column: string }>(IDENTITIES_QUERY)).rows)
    await client.query(`ALTER TABLE "${table}" ALTER COLUMN "${column}" RESTART WITH 1`);
}

/**
 * The sessions still on the database but `client`'s, once those closing have had 5 s to go (a
 * loader's file-claim sessions are ended without waiting; on a loaded machine their backends
 * were seen idle for more than 0.5 s): a child process, a loader or a pool an earlier test left open. On Oracle such a session
 * writes into the next test's rows or holds locks its DELETE waits for; here it fails the next
 * create(), named, and is ended so that the tests after it do not fail for it too.
 */
async function sessionsLeft(client: pg.PoolClient): Promise<string[]> {
  const query = `SELECT format('%s (%s)', coalesce(nullif(application_name, ''), 'a session'), coalesce(state, backend_type)) AS who
    FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`;
  for (let wait = 0; ; wait++) {
    const { rows } = await client.query<{ who: string }>(query);
    if (rows.length === 0) return [];
    if (wait === 200) {
      await client.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      return rows.map((r) => r.who);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The shape this process last left the one database in; null before its first test. */
let leftShape: string | null = null;
/** The test that had the database last. */
let lastTest = '';

export function pgOneSchemaTarget(adminUrl: string, template: string): TestTarget {
  const admin = adminPool(adminUrl);
  return {
    kind: 'postgres',
    async create() {
      // the run's tag: the global teardown drops it with the run's other databases
      const name = `order_loader_t_${inject('testRunTag')}_one_schema`;
      const previous = lastTest;
      lastTest = expect.getState().currentTestName ?? '';
      const url = databaseUrl(adminUrl, name);
      const direct = new pg.Pool({ connectionString: url, max: 2, allowExitOnIdle: true });
      direct.on('error', () => {});
      try {
        const client = leftShape === null ? null : await direct.connect().catch(() => null);
        let emptied = false;
        if (client !== null) {
          try {
            const left = await sessionsLeft(client);
            if (left.length > 0)
              throw new Error(
                `the one schema still has ${left.length} session(s) of "${previous}" on it (${left.join(', ')}): on Oracle they would reach this test's rows; end what a test opens before it ends`,
              );
            emptied = (await shapeOf(client)) === leftShape && (await emptyDatabase(client).then(() => true));
          } finally {
            client.release(true);
          }
        }
        if (!emptied) {
          await createDatabase(admin, name, { template, replace: true });
          process.stderr.write(`postgres one-schema target: ${name} made again from the template\n`);
        }
        leftShape = await shapeOf(direct);
      } catch (error) {
        leftShape = null;
        await direct.end();
        throw error;
      }
      const loaders = testLoaders((logs, workers) => OrderLoader.open({ db: url, logger: logs.logger, workers, migrate: false, env: {} }));
      return {
        kind: 'postgres',
        url,
        env: {},
        reused: false,
        sql: serverSql(direct, loaders),
        open: (options) => loaders.open(options),
        openWith: (wrap, options) => loaders.open(options, wrap),
        async dispose() {
          if (loaders.closed) return;
          await loaders.closeAll();
          await direct.end();
        },
      };
    },
  };
}
