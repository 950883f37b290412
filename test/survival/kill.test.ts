/**
 * Survival 1: kill -9 at any instant, and SIGTERM / SIGINT.
 *
 * A generated file with bad rows mixed in is loaded by the CLI (a child process) into a fresh
 * server PostgreSQL database and SIGKILLed again and again — while staging, mid-chunk, and during
 * COMMIT (a deferred test trigger makes some chunk commits last 150 ms; the kill fires when
 * pg_stat_activity shows the loader's backend running COMMIT) — then run to completion. The
 * invariants (test/support/invariants.ts) must hold after every kill (except "nothing READY")
 * and fully at the end, with the same DONE/ERROR counts as an uninterrupted run on another
 * fresh database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareWithFile } from '../support/file-invariants.js';
import { checkInvariants, statusCounts } from '../support/invariants.js';
import {
  FULL,
  PG_SKIP_REASON,
  freshServerDb,
  type ServerDb,
  SIZES,
  assertBuilt,
  databaseName,
  directPool,
  generateOrderFile,
  loaderBackends,
  prng,
  runCli,
  sleep,
  startCli,
  waitForNoBackends,
  type GeneratedFile,
} from './harness.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const LOAD_ARGS = ['--chunk-size', '200', '--batch-size', '2000', '--log-level', 'debug'];

/** Some chunk commits take 150 ms (a deferred constraint trigger), so a kill can land inside COMMIT. */
const SLOW_COMMIT_SQL = `
CREATE FUNCTION survival_slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM pg_sleep(0.15); RETURN NULL; END $$;
CREATE CONSTRAINT TRIGGER survival_slow_commit AFTER UPDATE ON order_stage
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (NEW.process_status = 'DONE' AND OLD.process_status <> 'DONE' AND NEW.stage_id % 1999 = 0)
  EXECUTE FUNCTION survival_slow_commit();`;

if (unavailable(NEEDS.server)) {
  describe('survival: kill -9 and signals (server PostgreSQL)', () => {
    it.skip(PG_SKIP_REASON, () => undefined);
  });
} else {
  describe('survival: kill -9 and signals (server PostgreSQL)', () => {
    let file: GeneratedFile;
    let reference: { DONE: number; ERROR: number; orders: number };
    const dbs: ServerDb[] = [];
    const fresh = async () => {
      const db = await freshServerDb();
      dbs.push(db);
      return db;
    };

    beforeAll(
      async () => {
        assertBuilt();
        file = await generateOrderFile(SIZES.rows, 6);
        // the uninterrupted run, on its own fresh database
        const db = await fresh();
        const result = await runCli(['load', file.path, '--db', db.url, ...LOAD_ARGS]);
        expect(result.code, result.stderr.slice(-2000)).toBe(2);
        const report = await checkInvariants(db.sql, { sourceKeys: file.keys, exclusive: true });
        expect(report.violations).toEqual([]);
        expect(await compareWithFile(db.sql, file.path)).toEqual([]);
        reference = { DONE: report.counts.DONE, ERROR: report.counts.ERROR, orders: report.counts.orders };
        const expectedErrors = file.bad.missingAmount + file.bad.overflow + file.bad.badDate + file.bad.badCurrency;
        expect(reference).toEqual({ DONE: file.rows - expectedErrors, ERROR: expectedErrors, orders: file.rows - expectedErrors });
      },
      FULL ? 600_000 : 120_000,
    );

    afterAll(async () => {
      for (const db of dbs) await db.dispose().catch(() => undefined);
    });

    it(
      `survives ${SIZES.kills} SIGKILLs (staging, mid-chunk, during COMMIT) of a ${SIZES.rows}-row load, then completes with the uninterrupted counts`,
      async () => {
        const db = await fresh();
        const url = db.url;
        const dbName = databaseName(url);
        const pool = directPool(url);
        try {
          expect((await runCli(['init', '--db', url])).code).toBe(0);
          await pool.query(SLOW_COMMIT_SQL);
          const seed = Number(process.env.ORDER_LOADER_SURVIVAL_SEED ?? 20260601);
          const random = prng(seed);
          const modes = ['staging', 'chunk', 'commit'] as const;
          const landed: Record<(typeof modes)[number], number> = { staging: 0, chunk: 0, commit: 0 };
          let kills = 0;
          for (let attempt = 0; kills < SIZES.kills && attempt < SIZES.kills * 3; attempt++) {
            const mode = modes[attempt % modes.length] ?? 'chunk';
            // settling off: these kills aim at processing's chunks and their COMMIT, which a load that
            // settles its rows while staging mostly does not have (kills while settling: copy-kill,
            // journal-kill and the inbox kill loop)
            const run = startCli(['load', file.path, '--db', url, ...LOAD_ARGS], { env: { ORDER_LOADER_SETTLE: 'off' } });
            let armed = false;
            let inCommit = false;
            if (mode === 'staging') {
              // a rerun resumes staging after the last committed batch, or skips it once complete
              armed = await run.waitFor(/"msg":"(staging|[^"]*resuming load|[^"]*staging skipped)/);
              if (armed) await sleep(random() * 400);
            } else if (mode === 'chunk') {
              // after 1 or 2 more committed chunks, a few milliseconds into the next one
              armed = await run.waitFor(/"msg":"chunk committed"/);
              if (armed && random() < 0.5) armed = await run.waitFor(/"msg":"chunk committed"/);
              if (armed) await sleep(random() * 60);
            } else {
              // COMMIT of a chunk in progress on the server (made slow by the test trigger)
              armed = await run.waitFor(/"msg":"chunk committed"/);
              const deadline = Date.now() + 8_000;
              while (armed && Date.now() < deadline && run.child.exitCode === null) {
                const backends = await loaderBackends(pool, dbName);
                if (backends.some((b) => b.state === 'active' && /^\s*COMMIT/i.test(b.query))) {
                  inCommit = true;
                  break;
                }
                await sleep(5);
              }
            }
            if (armed && run.child.exitCode === null) run.child.kill('SIGKILL');
            const result = await run.done;
            if (result.signal === 'SIGKILL') {
              kills++;
              landed[mode === 'commit' && !inCommit ? 'chunk' : mode]++;
            }
            // Every committed state is whole: nothing half-done, whatever instant the kill hit.
            // (The last kill is followed at once by the completing run: no waiting for the server
            // to notice the dead client, as an operator would not wait either.)
            if (kills < SIZES.kills) {
              await waitForNoBackends(pool, dbName);
              const partial = await checkInvariants(db.sql, { allowUnfinished: true });
              expect(partial.violations, `after kill ${kills} (${mode}, seed ${seed})`).toEqual([]);
            }
          }
          expect(kills, `kills that landed: ${JSON.stringify(landed)}`).toBe(SIZES.kills);
          console.info(`survival: ${kills} SIGKILLs landed ${JSON.stringify(landed)} (seed ${seed})`);

          const final = await runCli(['load', file.path, '--db', url, ...LOAD_ARGS]);
          expect(final.code, final.stderr.slice(-3000)).toBe(2);
          const report = await checkInvariants(db.sql, { sourceKeys: file.keys, exclusive: true });
          expect(report.violations).toEqual([]);
          // what the file says, row by row: values, codes, attempts, error-log rows each once, every line
          expect(await compareWithFile(db.sql, file.path), `seed ${seed}`).toEqual([]);
          expect({ DONE: report.counts.DONE, ERROR: report.counts.ERROR, orders: report.counts.orders }).toEqual(reference);
        } finally {
          await pool.end();
        }
      },
      FULL ? 1_800_000 : 150_000,
    );

    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      for (const phase of ['staging', 'processing'] as const) {
        it(
          `${signal} while ${phase}: stops after the current unit of work, exit 1, run recorded FAILED "interrupted"; a rerun completes`,
          async () => {
            const db = await fresh();
            const url = db.url;
            const small = await generateOrderFile(SIZES.signalRows, signal === 'SIGTERM' ? 11 : 12, `${signal}-${phase}`);
            const run = startCli(['load', small.path, '--db', url, '--chunk-size', '500', '--batch-size', '500', '--log-level', 'debug']);
            const armed = await run.waitFor(phase === 'staging' ? /"msg":"staging"/ : /"msg":"chunk committed"/);
            expect(armed, 'the run reached the phase').toBe(true);
            run.child.kill(signal);
            const result = await run.done;
            expect(result.signal).toBeNull();
            expect(result.code, result.stderr.slice(-2000)).toBe(1);
            expect(result.stderr).toContain(`${signal}: finishing the current chunk`);
            expect(result.stderr).toMatch(/order-loader: interrupted/);
            const runs = await db.sql<{ status: string; message: string | null; command: string }>(
              'SELECT status, message, command FROM load_run ORDER BY run_id',
            );
            expect(runs).toHaveLength(1);
            expect(runs[0]?.status).toBe('FAILED');
            expect(runs[0]?.message ?? '').toMatch(/interrupted/);
            const events = await db.sql<{ event: string }>('SELECT event FROM load_run_event ORDER BY seq');
            expect(events.map((e) => e.event)).toContain('failed');
            // it stopped early: work is left for the rerun
            const partial = await checkInvariants(db.sql, { allowUnfinished: true });
            expect(partial.violations).toEqual([]);
            expect(partial.counts.DONE + partial.counts.ERROR).toBeLessThan(small.rows);

            const rerun = await runCli(['load', small.path, '--db', url]);
            expect(rerun.code, rerun.stderr.slice(-2000)).toBe(2);
            const report = await checkInvariants(db.sql, { sourceKeys: small.keys, exclusive: true });
            expect(report.violations).toEqual([]);
            expect(await compareWithFile(db.sql, small.path)).toEqual([]);
            const bad = small.bad.missingAmount + small.bad.overflow + small.bad.badDate + small.bad.badCurrency;
            expect((await statusCounts(db.sql)).ERROR).toBe(bad);
          },
          FULL ? 600_000 : 90_000,
        );
      }
    }
  });
}
