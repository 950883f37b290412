/**
 * Survival 2, 3 and 5 against server PostgreSQL: concurrent `process` workers, database faults
 * (the loader's connection terminated mid-run; the database unreachable), and secrets (a
 * password never shows in output, logs or `runs`).
 *
 * Not covered here: restarting a server during a load, and a database gone longer than the
 * retry budget mid-run. Both need a private PostgreSQL instance (initdb/pg_ctl on another port);
 * the shared server of the development machine must never be restarted by a test.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { OrderLoader } from '../../src/loader.js';
import { memoryLogger } from '../support/memory-logger.js';
import { orderFile } from '../support/files.js';
import { checkInvariants } from '../support/invariants.js';
import {
  FULL,
  PG_SKIP_REASON,
  SIZES,
  assertBuilt,
  directPool,
  freshServerDb,
  generateOrderFile,
  humanLines,
  loaderBackends,
  runCli,
  sleep,
  startCli,
  type ServerDb,
} from './harness.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const dbs: ServerDb[] = [];
const fresh = async () => {
  const db = await freshServerDb();
  dbs.push(db);
  return db;
};
afterAll(async () => {
  for (const db of dbs) await db.dispose().catch(() => undefined);
});

/** A port nothing listens on (the "unreachable at start" case). */
const CLOSED_PORT = 9;
const SECRET = 'Sv-pw-7731-ZQX-never-print-me';

describe('survival: unreachable database and secrets (no server needed)', () => {
  it('unreachable at start: waits out --connect-timeout, then one clear line on stderr, exit 1, and no password anywhere in the output (the wait log lines included)', async () => {
    assertBuilt();
    const file = await generateOrderFile(10, 3, 'UNR');
    for (const [args, env] of [
      [['--db', `postgres://loader:${SECRET}@127.0.0.1:${CLOSED_PORT}/orders`], {}],
      [['--db', `postgres://loader@127.0.0.1:${CLOSED_PORT}/orders`], { ORDER_LOADER_DB_PASSWORD: SECRET }],
      [[], { ORDER_LOADER_DB: `postgresql://loader:${encodeURIComponent(SECRET)}@127.0.0.1:${CLOSED_PORT}/orders` }],
    ] as Array<[string[], Record<string, string>]>) {
      const result = await runCli(['load', file.path, ...args, '--connect-timeout', '2s'], { env });
      expect(result.code).toBe(1);
      // each wait is a warn log line (JSON: stderr is not a terminal) with the URL masked
      expect(result.stderr).toMatch(/"attempt":1,"code":"ECONNREFUSED"/);
      const lines = humanLines(result.stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^order-loader: cannot (open database|prepare the schema on) postgres(ql)?:\/\/loader(:\*\*\*)?@127\.0\.0\.1:9\/orders: .*ECONNREFUSED/,
      );
      expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(result.stdout + result.stderr).not.toContain(SECRET);
      expect(result.stdout + result.stderr).not.toContain(encodeURIComponent(SECRET));
    }
  });
});

if (unavailable(NEEDS.server)) {
  describe('survival: concurrent workers, connection faults, secrets (server PostgreSQL)', () => {
    it.skip(PG_SKIP_REASON, () => undefined);
  });
} else {
  describe('survival: concurrent workers, connection faults, secrets (server PostgreSQL)', () => {
    it(
      `4 process workers started at once over a ${SIZES.concurrentRows}-row backlog: each row processed exactly once, no deadlock as a row error`,
      async () => {
        assertBuilt();
        const db = await fresh();
        const file = await generateOrderFile(SIZES.concurrentRows, 21, 'CW');
        const staged = await runCli(['stage', file.path, '--db', db.url]);
        expect(staged.code, staged.stderr.slice(-2000)).toBe(2); // unparseable dates are rejected at staging
        const processable =
          (await db.sql<{ n: number }>("SELECT count(*)::int AS n FROM order_stage WHERE process_status = 'READY'"))[0]?.n ?? 0;
        expect(processable).toBeGreaterThan(0);

        // one worker each (the default is 2 per process): four processes, four workers
        const workers = Array.from({ length: 4 }, () =>
          startCli(['process', '--db', db.url, '--chunk-size', '250', '--workers', '1', '--json', '--log-level', 'warn']),
        );
        const results = await Promise.all(workers.map((w) => w.done));
        let claimed = 0;
        for (const r of results) {
          expect(r.code, r.stderr.slice(-2000)).toBe(2);
          claimed += (JSON.parse(r.stdout) as { process: { claimed: number } }).process.claimed;
        }
        expect(claimed).toBe(processable);
        expect(
          results.filter((r) => (JSON.parse(r.stdout) as { process: { claimed: number } }).process.claimed > 0).length,
          'workers that did work',
        ).toBeGreaterThan(1);

        const report = await checkInvariants(db.sql, { sourceKeys: file.keys, exclusive: true });
        expect(report.violations).toEqual([]);
        expect(
          await db.sql("SELECT source_key, attempt_count FROM order_stage WHERE process_status = 'DONE' AND attempt_count <> 1 LIMIT 5"),
        ).toEqual([]);
        expect(
          await db.sql(
            "SELECT source_key, attempt_count FROM order_stage WHERE process_status = 'ERROR' AND error_code NOT LIKE 'PARSE%' AND attempt_count <> 1 LIMIT 5",
          ),
        ).toEqual([]);
        // processed once: one VALIDATE/MERGE error-log row per failed row, none for a transient failure
        expect(
          await db.sql(
            "SELECT stage_id, count(*) FROM order_bulk_error WHERE phase <> 'PARSE' GROUP BY stage_id HAVING count(*) > 1 LIMIT 5",
          ),
        ).toEqual([]);
        expect(
          await db.sql("SELECT error_code FROM order_bulk_error WHERE error_code IN ('40P01', '40001', '55P03', '23505') LIMIT 5"),
        ).toEqual([]);
        const batches = await db.sql<{ n: number }>(
          "SELECT count(DISTINCT split_part(batch_id, '-', 1))::int AS n FROM order_stage WHERE batch_id IS NOT NULL",
        );
        expect(batches[0]?.n).toBeGreaterThan(1);
      },
      FULL ? 600_000 : 120_000,
    );

    it(
      `the loader's connection terminated ${SIZES.terminations} times mid-run (pg_terminate_backend): it retries with backoff and finishes`,
      async () => {
        assertBuilt();
        const db = await fresh();
        const file = await generateOrderFile(SIZES.faultRows, 31, 'TB');
        const pool = directPool(db.url);
        try {
          const run = startCli(['load', file.path, '--db', db.url, '--chunk-size', '100', '--batch-size', '1000', '--log-level', 'debug']);
          expect(await run.waitFor(/"msg":"staging"/)).toBe(true);
          let terminated = 0;
          while (terminated < SIZES.terminations && run.child.exitCode === null) {
            await sleep(150 + Math.random() * 250);
            const backends = await loaderBackends(pool, db.name);
            for (const b of backends) {
              const { rows } = await pool.query<{ ok: boolean }>('SELECT pg_terminate_backend($1) AS ok', [b.pid]);
              if (rows[0]?.ok === true) terminated++;
            }
          }
          const result = await run.done;
          expect(result.stderr).not.toMatch(/Unhandled 'error' event|unexpected error/);
          expect(result.code, result.stderr.slice(-3000)).toBe(2);
          expect(terminated).toBeGreaterThanOrEqual(SIZES.terminations);
          expect(result.stderr).toMatch(/rolled back; retrying/);
          const report = await checkInvariants(db.sql, { sourceKeys: file.keys, exclusive: true });
          expect(report.violations).toEqual([]);
          const runs = await db.sql<{ status: string }>("SELECT status FROM load_run WHERE command = 'load'");
          expect(runs.map((r) => r.status)).toEqual(['COMPLETED']);
        } finally {
          await pool.end();
        }
      },
      FULL ? 600_000 : 120_000,
    );

    it('every value of the file reaches the database as a bind, never inside SQL text', async () => {
      const db = await fresh();
      const texts: string[] = [];
      const original = pg.Client.prototype.query;
      const recorder = function (this: pg.Client, ...args: unknown[]) {
        const first = args[0];
        texts.push(typeof first === 'string' ? first : ((first as { text?: string } | null)?.text ?? ''));
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      };
      pg.Client.prototype.query = recorder as typeof original;
      try {
        const logs = memoryLogger();
        const loader = await OrderLoader.open({ db: db.url, logger: logs.logger, env: {} });
        try {
          const report = await loader.load([
            orderFile([
              ['BIND-KEY-7f3a', '424242', '2026-07-09', '31337.77', 'XBD'],
              ["BIND-O'Q; DROP TABLE orders;--", '5', '2026-01-01', '99999999999.99', 'EUR'],
              ['BIND-BAD', '6', '2026-02-30', '1', 'EUR'],
            ]),
          ]);
          expect(report.exitCode).toBe(2);
        } finally {
          await loader.close();
        }
        expect(texts.length).toBeGreaterThan(5);
        for (const value of [
          'BIND-KEY-7f3a',
          '424242',
          '2026-07-09',
          '31337.77',
          'XBD',
          'DROP TABLE orders',
          '99999999999.99',
          'BIND-BAD',
          '2026-02-30',
        ]) {
          expect(
            texts.filter((t) => t.includes(value)),
            value,
          ).toEqual([]);
          expect(logs.text(), `log lines carry ${value}`).not.toContain(value);
        }
        expect(await db.sql('SELECT 1 FROM orders')).toHaveLength(1);
      } finally {
        pg.Client.prototype.query = original;
      }
    });

    it(
      'a password given in the URL or in ORDER_LOADER_DB_PASSWORD never appears in logs, summaries or `runs` (succeeding and failing runs)',
      async () => {
        assertBuilt();
        const db = await fresh();
        const file = await generateOrderFile(300, 41, 'PW');
        const withPassword = new URL(db.url);
        withPassword.password = SECRET; // the test server trusts local connections: the password is accepted and unused
        const outputs: string[] = [];
        for (const [args, env] of [
          [['--db', withPassword.toString()], {}],
          [['--db', db.url], { ORDER_LOADER_DB_PASSWORD: SECRET }],
        ] as Array<[string[], Record<string, string>]>) {
          for (const command of [
            ['load', file.path, '--log-level', 'debug'],
            ['load', file.path, '--json'],
            ['runs'],
            ['runs', '--json'],
            ['status'],
            ['process'],
          ]) {
            const result = await runCli([...command, ...args], { env });
            expect(result.code, `${command.join(' ')}: ${result.stderr.slice(-1000)}`).not.toBe(1);
            outputs.push(result.stdout, result.stderr);
          }
        }
        // a failing run on the same server: a database that does not exist
        const missing = new URL(withPassword.toString());
        missing.pathname = '/order_loader_survival_no_such_db';
        const failing = await runCli(['load', file.path, '--db', missing.toString()]);
        expect(failing.code).toBe(1);
        expect(humanLines(failing.stderr)).toHaveLength(1);
        outputs.push(failing.stdout, failing.stderr);
        const all = outputs.join('\n');
        expect(all).not.toContain(SECRET);
        expect(all).not.toContain(encodeURIComponent(SECRET));
        // and none in what the database keeps about runs and errors
        const kept = await db.sql<{ t: string }>(
          "SELECT coalesce(string_agg(coalesce(message, '') || coalesce(counts, '') || coalesce(file_name, ''), ' '), '') AS t FROM load_run",
        );
        expect(kept[0]?.t ?? '').not.toContain(SECRET);
      },
      FULL ? 300_000 : 120_000,
    );
  });
}
