/**
 * The survival subset on a real Oracle server (npm run test:oracle; see vitest.config.ts here):
 *  (a) kill -9 of `load` while it processes, then a rerun: every source_key once, with the counts
 *      of an uninterrupted run;
 *  (b) four `process` workers at once over a staged file: every row processed once.
 * The CLI runs as a child process (dist/src/cli.js, test/survival/harness.ts); the invariants are
 * test/support/invariants.ts's, spoken in Oracle's SQL (oracle-sql.ts). Skipped unless
 * ORDER_LOADER_TEST_ORACLE is set and this file runs under that config (in `npm test` the
 * integration files run in parallel, and these would reset the schema under them).
 */
import { describe, expect, it } from 'vitest';
import { testTargets, type TestDatabase } from '../support/databases.js';
import { checkInvariants, statusCounts } from '../support/invariants.js';
import {
  FULL,
  SIZES,
  assertBuilt,
  generateOrderFile,
  prng,
  runCli,
  sleep,
  startCli,
  type CliResult,
  type GeneratedFile,
} from '../survival/harness.js';
import { oracleInvariantSql } from './oracle-sql.js';

const oracle = testTargets().find((t) => t.kind === 'oracle');
const underOracleConfig = process.env.ORDER_LOADER_TEST_ORACLE_SUITE === '1';

/** Smaller than the PostgreSQL survival sizes: a Free container on a CI runner is slow. ORDER_LOADER_SURVIVAL_FULL=1: the full ones. */
const ROWS = FULL ? SIZES.rows : 5_000;
const CONCURRENT_ROWS = FULL ? SIZES.concurrentRows : 8_000;
const KILLS = FULL ? SIZES.kills : 3;
const LOAD_ARGS = ['--chunk-size', '200', '--batch-size', '1000', '--log-level', 'debug'];

const tail = (r: CliResult) => r.stderr.slice(-3000);
const badRows = (file: GeneratedFile) => file.bad.missingAmount + file.bad.overflow + file.bad.badDate + file.bad.badCurrency;

async function fresh(): Promise<{ db: TestDatabase; url: string; env: Record<string, string> }> {
  if (oracle === undefined) throw new Error('ORDER_LOADER_TEST_ORACLE is not set');
  const db = await oracle.create(); // the schema dropped: the CLI migrates it on first use
  if (db.url === null) throw new Error('the Oracle target has no --db value');
  return { db, url: db.url, env: db.env };
}

/**
 * Wait until no row of order_stage is locked. A killed client's server session ends (and its
 * transaction rolls back) once Oracle notices the closed socket; until then a rerun would pass
 * over its rows (claims use SKIP LOCKED) and leave them READY for a later run.
 */
async function waitForRowLocksReleased(db: TestDatabase, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [all] = await db.sql<{ n: number }>('SELECT count(*) AS n FROM order_stage');
    // the assertion session's own locks end with its connection (rolled back on close)
    const free = await db.sql<{ stage_id: number }>('SELECT stage_id FROM order_stage FOR UPDATE SKIP LOCKED');
    if (free.length === (all?.n ?? 0)) return;
    if (Date.now() > deadline)
      throw new Error(`${(all?.n ?? 0) - free.length} order_stage rows still locked ${timeoutMs / 1000} s after the kill`);
    await sleep(250);
  }
}

async function ordersOnce(db: TestDatabase): Promise<{ orders: number; keys: number }> {
  const [row] = await db.sql<{ n_orders: number; n_keys: number }>(
    'SELECT count(*) AS n_orders, count(DISTINCT source_key) AS n_keys FROM orders',
  );
  return { orders: row?.n_orders ?? -1, keys: row?.n_keys ?? -2 };
}

describe.skipIf(oracle === undefined || !underOracleConfig)('survival on oracle (a real server: npm run test:oracle)', () => {
  it(
    `kill -9 of load mid-processing (${KILLS} times, ${ROWS} rows), then a rerun: every source_key in orders once, the counts of an uninterrupted run`,
    async () => {
      assertBuilt();
      const file = await generateOrderFile(ROWS, 41, 'OK');
      const bad = badRows(file);

      // the uninterrupted run
      const reference = await fresh();
      let referenceCounts: { DONE: number; ERROR: number; orders: number };
      try {
        const run = await runCli(['load', file.path, '--db', reference.url, ...LOAD_ARGS], { env: reference.env });
        expect(run.code, tail(run)).toBe(2);
        const report = await checkInvariants(oracleInvariantSql(reference.db.sql), { sourceKeys: file.keys, exclusive: true });
        expect(report.violations).toEqual([]);
        referenceCounts = { DONE: report.counts.DONE, ERROR: report.counts.ERROR, orders: report.counts.orders };
        expect(referenceCounts).toEqual({ DONE: file.rows - bad, ERROR: bad, orders: file.rows - bad });
      } finally {
        await reference.db.dispose();
      }

      // the same file on an empty schema, killed while processing, then run to completion
      const { db, url, env } = await fresh();
      try {
        const seed = Number(process.env.ORDER_LOADER_SURVIVAL_SEED ?? 20261201);
        const random = prng(seed);
        for (let kill = 1; kill <= KILLS; kill++) {
          const run = startCli(['load', file.path, '--db', url, ...LOAD_ARGS], { env });
          // after one or two more committed chunks, a few milliseconds into the next one
          let armed = await run.waitFor(/"msg":"chunk committed"/);
          if (armed && random() < 0.5) armed = await run.waitFor(/"msg":"chunk committed"/);
          if (armed) await sleep(random() * 60);
          if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
          const result = await run.done;
          expect(result.signal, `kill ${kill} (seed ${seed}) did not land: the run ended first\n${tail(result)}`).toBe('SIGKILL');
          await waitForRowLocksReleased(db);
          // every committed state is whole, whatever instant the kill hit
          const partial = await checkInvariants(oracleInvariantSql(db.sql), { allowUnfinished: true });
          expect(partial.violations, `after kill ${kill} (seed ${seed})`).toEqual([]);
          expect(partial.counts.DONE + partial.counts.ERROR, 'the kill left work for the rerun').toBeLessThan(file.rows);
        }

        const final = await runCli(['load', file.path, '--db', url, ...LOAD_ARGS], { env });
        expect(final.code, tail(final)).toBe(2);
        const report = await checkInvariants(oracleInvariantSql(db.sql), { sourceKeys: file.keys, exclusive: true });
        expect(report.violations).toEqual([]);
        expect({ DONE: report.counts.DONE, ERROR: report.counts.ERROR, orders: report.counts.orders }).toEqual(referenceCounts);
        expect(await ordersOnce(db)).toEqual({ orders: referenceCounts.orders, keys: referenceCounts.orders });
      } finally {
        await db.dispose();
      }
    },
    FULL ? 3_600_000 : 900_000,
  );

  it(
    `4 process workers at once over a staged ${CONCURRENT_ROWS}-row file: every row processed once`,
    async () => {
      assertBuilt();
      const { db, url, env } = await fresh();
      try {
        const file = await generateOrderFile(CONCURRENT_ROWS, 42, 'CW');
        const staged = await runCli(['stage', file.path, '--db', url], { env });
        expect(staged.code, tail(staged)).toBe(2); // unparseable dates are rejected at staging
        const processable = (await statusCounts(oracleInvariantSql(db.sql))).READY;
        expect(processable).toBeGreaterThan(0);

        // one worker each (the default is 2 per process): four processes, four workers
        const workers = Array.from({ length: 4 }, () =>
          startCli(['process', '--db', url, '--chunk-size', '250', '--workers', '1', '--json', '--log-level', 'warn'], { env }),
        );
        const results = await Promise.all(workers.map((w) => w.done));
        const claimedEach = results.map((r) => {
          expect(r.code, tail(r)).toBe(2);
          return (JSON.parse(r.stdout) as { process: { claimed: number } }).process.claimed;
        });
        expect(
          claimedEach.reduce((a, b) => a + b, 0),
          `claimed by each worker: ${claimedEach.join(', ')}`,
        ).toBe(processable);
        expect(claimedEach.filter((n) => n > 0).length, 'workers that did work').toBeGreaterThan(1);

        // nothing READY or PROCESSING, DONE and orders one to one, every key of the file once
        const report = await checkInvariants(oracleInvariantSql(db.sql), { sourceKeys: file.keys, exclusive: true });
        expect(report.violations).toEqual([]);
        expect(await ordersOnce(db)).toEqual({ orders: report.counts.DONE, keys: report.counts.DONE });
        expect(report.counts.DONE + report.counts.ERROR).toBe(file.rows);
        // processed once: one attempt per row, at most one VALIDATE/MERGE error-log row per row
        expect(
          await db.sql(
            "SELECT source_key, attempt_count FROM order_stage WHERE process_status = 'DONE' AND attempt_count <> 1 FETCH FIRST 5 ROWS ONLY",
          ),
        ).toEqual([]);
        expect(
          await db.sql(
            "SELECT stage_id, count(*) AS n FROM order_bulk_error WHERE phase <> 'PARSE' GROUP BY stage_id HAVING count(*) > 1 FETCH FIRST 5 ROWS ONLY",
          ),
        ).toEqual([]);
        // no lock conflict between workers ended up as a row error
        expect(
          await db.sql(
            "SELECT error_code FROM order_bulk_error WHERE error_code IN ('ORA-00060', 'ORA-00054', 'ORA-30006', 'ORA-08177', 'ORA-00001') FETCH FIRST 5 ROWS ONLY",
          ),
        ).toEqual([]);
      } finally {
        await db.dispose();
      }
    },
    FULL ? 1_800_000 : 600_000,
  );
});
