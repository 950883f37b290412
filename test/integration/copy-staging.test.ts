/**
 * COPY staging (src/engine/postgres/staging.ts): a batch whose keys are all new goes into
 * order_stage as one COPY; a batch with a key already staged, or with a value the database
 * refuses, gives way to order_loader_stage_batch (with its bisection). Either way the outcome is
 * the staging rule's: the same order_stage, orders and error log as the function alone
 * (ORDER_LOADER_STAGE_COPY=off), on a file with keys repeated within and across batches, parse
 * rejects, rows staged as ERROR, a refused value, characters COPY's text format escapes, a
 * correction file and a --restage.
 */
import { expect } from 'vitest';
import type { StageBatchResult } from '../../src/engine/types.js';
import type { OrderLoader } from '../../src/index.js';
import { testTargets, type TestDatabase } from '../support/databases.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, writeTestFile } from '../support/files.js';
import { outcomeSnapshot, type OutcomeSnapshot } from '../support/outcome-snapshot.js';
import { recordingStaging } from '../support/staging-record.js';
import { sameBothWays } from '../support/same-both-ways.js';
import { withEngineSwitch } from '../support/engine-switch.js';

/** A test-only CHECK: currency 'XXX' passes the loader's parse and validation, the database refuses it while staging. */
const REFUSE = "ALTER TABLE order_stage ADD CONSTRAINT test_refuse_xxx CHECK (currency <> 'XXX')";

/** A loader over `db` with COPY staging on or off (the engine reads the switch when it opens). */
async function openLoader(db: TestDatabase, copy: boolean, seen: StageBatchResult[]): Promise<OrderLoader> {
  return withEngineSwitch('ORDER_LOADER_STAGE_COPY', copy, async () => (await db.openWith(recordingStaging(seen))).loader);
}

const FIRST = [
  'A1,1,2026-01-01,10,JPY',
  'A2,2,2026-01-01,20,JPY',
  'A3,3,2026-01-01,30,JPY',
  'A4,4,2026-01-01,40,JPY', // batch 1 (4 lines): all new → COPY
  'B1,5,2026-01-01,50,JPY',
  'B1,5,2026-01-01,51,JPY', // repeated within the batch: the last line wins
  '"B\\S",6,2026-01-01,60,JPY', // a backslash in the key (escaped in COPY's text format)
  '"T\tB",7,2026-01-01,70,JPY', // batch 2: a tab in the key
  'C1,8,2026-01-01',
  'C2,x,2026-01-01,90,JPY', // staged as ERROR (customer_id)
  'C3,10,2026-01-01,100,XXX', // refused by the database: the COPY gives way, the function refuses it alone
  'C4,11,2026-01-01,110,JPY', // batch 3: a parse reject (field count) and a refusal
  'A2,2,2026-01-01,21,JPY', // repeated across batches: a key batch 1 staged → 23505, the function updates it
  'D1,12,2026-01-01,120,JPY',
  'D2,13,2026-13-01,130,JPY', // ERROR (date)
  'D3,14,2026-01-01,99999999999999,JPY', // batch 4: ERROR in processing (overflow of orders.amount)
  'E1,15,2026-01-01,150,JPY',
  'E2,16,2026-01-01,160,JPY',
  'E3,17,2026-01-01,170,JPY',
  'E4,18,2026-01-01,180,JPY', // batch 5: new keys (COPY skipped once after the fallback, or tried again)
  'F1,19,2026-01-01,190,JPY',
  'F2,20,2026-01-01,200,JPY',
  'F3,21,2026-01-01,210,JPY',
];

const CORRECTED = [
  'C2,9,2026-01-01,90,JPY', // corrected: ERROR → READY
  'D2,13,2026-12-01,130,JPY', // corrected
  'A1,1,2026-01-01,10,JPY', // identical: untouched
  'A3,3,2026-01-01,31,JPY', // amended DONE row
  'G1,22,2026-01-01,220,JPY',
  'G2,23,2026-01-01,230,JPY',
  'G3,24,2026-01-01,240,JPY',
  'G4,25,2026-01-01,250,JPY',
];

interface Outcome extends OutcomeSnapshot {
  reports: unknown[];
}

/** The scenario: the first file, the corrections, then the first file again with --restage. */
async function runScenario(db: TestDatabase, copy: boolean, seen: StageBatchResult[]): Promise<Outcome> {
  await db.sql(REFUSE);
  const loader = await openLoader(db, copy, seen);
  const first = writeTestFile(`${HEADER}\n${FIRST.join('\n')}\n`);
  const corrected = writeTestFile(`${HEADER}\n${CORRECTED.join('\n')}\n`);
  const reports: unknown[] = [];
  for (const [file, restage] of [
    [first, false],
    [corrected, false],
    [first, true],
  ] as const) {
    const report = await loader.load([file], { batchSize: 4, restage });
    reports.push(
      report.files.map((f) => ({ counts: f.counts, tally: f.tally })),
      report.exitCode,
    );
  }
  return { reports, ...(await outcomeSnapshot(db)) };
}

// PostgreSQL only: COPY is PostgreSQL's; the Oracle engine stages every batch one way
// (test/oracle/staging.recording.test.ts), so there is no second way to compare it with.
const copyTargets = testTargets().filter((t) => t.kind !== 'oracle');

forEachTarget(
  'COPY staging on $kind',
  (target) => {
    targetTest('leaves the same stage, orders, error log and counts as order_loader_stage_batch alone', async ({ db }) => {
      const viaCopy: StageBatchResult[] = [];
      const viaFunction: StageBatchResult[] = [];
      const withCopy = await sameBothWays(target, db, (d, copy) => runScenario(d, copy, copy ? viaCopy : viaFunction));
      expect(viaFunction.map((r) => r.by)).toEqual(viaFunction.map(() => 'function'));
      // the first file: COPY; the refusal and the repeated key gave way to the function
      expect(viaCopy.slice(0, 5).map((r) => [r.by, r.copyGaveWayOn])).toEqual([
        ['copy', undefined],
        ['copy', undefined],
        ['function', '23514'],
        ['function', undefined], // skipped once after a fallback (the key was repeated anyway)
        ['copy', undefined],
      ]);
      expect(viaCopy.slice(0, 3).map((r) => r.inserted)).toEqual([4, 3, 2]);
      expect(viaCopy[2]?.refused.map((r) => r.sourceKey)).toEqual(['C3']);
      // the contents themselves, beyond being equal: what the staging rule says
      expect(withCopy.stage.find((r) => (r as { source_key: string }).source_key === 'B\\S')).toBeDefined();
      expect(withCopy.stage.find((r) => (r as { source_key: string }).source_key === 'T\tB')).toBeDefined();
      expect(withCopy.stage.find((r) => (r as { source_key: string }).source_key === 'B1')).toMatchObject({
        amount: '51.00',
        line_no: '7',
      });
      expect(withCopy.stage.find((r) => (r as { source_key: string }).source_key === 'C3')).toBeUndefined();
    });

    targetTest(
      'a batch with a key already staged (23505) gives way to the function; COPY resumes after the skipped batches',
      async ({ db }) => {
        const seen: StageBatchResult[] = [];
        const loader = await openLoader(db, true, seen);
        await loader.load([writeTestFile(`${HEADER}\nK1,1,2026-01-01,1,JPY\nK2,2,2026-01-01,2,JPY\n`)], { batchSize: 2 });
        const second = [
          'N1,3,2026-01-01,3,JPY',
          'K2,2,2026-01-01,2.5,JPY', // batch 1: K2 known → 23505 → function (N1 inserted, K2 updated); 1 batch skipped
          'K1,1,2026-01-01,1,JPY',
          'N2,4,2026-01-01,4,JPY', // batch 2: skipped → function
          'N3,5,2026-01-01,5,JPY',
          'K2,2,2026-01-01,2.5,JPY', // batch 3: 23505 again → function; now 2 batches skipped
          'N4,6,2026-01-01,6,JPY',
          'N5,7,2026-01-01,7,JPY', // batch 4: skipped
          'N6,8,2026-01-01,8,JPY',
          'N7,9,2026-01-01,9,JPY', // batch 5: skipped
          'N8,10,2026-01-01,10,JPY',
          'N9,11,2026-01-01,11,JPY', // batch 6: COPY again (the backoff halves: 1)
          'K1,1,2026-01-01,1.5,JPY',
          'NA,12,2026-01-01,12,JPY', // batch 7: 23505 → function; 2 batches skipped
          'NB,13,2026-01-01,13,JPY',
          'NC,14,2026-01-01,14,JPY', // batch 8: skipped
        ];
        const report = await loader.load([writeTestFile(`${HEADER}\n${second.join('\n')}\n`)], { batchSize: 2 });
        expect(seen.slice(1).map((r) => [r.by, r.copyGaveWayOn])).toEqual([
          ['function', '23505'],
          ['function', undefined],
          ['function', '23505'],
          ['function', undefined],
          ['function', undefined],
          ['copy', undefined],
          ['function', '23505'],
          ['function', undefined],
        ]);
        expect(report.files[0]?.counts).toMatchObject({ read: 16, inserted: 12, rejected: 0 });
        expect(report.exitCode).toBe(0);
        const stage = await db.sql<{ source_key: string; amount: string; process_status: string; attempt_count: number }>(
          'SELECT source_key, amount::text AS amount, process_status, attempt_count FROM order_stage ORDER BY stage_id',
        );
        expect(stage.map((r) => r.source_key)).toEqual([
          'K1',
          'K2',
          'N1',
          'N2',
          'N3',
          'N4',
          'N5',
          'N6',
          'N7',
          'N8',
          'N9',
          'NA',
          'NB',
          'NC',
        ]);
        expect(stage.find((r) => r.source_key === 'K2')).toMatchObject({ amount: '2.50', process_status: 'DONE', attempt_count: 2 });
        expect(stage.find((r) => r.source_key === 'K1')).toMatchObject({ amount: '1.50', process_status: 'DONE', attempt_count: 2 });
        expect(stage.every((r) => r.process_status === 'DONE')).toBe(true);
        expect(await db.sql('SELECT count(*)::int AS n FROM orders')).toEqual([{ n: 14 }]);
      },
    );
  },
  copyTargets,
);
