/**
 * Adversarial checks of migration 014 (order_loader_process_chunk writes the rows the MERGE
 * refused for good ERROR itself; only transient refusals go back to the client):
 *  - a chunk that mixes transient refusals (55P03, 40P01, 23505, 40001), refusals for good raised
 *    by a trigger (22012, P0001) and amounts that overflow orders.amount (the refusal precheck of
 *    013 among them), processed twice: the outcome row by row, one error-log row per failed
 *    attempt with its line and load, and the same stage, orders and error log as the client's own
 *    path (ORDER_LOADER_PROCESS_IN_DATABASE=off);
 *  - an all-failing chunk whose COMMIT reply is lost: the rows the function wrote ERROR carry the
 *    chunk's batch_id, so the chunk is counted once, not claimed again nor left out of the counts;
 *  - --max-errors over an all-failing file: the run stops at the first chunk past the limit, and
 *    every row that ended ERROR is counted in the report (counted = ERROR rows = error-log rows).
 * Each test names, above it, a mutation of sql/postgres/migrations/014_refusals_in_database.sql
 * that makes it fail (verified by applying it).
 */
import { expect } from 'vitest';
import { testTargets, type TestDatabase } from '../support/databases.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, writeTestFile } from '../support/files.js';
import { openProcessingLoader } from '../support/processing-both-ways.js';
import { sameBothWays } from '../support/same-both-ways.js';
import { failingKeys } from '../support/transient-failures.js';
import { lostCommitReplies } from '../support/fault-engine.js';

const TRANSIENT = new Set(['55P03', '40P01', '23505', '40001']);
const OVERFLOWS = ['99999999999.99', '10000000000', '9999999999999999.99', '10000000000.01'];
const overflow = (i: number): string => OVERFLOWS[i % OVERFLOWS.length] ?? '10000000000';

/** 40 lines: every fourth amount overflows orders.amount, every tenth customer is 0 (VALIDATE). */
const LINES = Array.from({ length: 40 }, (_, i) => {
  const key = `R${String(i).padStart(2, '0')}`;
  const amount = i % 4 === 1 ? overflow(i) : `${i + 1}.50`;
  return `${key},${i % 10 === 7 ? 0 : i + 1},2026-05-01,${amount},EUR`;
});

/**
 * What the trigger on orders raises, by key (the first round): transient codes in the first chunk
 * (no precheck there: the chunk expects no failure) and in later ones (precheck on), codes refused
 * for good, and an overflowing amount whose key also fails transiently (the overflow wins).
 */
const FAIL_FIRST: Record<string, string> = {
  R00: '55P03',
  R02: '40P01',
  R14: '55P03',
  R16: '23505',
  R22: '40001',
  R23: '22012',
  R26: 'P0001',
  R29: '55P03', // amount overflows
  R34: '55P03',
};

async function snapshot(db: TestDatabase): Promise<unknown[]> {
  return [
    await db.sql(
      `SELECT source_key, amount::text AS amount, process_status, error_code, error_message, attempt_count,
              transient_failures, load_id::text AS load_id, line_no::text AS line_no,
              next_attempt_at IS NULL AS no_next, processed_at IS NULL AS never_processed
         FROM order_stage ORDER BY source_key`,
    ),
    await db.sql('SELECT source_key, amount::text AS amount FROM orders ORDER BY source_key'),
    await db.sql(
      `SELECT b.source_key, b.load_id::text AS load_id, b.line_no::text AS line_no, b.attempt_no, b.phase, b.error_code,
              b.error_message, s.source_key AS stage_key
         FROM order_bulk_error b LEFT JOIN order_stage s ON s.stage_id = b.stage_id
        ORDER BY b.source_key, b.attempt_no, b.phase, b.error_id`,
    ),
  ];
}

/**
 * The file loaded with the first round's failures, then a second round over the rows waiting:
 * R00 now refused for good (22012, after one transient failure), R14 healed, the others still
 * transient.
 */
async function runMixed(db: TestDatabase, inDatabase: boolean): Promise<{ reports: unknown[]; state: unknown[] }> {
  const keys = await failingKeys(db);
  for (const [key, code] of Object.entries(FAIL_FIRST)) await keys.fail(key, code);
  const loader = await openProcessingLoader(db, inDatabase);
  const reports: unknown[] = [];
  const first = await loader.load([writeTestFile(`${HEADER}\n${LINES.join('\n')}\n`)], { chunkSize: 10, workers: 1 });
  reports.push(first.process, first.exitCode);
  await keys.heal('R00');
  await keys.fail('R00', '22012');
  await keys.heal('R14');
  await db.sql("UPDATE order_stage SET next_attempt_at = now() - interval '1 second' WHERE process_status = 'RETRY_WAIT'");
  const second = await loader.process({ chunkSize: 10, workers: 1 });
  reports.push(second.process, second.exitCode);
  return { reports, state: await snapshot(db) };
}

const pgTargets = testTargets().filter((t) => t.kind !== 'oracle'); // processInDatabase is PostgreSQL's

interface StageRow {
  source_key: string;
  process_status: string;
  error_code: string | null;
  attempt_count: number;
  transient_failures: number;
  load_id: string;
  line_no: string;
  no_next: boolean;
}
interface ErrorRow {
  source_key: string;
  load_id: string;
  line_no: string;
  attempt_no: number;
  phase: string;
  error_code: string;
  stage_key: string | null;
}

forEachTarget(
  'refusals written in the database (migration 014), adversarial, on $kind',
  (target) => {
    // Fails with, in 014: the finalize call's `WHERE f.sqlstate <> ALL (coalesce(p_transient, '{}'))`
    // dropped (transient refusals written ERROR there as well: two error-log rows); `s.attempt_count + 1`
    // → `s.attempt_count`; `array_agg(s.transient_failures ...)` → `array_agg(0 ...)` (R00 keeps its
    // transient failure); the 'failed' query's `= ANY` → `<> ALL` (refused rows written twice).
    targetTest(
      'a chunk mixing transient refusals, refusals for good and overflows: row by row, and as the client’s path',
      async ({ db }) => {
        const { state } = await sameBothWays(target, db, runMixed);
        const [stage, orders, errors] = state as [StageRow[], Array<{ source_key: string }>, ErrorRow[]];
        const expected = (i: number): [string, string | null, number, number] => {
          const key = `R${String(i).padStart(2, '0')}`;
          if (i % 10 === 7) return ['ERROR', 'INVALID_CUSTOMER_ID', 1, 0]; // validateOrder's, even with an overflow (R17, R37)
          if (i % 4 === 1) return ['ERROR', '22003', 1, 0]; // overflow, whatever the trigger would say (R29)
          if (key === 'R00') return ['ERROR', '22012', 2, 1]; // transient first, then refused for good
          if (key === 'R14') return ['DONE', null, 2, 1]; // transient first, then merged (DONE keeps the count)
          const code = FAIL_FIRST[key];
          if (code === undefined) return ['DONE', null, 1, 0];
          return TRANSIENT.has(code) ? ['RETRY_WAIT', code, 2, 2] : ['ERROR', code, 1, 0];
        };
        expect(stage.map((r) => [r.source_key, r.process_status, r.error_code, r.attempt_count, r.transient_failures])).toEqual(
          LINES.map((_, i) => [`R${String(i).padStart(2, '0')}`, ...expected(i)]),
        );
        for (const r of stage) expect([r.source_key, r.no_next]).toEqual([r.source_key, r.process_status !== 'RETRY_WAIT']);
        expect(orders.map((o) => o.source_key)).toEqual(stage.filter((r) => r.process_status === 'DONE').map((r) => r.source_key));
        // one error-log row per failed attempt, numbered 1…, with the line and load of the row
        const failedAttempts = stage.flatMap((r) => {
          const attempts = r.process_status === 'DONE' ? r.attempt_count - 1 : r.attempt_count;
          return Array.from({ length: attempts }, (_, a) => [r.source_key, a + 1, r.load_id, r.line_no]);
        });
        expect(errors.map((e) => [e.source_key, e.attempt_no, e.load_id, e.line_no])).toEqual(failedAttempts);
        expect(
          errors.every((e) => e.stage_key === e.source_key && e.phase === (e.error_code.startsWith('INVALID') ? 'VALIDATE' : 'MERGE')),
        ).toBe(true);
      },
    );

    // Fails with, in 014: the finalize call's `p_batch_id` → `NULL::text` (the ERROR rows of the chunk
    // whose COMMIT reply was lost carry no batch_id: tallyBatch finds nothing, the chunk goes
    // uncounted: error 20 of 30).
    targetTest(
      'an all-failing chunk whose COMMIT reply is lost is counted once: the rows written ERROR carry its batch_id',
      async ({ db }) => {
        const lines = Array.from({ length: 30 }, (_, i) => `L${String(i).padStart(2, '0')},${i + 1},2026-05-01,${overflow(i)},EUR`);
        const { loader: stager } = await db.open();
        await stager.stage([writeTestFile(`${HEADER}\n${lines.join('\n')}\n`)]);
        let lost = 0;
        const { loader } = await db.openWith((engine) =>
          lostCommitReplies(engine, (_n, steps) => steps.has('processInDatabase') && lost++ === 0),
        );
        const report = await loader.process({ chunkSize: 10, workers: 1, retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 } });
        expect(lost).toBeGreaterThan(0);
        expect(report.process).toMatchObject({ claimed: 30, done: 0, error: 30 });
        expect(
          await db.sql(
            `SELECT count(*)::int AS n, count(DISTINCT s.batch_id)::int AS batches, max(s.attempt_count) AS a,
                  (SELECT count(*)::int FROM order_bulk_error) AS logged
             FROM order_stage s WHERE s.process_status = 'ERROR' AND s.batch_id IS NOT NULL`,
          ),
        ).toEqual([{ n: 30, batches: 3, a: 1, logged: 30 }]);
      },
    );

    // Fails with, in 014: the 'rejected' row's `v_rejected` → `0` (rows written ERROR in the database
    // uncounted: the run never reaches the limit and every row ends ERROR, the report saying 0).
    targetTest('--max-errors over an all-failing file stops at the first chunk past it, every ERROR row counted', async ({ db }) => {
      const lines = Array.from({ length: 60 }, (_, i) =>
        i % 9 === 4
          ? `M${String(i).padStart(2, '0')},${i + 1},2026-05-01,-1,EUR`
          : `M${String(i).padStart(2, '0')},${i + 1},2026-05-01,${overflow(i)},EUR`,
      );
      const { loader } = await db.open();
      const report = await loader.load([writeTestFile(`${HEADER}\n${lines.join('\n')}\n`)], { chunkSize: 10, workers: 1, maxErrors: 15 });
      expect(report.exitCode).toBe(1);
      expect(report.aborted).toContain(
        'more than --max-errors 15 rows rejected (0 line(s) rejected while staging, 20 row(s) ended ERROR while processing',
      );
      expect(report.process).toMatchObject({ chunks: 2, claimed: 20, done: 0, error: 20 });
      expect(
        await db.sql(
          `SELECT process_status, count(*)::int AS n, min(source_key) AS first, max(source_key) AS last,
                  sum((SELECT count(*) FROM order_bulk_error b WHERE b.stage_id = s.stage_id))::int AS logged
             FROM order_stage s GROUP BY process_status ORDER BY process_status`,
        ),
      ).toEqual([
        { process_status: 'ERROR', n: 20, first: 'M00', last: 'M19', logged: 20 },
        { process_status: 'READY', n: 40, first: 'M20', last: 'M59', logged: 0 },
      ]);
    });
  },
  pgTargets,
);
