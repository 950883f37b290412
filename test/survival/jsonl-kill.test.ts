/**
 * kill -9 during a JSON Lines load (`format: jsonl`, gzip): the file is staged by byte offsets of
 * its decompressed content, so a run killed mid-staging resumes where its last batch committed.
 * A test trigger makes each staging statement last 100 ms more so the kill lands while staging.
 * After the kills and a completing run, `orders` and the error log are the same as an
 * uninterrupted load of the same file into another database. On PGlite (no trigger can slow a
 * statement there) the CLI is held right after its second committed staging batch
 * (ORDER_LOADER_TEST_HOLD_AFTER, src/pipeline/test-hold.ts) and killed there, twice; the third run
 * resumes at the byte offset of the second run's last batch.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/files.js';
import { killTwiceThenCompare } from './kill-twice.js';
import { SURVIVAL_TARGETS, type SurvivalDb } from './targets.js';
import { checkInvariants } from '../support/invariants.js';
import {
  FULL,
  PG_ADMIN_URL,
  PG_SKIP_REASON,
  assertBuilt,
  databaseName,
  directPool,
  freshServerDb,
  loaderBackends,
  runCli,
  sleep,
  startCli,
  waitForNoBackends,
  type ServerDb,
} from './harness.js';

const ROWS = FULL ? 100_000 : 12_000;
const KILLS = 3;
const LOAD_ARGS = ['--batch-size', '1000', '--log-level', 'debug'];

const SLOW_STAGE_SQL = `
CREATE FUNCTION survival_slow_stage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM pg_sleep(0.1); RETURN NULL; END $$;
CREATE TRIGGER survival_slow_stage AFTER INSERT ON order_stage
  FOR EACH STATEMENT EXECUTE FUNCTION survival_slow_stage();`;

const PROFILE = `version: 1
format: jsonl
extra: keep
columns:
  source_key: { column: id }
  customer_id: { column: customer.id }
  order_date: { column: date }
  amount: { column: total.amount }
  currency: { column: total.currency }
`;

/** `rows` lines: every 50th a key of 1,500 lines back with another amount, every 97th not JSON, every 89th without its amount. */
function writeFiles(dir: string, rows: number): { file: string; profile: string } {
  const lines: string[] = [];
  for (let i = 1; i <= rows; i++) {
    if (i % 97 === 0) lines.push(`{"id": "BAD${i}", oops}`);
    else if (i % 89 === 0) lines.push(`{"id": "NOAMT${i}", "customer": {"id": ${i}}, "date": "2026-01-01", "total": {"currency": "EUR"}}`);
    else {
      const key = i % 50 === 0 && i > 1500 ? `J${i - 1500}` : `J${i}`;
      lines.push(
        `{"id": "${key}", "customer": {"id": ${i}}, "date": "2026-01-0${(i % 9) + 1}", "total": {"amount": ${i % 1000}.${String(i % 100).padStart(2, '0')}, "currency": "EUR"}, "seq": ${i}}`,
      );
    }
  }
  const file = join(dir, 'orders.jsonl.gz');
  writeFileSync(file, gzipSync(`${lines.join('\n')}\n`));
  const profile = join(dir, 'orders.yaml');
  writeFileSync(profile, PROFILE);
  return { file, profile };
}

const ORDERS =
  'SELECT source_key, customer_id::text, order_date::text, amount::text, currency, attributes::text FROM orders ORDER BY source_key';
const ERRORS = 'SELECT line_no::int, error_code, raw_record FROM order_bulk_error ORDER BY line_no';

if (PG_ADMIN_URL === null) {
  describe('survival: kill -9 during a JSON Lines load (server PostgreSQL)', () => {
    it.skip(PG_SKIP_REASON, () => undefined);
  });
} else {
  describe('survival: kill -9 during a JSON Lines load (server PostgreSQL)', () => {
    const dbs: ServerDb[] = [];
    afterAll(async () => {
      for (const db of dbs) await db.dispose().catch(() => undefined);
    });

    it(
      `${KILLS} SIGKILLs while staging a ${ROWS}-line gzip JSON Lines file, then the same orders and error log as an uninterrupted load`,
      async () => {
        assertBuilt();
        const { file, profile } = writeFiles(tempDir(), ROWS);
        const whole = await freshServerDb();
        const killed = await freshServerDb();
        dbs.push(whole, killed);
        const uninterrupted = await runCli(['load', '--profile', profile, file, '--db', whole.url, ...LOAD_ARGS]);
        expect(uninterrupted.code, uninterrupted.stderr.slice(-3000)).toBe(2); // the bad lines

        const pool = directPool(killed.url);
        const dbName = databaseName(killed.url);
        try {
          expect((await runCli(['init', '--db', killed.url])).code).toBe(0);
          await pool.query(SLOW_STAGE_SQL);
          let kills = 0;
          for (let attempt = 0; kills < KILLS && attempt < KILLS * 3; attempt++) {
            const run = startCli(['load', '--profile', profile, file, '--db', killed.url, ...LOAD_ARGS]);
            let staging = false;
            const deadline = Date.now() + 20_000;
            while (Date.now() < deadline && run.child.exitCode === null) {
              const backends = await loaderBackends(pool, dbName);
              if (backends.some((b) => b.state === 'active' && /order_stage/.test(b.query))) {
                staging = true;
                break;
              }
              await sleep(5);
            }
            if (staging && run.child.exitCode === null) run.child.kill('SIGKILL');
            const result = await run.done;
            if (staging && result.signal === 'SIGKILL') kills++;
            await waitForNoBackends(pool, dbName);
            const partial = await checkInvariants(killed.sql, { allowUnfinished: true });
            expect(partial.violations, `after kill ${kills}`).toEqual([]);
            if (result.code !== null && result.signal === null) break;
          }
          expect(kills).toBeGreaterThanOrEqual(2);
          await pool.query('DROP TRIGGER survival_slow_stage ON order_stage');
          const final = await runCli(['load', '--profile', profile, file, '--db', killed.url, ...LOAD_ARGS]);
          expect(final.code, final.stderr.slice(-3000)).toBe(2);
          const expected = await whole.sql(ORDERS);
          expect(expected.length).toBeGreaterThan(ROWS * 0.9);
          expect(await killed.sql(ORDERS)).toEqual(expected);
          expect(await killed.sql(ERRORS)).toEqual(await whole.sql(ERRORS));
        } finally {
          await pool.end();
        }
      },
      FULL ? 1_800_000 : 300_000,
    );
  });
}

describe.each(SURVIVAL_TARGETS.filter((t) => t.kind === 'pglite'))('survival: kill -9 during a JSON Lines load on $kind', (target) => {
  const dbs: SurvivalDb[] = [];
  afterAll(async () => {
    for (const db of dbs) await db.dispose().catch(() => undefined);
  });

  it(
    `two SIGKILLs while staging a ${ROWS}-line gzip JSON Lines file, then the same orders and error log as an uninterrupted load`,
    async () => {
      assertBuilt();
      const { file, profile } = writeFiles(tempDir(), ROWS);
      const args = (db: SurvivalDb) => ['load', '--profile', profile, file, '--db', db.url, ...LOAD_ARGS];
      const last = await killTwiceThenCompare(target, dbs, args, ROWS);
      // resumed at a byte offset, after the rows the second run committed (four batches in all)
      const resumed = last.split('\n').find((l) => l.includes('resuming load'));
      expect(resumed, last.slice(-3000)).toBeDefined();
      const at = JSON.parse(resumed ?? '{}') as { line?: unknown; byte?: unknown };
      expect(typeof at.line).toBe('number');
      expect(typeof at.byte === 'number' && at.byte > 0, resumed).toBe(true);
    },
    FULL ? 1_800_000 : 300_000,
  );
});
