/**
 * The databases every integration test runs against:
 *  - PGlite, always: an in-memory database loaded from a dump of a migrated template, fresh
 *    for each test;
 *  - server PostgreSQL when ORDER_LOADER_TEST_PG is set (an admin URL): a database created
 *    for each test from a migrated template (see test/support/global-setup.ts);
 *  - Oracle when ORDER_LOADER_TEST_ORACLE is set, under npm run test:oracle only: the schema
 *    reset before each test.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { expect, inject } from 'vitest';
import { adminPool, checkOut, createDatabase, dropDatabase, type AdminPool } from '../../bench/pg-admin.js';
import { resetToTemplate, templateState, type ResetSession, type TemplateState } from './database-reuse.js';
import { createHash } from 'node:crypto';
import { listMigrations } from '../../src/sql-files.js';
import { OrderLoader } from '../../src/loader.js';
import { createPostgresEngine } from '../../src/engine/postgres/index.js';
import { PGLITE_PARSERS, PGLITE_START_PARAMS, pgliteConnectorFor } from '../../src/engine/postgres/pglite-connector.js';
import { pgliteFsBundle } from '../../src/engine/postgres/pglite-assets.js';
import type { Engine } from '../../src/engine/types.js';
import { memoryLogger, type MemoryLogger } from './memory-logger.js';
import { oracleTarget } from './oracle-test-database.js';
import { pgOneSchemaMode, pgOneSchemaTarget } from './pg-one-schema.js';
import { GIVEN_BACK, testLoaders, type TestLoaders } from './test-loaders.js';
import { cachedTemplateDumpPath, CLI, keepForNextRun, usedNow } from './pglite-template.js';
import { TEST_PG_URL } from './server-url.js';
import { missingTarget, NEEDS } from './requirements.js';

/**
 * The migrated template database, named after the migrations it holds: concurrent test runs
 * share it, and a change of the schema makes a new one.
 */
export const PG_TEMPLATE_DB = `order_loader_tmpl_${createHash('sha1')
  .update(
    listMigrations('postgres')
      .map((m) => m.sql)
      .join('\n'),
  )
  .digest('hex')
  .slice(0, 12)}`;

export interface TestDatabase {
  /** pglite | postgres | oracle */
  kind: string;
  /** A --db value for a CLI child process (PGlite: none, in-memory clones cannot be shared). */
  url: string | null;
  env: Record<string, string>;
  /** It served an earlier test and was reset since (test/support/database-reuse.ts). */
  reused: boolean;
  /** Run SQL directly (assertions). Oracle: not available, use the loader's queries. */
  sql<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  /** A loader over this database, with its logs in memory. */
  open(options?: { workers?: number }): Promise<{ loader: OrderLoader; logs: MemoryLogger }>;
  /** Wrap the engine (fault injection) and open a loader over the wrapper. */
  openWith(wrap: (engine: Engine) => Engine, options?: { workers?: number }): Promise<{ loader: OrderLoader; logs: MemoryLogger }>;
  /**
   * Close it. `reuse`: the test passed, so the database may serve the next test of this worker
   * instead of a new one, if a reset provably brings it back to its template's state
   * (test/support/database-reuse.ts); otherwise it is closed and dropped as without.
   */
  dispose(options?: { reuse?: boolean }): Promise<void>;
}

export interface TestTarget {
  kind: string;
  create(): Promise<TestDatabase>;
}

let pgliteTemplate: Promise<Blob> | undefined;

/**
 * The migrated template of this worker, as a dump of its data folder: each test's database is
 * loaded from it (PGlite's clone() would dump the template again for every test). The template
 * is a copy of the migrated folder the global setup makes for the CLI tests when the CLI is
 * built (opening it costs about 1.5 s of CPU; a new database's initdb about 7 s), else a new
 * in-memory database; migrated here either way, so that a stale build cannot leave it behind.
 * Kept in node_modules/.cache (pglite-template.ts), where the next run's workers read it.
 */
export async function migratedPgliteDump(): Promise<Blob> {
  pgliteTemplate ??= (async () => {
    const cached = existsSync(CLI) ? cachedTemplateDumpPath() : null;
    if (cached !== null && existsSync(cached)) {
      try {
        usedNow(cached);
        return new Blob([readFileSync(cached)]);
      } catch {
        // pruned by another run meanwhile: made again below
      }
    }
    let folder: string | null = null;
    if (existsSync(CLI)) {
      // not imported at the top: the global setup imports this module, outside any test worker
      const { migratedPgliteDb } = await import('./pglite-folders.js');
      // the worker's template, kept by this promise beyond the test that asked first: removed below
      folder = (await migratedPgliteDb({ removeAfterTest: false })).dataDir;
    }
    const fsBundle = await pgliteFsBundle();
    const db = await PGlite.create(
      folder === null ? { parsers: PGLITE_PARSERS, fsBundle } : { dataDir: folder, parsers: PGLITE_PARSERS, fsBundle },
    );
    try {
      await createPostgresEngine(pgliteConnectorFor(db)).migrate();
      // Without template0 and template1, which no test uses (the loader's database is `postgres`),
      // each test's load unpacks 25 MB instead of 40 MB: about 0.15 s of CPU less of 0.65 s.
      await db.exec("UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')");
      for (const statement of ['DROP DATABASE IF EXISTS template0', 'DROP DATABASE IF EXISTS template1', 'CHECKPOINT'])
        await db.exec(statement);
      const dump = await db.dumpDataDir('none');
      // the next run's workers load it from the cache instead (about 2 s of CPU each)
      if (cached !== null) {
        const bytes = new Uint8Array(await dump.arrayBuffer());
        keepForNextRun(cached, (partial) => writeFileSync(partial, bytes));
      }
      return dump;
    } finally {
      await db.close();
      if (folder !== null) rmSync(dirname(folder), { recursive: true, force: true });
    }
  })();
  return pgliteTemplate;
}

/** A PGlite clone with the state its reset returns it to. */
interface PgliteClone {
  db: PGlite;
  state: TemplateState;
}

/** At most two clones wait for the next test in each worker (a test may use two; each holds about 300 MB). */
const idlePgliteClones: PgliteClone[] = [];

function pgliteResetSession(db: PGlite): ResetSession {
  return {
    async query<R>(text: string) {
      return (await db.query<R>(text)).rows;
    },
  };
}

async function newPgliteClone(): Promise<PgliteClone> {
  const db = await PGlite.create({
    loadDataDir: await migratedPgliteDump(),
    parsers: PGLITE_PARSERS,
    // the settings every PGlite the loader opens runs with (WAL size, shared_buffers)
    startParams: PGLITE_START_PARAMS,
    fsBundle: await pgliteFsBundle(),
  });
  return { db, state: await templateState(pgliteResetSession(db)) };
}

/**
 * The clone as one test sees it: after the test, every call through it throws, so that work a
 * test left running cannot reach the next test's database; closing it closes the clone for good.
 */
function leaseOf(db: PGlite): { handle: PGlite; revoke(): void } {
  let revoked = false;
  const handle = new Proxy(db, {
    get(target, property) {
      if (revoked) throw new Error('this test database was given back after its test ended');
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    handle,
    revoke() {
      revoked = true;
    },
  };
}

async function reusedPgliteClone(clone: PgliteClone): Promise<boolean> {
  if (clone.db.closed || idlePgliteClones.length >= 2) return false;
  const session = pgliteResetSession(clone.db);
  try {
    // one session for everything: a transaction a test left open, then temporary tables,
    // prepared statements, advisory locks and SET values
    await clone.db.exec('DISCARD ALL').catch(async () => {
      await clone.db.exec('ROLLBACK');
      await clone.db.exec('DISCARD ALL');
    });
    // the session's activity counters, reported at most once a second: before the reset clears them
    await clone.db.exec('SELECT pg_stat_force_next_flush()');
    // single-user PGlite never checkpoints on its own: without it the WAL of every test piles up
    await clone.db.exec('CHECKPOINT');
    return await resetToTemplate(session, clone.state);
  } catch {
    return false;
  }
}

const pgliteTarget: TestTarget = {
  kind: 'pglite',
  async create() {
    const idle = idlePgliteClones.pop();
    const clone = idle ?? (await newPgliteClone());
    const lease = leaseOf(clone.db);
    const db = lease.handle;
    const loaders: OrderLoader[] = [];
    const makeEngine = () => createPostgresEngine(pgliteConnectorFor(db));
    let closed = false;
    return {
      kind: 'pglite',
      url: null,
      env: {},
      reused: idle !== undefined,
      async sql<R>(text: string, params?: unknown[]) {
        return (await db.query<R>(text, params, { parsers: PGLITE_PARSERS })).rows;
      },
      async open() {
        const logs = memoryLogger();
        const loader = OrderLoader.fromEngine(makeEngine(), logs.logger);
        loaders.push(loader);
        return { loader, logs };
      },
      async openWith(wrap) {
        const logs = memoryLogger();
        const loader = OrderLoader.fromEngine(wrap(makeEngine()), logs.logger);
        loaders.push(loader);
        return { loader, logs };
      },
      async dispose(options) {
        if (closed) return;
        closed = true;
        lease.revoke();
        if (options?.reuse === true && (await reusedPgliteClone(clone))) idlePgliteClones.push(clone);
        else if (!clone.db.closed) await clone.db.close();
      },
    };
  },
};

let dbCounter = 0;

/** A server database made from the template, with the state its reset returns it to. */
interface PgDatabase {
  name: string;
  url: string;
  /** The connections of the tests' own statements (db.sql): they stay with the database while it is reused. */
  direct: pg.Pool;
  /** null: never reused (the reset needs a superuser: pg_statistic, pg_stat_reset). */
  state: TemplateState | null;
}

/** Server databases waiting for the next test of this worker. */
const idlePgDatabases: PgDatabase[] = [];

/**
 * One admin connection per worker and server for CREATE and DROP DATABASE: with one new
 * connection for each, and new ones for each database's own statements and reset, a server
 * test cost about five server processes (501 in one `npm test`), each about 18 ms of server CPU
 * on an idle machine and several times that under the test load.
 */
const adminPools = new Map<string, AdminPool>();

function adminOf(adminUrl: string): AdminPool {
  let admin = adminPools.get(adminUrl);
  if (admin === undefined) adminPools.set(adminUrl, (admin = adminPool(adminUrl)));
  return admin;
}

function poolSession(pool: pg.Pool | pg.PoolClient): ResetSession {
  return {
    async query<R>(text: string) {
      return (await pool.query(text)).rows as R[];
    },
  };
}

/**
 * After a passed test: the database's own sessions back to a new session's state, the
 * loaders' sessions gone, then the reset (database-reuse.ts); false discards the database.
 */
async function reusedPgDatabase(database: PgDatabase): Promise<boolean> {
  const { direct, state } = database;
  if (state === null || idlePgDatabases.length >= 2) return false;
  // a statement of the test still running: its session is not ours to reset
  if (direct.totalCount > direct.idleCount || direct.waitingCount > 0) return false;
  const leases: Array<Awaited<ReturnType<typeof checkOut>>> = [];
  let usable = true;
  try {
    for (let idle = Math.max(direct.idleCount, 1); idle > 0; idle--) leases.push(await checkOut(direct));
    const pids: number[] = [];
    for (const { client } of leases) {
      // fails inside a transaction the test left open: then the database is dropped
      await client.query('DISCARD ALL');
      const { rows } = await client.query<{ pid: number; version: number }>(
        "SELECT pg_backend_pid() AS pid, current_setting('server_version_num')::int AS version",
      );
      pids.push(rows[0]?.pid ?? 0);
      // a session reports its activity counters at most once a second, else when it ends: they
      // must reach the server before pg_stat_reset, not in the next test (PostgreSQL 15 and later)
      if ((rows[0]?.version ?? 0) >= 150000) await client.query('SELECT pg_stat_force_next_flush()');
    }
    const client = leases[0]?.client;
    if (client === undefined) return false;
    // the loaders' sessions are closed; the server may take a moment to see them go
    for (let wait = 0; ; wait++) {
      const { rows } = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> ALL($1::int[])',
        [pids],
      );
      if (rows[0]?.n === 0) break;
      if (wait === 20) return false;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await client.query("SET lock_timeout = '2s'");
    const reset = await resetToTemplate(poolSession(client), state);
    await client.query('RESET lock_timeout');
    return reset;
  } catch {
    usable = false;
    return false;
  } finally {
    for (const lease of leases) lease.release(!usable);
  }
}

function pgTarget(adminUrl: string): TestTarget {
  // the Oracle target's one schema, on PostgreSQL (pg-one-schema.ts)
  if (pgOneSchemaMode()) return pgOneSchemaTarget(adminUrl, PG_TEMPLATE_DB);
  const admin = adminOf(adminUrl);
  return {
    kind: 'postgres',
    async create() {
      const idle = idlePgDatabases.pop();
      let database = idle;
      if (database === undefined) {
        // named with the run's tag: the global teardown drops what a killed worker left
        const name = `order_loader_t_${inject('testRunTag')}_${process.pid}_${++dbCounter}`;
        const url = await createDatabase(admin, name, { template: PG_TEMPLATE_DB });
        // an idle connection does not keep the worker alive
        const direct = new pg.Pool({ connectionString: url, max: 2, allowExitOnIdle: true });
        direct.on('error', () => {});
        const state = await templateState(poolSession(direct)).catch(() => null);
        database = { name, url, direct, state };
      }
      const { name, url: dbUrl, direct } = database;
      const loaders = testLoaders((logs, workers) =>
        OrderLoader.open({ db: dbUrl, logger: logs.logger, workers, migrate: false, env: {} }),
      );
      return {
        kind: 'postgres',
        url: dbUrl,
        env: {},
        reused: idle !== undefined,
        // the connections stay with the database: work a test left running must not reach the next test's
        sql: serverSql(direct, loaders),
        open: (options) => loaders.open(options),
        openWith: (wrap, options) => loaders.open(options, wrap),
        async dispose(options) {
          if (loaders.closed) return;
          const reuse = (await loaders.closeAll()) && options?.reuse === true;
          if (reuse && (await reusedPgDatabase(database))) {
            idlePgDatabases.push(database);
            return;
          }
          try {
            await direct.end();
          } finally {
            await dropDatabase(admin, name); // WITH (FORCE): also when a connection is left
          }
        },
      };
    },
  };
}

/** db.sql of a server PostgreSQL database: on its own connections, refused once the test gave it back. */
export function serverSql(direct: pg.Pool, loaders: TestLoaders): TestDatabase['sql'] {
  return async <R>(text: string, params?: unknown[]) => {
    if (loaders.closed) throw new Error(GIVEN_BACK);
    const result = await direct.query({ text, values: params, types: { getTypeParser: numericIds } });
    return result.rows as R[];
  };
}

function numericIds(oid: number): (value: string) => unknown {
  if (oid === 20) return (v: string) => Number(v);
  if (oid === 1082) return (v: string) => v;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- any OID the server sends, not only the enum's
  return pg.types.getTypeParser(oid) as (value: string) => unknown;
}

/** The databases of each kind a running test holds, by test: see {@link onePerTest}. */
const heldByTest = new Set<string>();

/**
 * `target` whose create() refuses a second database of its kind to a test that holds one (until
 * that one is disposed). PGlite and PostgreSQL could give an independent second database;
 * Oracle cannot (one schema: a second create() would empty the first's tables under the test),
 * so no target does, and a PGlite or PostgreSQL run finds the test that asks. A test that
 * compares two runs disposes the first database, keeping what it read, before it makes the
 * second (test/support/same-both-ways.ts).
 */
export function onePerTest(target: TestTarget): TestTarget {
  return {
    kind: target.kind,
    async create() {
      const test = expect.getState().currentTestName;
      const key = `${target.kind} ${test ?? ''}`;
      if (test !== undefined && heldByTest.has(key))
        throw new Error(
          `one ${target.kind} database per test: "${test}" already holds one (Oracle's target is one schema); dispose it, keeping what you read, before asking for another`,
        );
      if (test !== undefined) heldByTest.add(key);
      try {
        const db = await target.create();
        return {
          ...db,
          async dispose(options) {
            heldByTest.delete(key);
            await db.dispose(options);
          },
        };
      } catch (error) {
        heldByTest.delete(key);
        throw error;
      }
    },
  };
}

/** The targets of this environment: PGlite always, the others when their variables are set. */
export function testTargets(): TestTarget[] {
  const targets = [onePerTest(pgliteTarget)];
  if (TEST_PG_URL !== null) targets.push(onePerTest(pgTarget(TEST_PG_URL)));
  else {
    const standIn = missingTarget('postgres', NEEDS.server);
    if (standIn !== null) targets.push(standIn);
  }
  // Oracle only under npm run test:oracle (ORDER_LOADER_TEST_ORACLE_SUITE, set by its config): it
  // runs one file at a time, as the one Oracle schema needs; npm test runs files in parallel
  if (process.env.ORDER_LOADER_TEST_ORACLE && process.env.ORDER_LOADER_TEST_ORACLE_SUITE === '1') targets.push(onePerTest(oracleTarget));
  return targets;
}

export function serverPgTarget(): TestTarget | null {
  return TEST_PG_URL === null ? null : onePerTest(pgTarget(TEST_PG_URL));
}
