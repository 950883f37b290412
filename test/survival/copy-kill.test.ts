/**
 * kill -9 while a staging batch is being COPYed into order_stage (src/engine/postgres/staging.ts).
 * A test trigger makes every INSERT statement on order_stage last 100 ms more, so that the kill,
 * fired when pg_stat_activity shows the loader's backend running the COPY, lands inside it. The
 * file repeats keys across batches (their COPY gives way to the function) and has parse rejects.
 * After each kill the committed state is whole; the last run completes, and every line of the
 * file is accounted for, with what the file says row by row (test/support/file-invariants.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareWithFile } from '../support/file-invariants.js';
import { tempDir } from '../support/files.js';
import { checkInvariants } from '../support/invariants.js';
import {
  FULL,
  PG_ADMIN_URL,
  PG_SKIP_REASON,
  SIZES,
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

const LOAD_ARGS = ['--batch-size', '1000', '--log-level', 'debug'];

const SLOW_INSERT_SQL = `
CREATE FUNCTION survival_slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM pg_sleep(0.1); RETURN NULL; END $$;
CREATE TRIGGER survival_slow_insert AFTER INSERT ON order_stage
  FOR EACH STATEMENT EXECUTE FUNCTION survival_slow_insert();`;

/** `rows` lines: new keys, every 40th line a key of an earlier batch with another amount, every 97th a parse reject. */
function writeFile(dir: string, rows: number): { path: string; keys: Set<string> } {
  const lines = ['source_key,customer_id,order_date,amount,currency'];
  const keys = new Set<string>();
  for (let i = 1; i <= rows; i++) {
    if (i % 97 === 0) {
      lines.push(`BAD${i},${i},2026-01-01`); // field count: rejected, no stage row
    } else if (i % 40 === 0 && i > 2000) {
      // a key of a batch 1.5 batches back (or, where that line was a reject, a key first seen here)
      const earlier = `K${String(i - 1500).padStart(7, '0')}`;
      keys.add(earlier);
      lines.push(`${earlier},${i},2026-01-02,${i}.25,JPY`);
    } else {
      const key = `K${String(i).padStart(7, '0')}`;
      keys.add(key);
      lines.push(`${key},${i},2026-01-01,${(i % 1000) + 1}.00,JPY`);
    }
  }
  const path = join(dir, 'copy-kill.csv');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return { path, keys };
}

if (PG_ADMIN_URL === null) {
  describe('survival: kill -9 during COPY staging (server PostgreSQL)', () => {
    it.skip(PG_SKIP_REASON, () => undefined);
  });
} else {
  describe('survival: kill -9 during COPY staging (server PostgreSQL)', () => {
    const dbs: ServerDb[] = [];
    afterAll(async () => {
      for (const db of dbs) await db.dispose().catch(() => undefined);
    });

    it(
      `survives ${SIZES.kills} SIGKILLs inside a staging COPY, then accounts for every line`,
      async () => {
        assertBuilt();
        const file = writeFile(tempDir(), SIZES.rows);
        const db = await freshServerDb();
        dbs.push(db);
        const pool = directPool(db.url);
        const dbName = databaseName(db.url);
        try {
          expect((await runCli(['init', '--db', db.url])).code).toBe(0);
          await pool.query(SLOW_INSERT_SQL);
          let kills = 0;
          for (let attempt = 0; kills < SIZES.kills && attempt < SIZES.kills * 3; attempt++) {
            const run = startCli(['load', file.path, '--db', db.url, ...LOAD_ARGS]);
            let inCopy = false;
            const deadline = Date.now() + 20_000;
            while (Date.now() < deadline && run.child.exitCode === null) {
              const backends = await loaderBackends(pool, dbName);
              if (backends.some((b) => b.state === 'active' && /COPY order_stage/.test(b.query))) {
                inCopy = true;
                break;
              }
              await sleep(5);
            }
            if (inCopy && run.child.exitCode === null) run.child.kill('SIGKILL');
            const result = await run.done;
            if (inCopy && result.signal === 'SIGKILL') kills++;
            await waitForNoBackends(pool, dbName);
            const partial = await checkInvariants(db.sql, { allowUnfinished: true });
            expect(partial.violations, `after kill ${kills}`).toEqual([]);
            // a load can finish before a COPY is seen (the last batches gave way to the function)
            if (result.code !== null && result.signal === null) break;
          }
          expect(kills).toBeGreaterThanOrEqual(Math.min(3, SIZES.kills));
          console.info(`survival: ${kills} SIGKILLs inside a staging COPY`);
          const final = await runCli(['load', file.path, '--db', db.url, ...LOAD_ARGS]);
          expect(final.code, final.stderr.slice(-3000)).toBe(2); // the parse rejects
          const report = await checkInvariants(db.sql, { sourceKeys: file.keys, exclusive: true });
          expect(report.violations).toEqual([]);
          expect(await compareWithFile(db.sql, file.path)).toEqual([]);
          expect(report.counts.DONE).toBe(file.keys.size);
        } finally {
          await pool.end();
        }
      },
      FULL ? 1_800_000 : 300_000,
    );
  });
}
