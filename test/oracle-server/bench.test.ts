/**
 * `order-loader bench` on a real Oracle server (npm run test:oracle; see vitest.config.ts here),
 * as the loader's user (CREATE TABLE, no CREATE USER, no DBA view: compose.yaml's APP_USER):
 *  (a) every case measured in OLB_<id>_ tables of its own, all dropped; the loader's tables, with
 *      a load in them, exactly as they were (no bench run row either); a leftover workspace of a
 *      dead run (its owner row a day old, no session holding its lock) dropped; one whose lock a
 *      live session holds kept;
 *  (b) SIGINT during a case: exit 1, the workspace dropped.
 * The built CLI runs as a child process (dist/src/cli.js). Skipped unless ORDER_LOADER_TEST_ORACLE
 * is set and this file runs under that config.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDbUrl } from '../../src/engine/db-url.js';
import type { OraConnection } from '../../src/engine/oracle/oracledb-types.js';
import { testTargets, type TestDatabase } from '../support/databases.js';
import { ORACLE_LOADER_TABLES, withOracleConnection, type OracleDbTarget } from '../support/oracle-target.js';
import { assertBuilt, generateOrderFile, runCli, startCli, survivalPath, type CliResult } from '../survival/harness.js';

const oracle = testTargets().find((t) => t.kind === 'oracle');
const underOracleConfig = process.env.ORDER_LOADER_TEST_ORACLE_SUITE === '1';
const tail = (r: CliResult) => r.stderr.slice(-3000);
const NO_COMMIT = { autoCommit: false } as const;

async function fresh(): Promise<{ db: TestDatabase; url: string; env: Record<string, string>; target: OracleDbTarget }> {
  if (oracle === undefined) throw new Error('ORDER_LOADER_TEST_ORACLE is not set');
  const db = await oracle.create(); // the loader's tables dropped
  if (db.url === null) throw new Error('the Oracle target has no --db value');
  const target = parseDbUrl(db.url, { ORDER_LOADER_DB_PASSWORD: db.env.ORDER_LOADER_DB_PASSWORD ?? '' });
  if (target.kind !== 'oracle') throw new Error('not an Oracle URL');
  // workspaces an earlier failed run of this file left behind, dropped by hand
  await withOracleConnection(target, async (connection) => {
    for (const table of await workspaceTables(connection))
      await connection.execute(`DROP TABLE ${table} CASCADE CONSTRAINTS PURGE`, {}, NO_COMMIT);
  });
  return { db, url: db.url, env: db.env, target };
}

async function workspaceTables(connection: OraConnection): Promise<string[]> {
  // rows as arrays (the driver's default outFormat)
  const result = await connection.execute(
    "SELECT table_name FROM user_tables WHERE table_name LIKE 'OLB\\_%' ESCAPE '\\' ORDER BY table_name",
    {},
    NO_COMMIT,
  );
  return (result.rows ?? []).map((r) => String((r as unknown[])[0]));
}

/** What the loader's tables hold: row counts, the newest change, the amounts (a bench must change none). */
async function loaderState(db: TestDatabase): Promise<Record<string, unknown>> {
  const state: Record<string, unknown> = {};
  for (const table of ORACLE_LOADER_TABLES) {
    if (table === 'order_stage_batch') continue; // a session's rows only
    state[table] = (await db.sql<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))[0]?.n;
  }
  state.stage = await db.sql(
    "SELECT max(updated_at) AS at, sum(amount) AS amount, sum(CASE WHEN process_status = 'DONE' THEN 1 ELSE 0 END) AS done FROM order_stage",
  );
  state.orders = await db.sql('SELECT max(updated_at) AS at, sum(amount) AS amount FROM orders');
  state.runs = await db.sql('SELECT max(run_id) AS run_id FROM load_run');
  return state;
}

/** A workspace left by a run that is gone: an owner row a day old, and one table. */
async function leftover(connection: OraConnection, prefix: string): Promise<void> {
  await connection.execute(
    `CREATE TABLE ${prefix}_OWNER (host VARCHAR2(255 CHAR) NOT NULL, pid NUMBER(10) NOT NULL, started_at TIMESTAMP WITH TIME ZONE DEFAULT SYSTIMESTAMP NOT NULL)`,
    {},
    NO_COMMIT,
  );
  await connection.execute(
    `INSERT INTO ${prefix}_OWNER (host, pid, started_at) VALUES ('gone-host', 4242, SYSTIMESTAMP - INTERVAL '1' DAY)`,
    {},
    NO_COMMIT,
  );
  await connection.execute(`CREATE TABLE ${prefix}_ORDERS (x NUMBER)`, {}, NO_COMMIT); // DDL: commits the row too
}

describe.skipIf(oracle === undefined || !underOracleConfig)('bench on oracle (a real server: npm run test:oracle)', () => {
  it('measures every case in OLB_ workspaces of its own; the loader tables untouched; a dead leftover dropped, a live one kept', async () => {
    assertBuilt();
    const { db, url, env, target } = await fresh();
    try {
      const file = await generateOrderFile(2_000, 43, 'BN');
      const load = await runCli(['load', file.path, '--db', url], { env });
      expect([0, 2], tail(load)).toContain(load.code);
      const before = await loaderState(db);

      await withOracleConnection(target, async (mine) => {
        await leftover(mine, 'OLB_0000DEAD');
        await leftover(mine, 'OLB_0000A11E');
        // this session holds the live one's lock while the bench runs (as its bench would)
        await mine.execute('LOCK TABLE OLB_0000A11E_OWNER IN EXCLUSIVE MODE', {}, NO_COMMIT);
        const chart = survivalPath('oracle-chart.svg');
        const bench = await runCli(
          ['bench', '--db', url, '--rows', '3000', '--chunk-sizes', '500,2000', '--workers', '1,2', '--chart', chart, '--json'],
          { env },
        );
        expect(bench.code, tail(bench)).toBe(0);
        const report = JSON.parse(bench.stdout) as {
          engine: string;
          cases: Array<{ chunkSize: number; workers: number; done: number; error: number }>;
        };
        expect(report.engine).toBe('oracle');
        expect(report.cases.map((c) => [c.chunkSize, c.workers])).toEqual([
          [500, 1],
          [500, 2],
          [2000, 1],
          [2000, 2],
        ]);
        for (const c of report.cases) expect(c.done + c.error).toBe(3000);
        expect(readFileSync(chart, 'utf8')).toMatch(/^<svg[\s\S]*on oracle[\s\S]*2 workers[\s\S]*<\/svg>\n$/);
        expect(bench.stderr).toMatch(/dropped the workspace of a run that is gone[\s\S]*OLB_0000DEAD \(pid 4242 on gone-host/);
        // only the live leftover's tables remain
        expect(await workspaceTables(mine)).toEqual(['OLB_0000A11E_ORDERS', 'OLB_0000A11E_OWNER']);
        await mine.rollback();
        await mine.execute('DROP TABLE OLB_0000A11E_ORDERS PURGE', {}, NO_COMMIT);
        await mine.execute('DROP TABLE OLB_0000A11E_OWNER PURGE', {}, NO_COMMIT);
      });
      expect(await loaderState(db)).toEqual(before);
    } finally {
      await db.dispose();
    }
  }, 600_000);

  it('SIGINT during a case: exit 1, the workspace dropped, the loader tables untouched', async () => {
    assertBuilt();
    const { db, url, env, target } = await fresh();
    try {
      const run = startCli(['bench', '--db', url, '--rows', '100000', '--chunk-sizes', '500', '--workers', '1', '--log-level', 'info'], {
        env,
      });
      expect(await run.waitFor(/"msg":"staging"/), 'the bench reached staging').toBe(true);
      run.child.kill('SIGINT');
      const result = await run.done;
      expect(result.code, tail(result)).toBe(1);
      expect(result.stderr).toContain('bench interrupted: the workspace was dropped');
      await withOracleConnection(target, async (connection) => expect(await workspaceTables(connection)).toEqual([]));
      // the bench never migrated the loader's schema: none of its tables exist
      expect(await db.sql("SELECT table_name FROM user_tables WHERE table_name IN ('ORDERS', 'ORDER_STAGE', 'LOAD_RUN')")).toEqual([]);
    } finally {
      await db.dispose();
    }
  }, 600_000);
});
