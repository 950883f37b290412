/**
 * Direct staging on a real Oracle server (npm run test:oracle; see vitest.config.ts here): a batch
 * first goes straight into order_stage as one array INSERT with batchErrors
 * (sql/oracle/queries/stage_batch_direct.sql), and only its lines the insert refused (ORA-00001:
 * a key staged already; a value or a CHECK refused) go on through the session's batch table
 * (src/engine/oracle/staging.ts). Either way the outcome is the staging rule's: the same
 * order_stage (values, statuses, loads, lines, stage_id order), orders, error log and counts as
 * the batch table alone (ORDER_LOADER_STAGE_DIRECT=off), on a file with keys repeated within and
 * across batches, parse rejects, rows staged as ERROR, a value the database refuses, a correction
 * file and a --restage: the same scenario as test/integration/copy-staging.test.ts.
 *
 * NOT RUN where it was written (no Oracle server there): the recording tests in test/oracle/
 * check what is sent and model what Oracle answers; this file is what checks the answers.
 */
import { describe, expect, it } from 'vitest';
import type { StageBatchResult } from '../../src/engine/types.js';
import type { OrderLoader } from '../../src/index.js';
import { testTargets, type TestDatabase } from '../support/databases.js';
import { HEADER, writeTestFile } from '../support/files.js';
import { recordingStaging } from '../support/staging-record.js';
import { withEngineSwitch } from '../support/engine-switch.js';

const oracle = testTargets().find((t) => t.kind === 'oracle');
const underOracleConfig = process.env.ORDER_LOADER_TEST_ORACLE_SUITE === '1';

/** A test-only CHECK: currency 'XXX' passes the loader's parse and validation, the database refuses it while staging. */
const REFUSE = "ALTER TABLE order_stage ADD CONSTRAINT test_refuse_xxx CHECK (currency <> 'XXX')";

const FIRST = [
  'A1,1,2026-01-01,10,JPY',
  'A2,2,2026-01-01,20,JPY',
  'A3,3,2026-01-01,30,JPY',
  'A4,4,2026-01-01,40,JPY', // batch 1 (4 lines): all new
  'B1,5,2026-01-01,50,JPY',
  'B1,5,2026-01-01,51,JPY', // repeated within the batch: the last line wins
  '"B\\S",6,2026-01-01,60,JPY',
  '"T\tB",7,2026-01-01,70,JPY', // batch 2
  'C1,8,2026-01-01',
  'C2,x,2026-01-01,90,JPY', // staged as ERROR (customer_id)
  'C3,10,2026-01-01,100,XXX', // refused by the CHECK: the batch table refuses it
  'C4,11,2026-01-01,110,JPY', // batch 3: a parse reject (field count) and a refusal
  'A2,2,2026-01-01,21,JPY', // repeated across batches: ORA-00001, updated through the batch table
  'D1,12,2026-01-01,120,JPY',
  'D2,13,2026-13-01,130,JPY', // ERROR (date)
  'D3,14,2026-01-01,99999999999999,JPY', // batch 4: ERROR in processing (overflow of orders.amount)
  'E1,15,2026-01-01,150,JPY',
  'E2,16,2026-01-01,160,JPY',
  'E3,17,2026-01-01,170,JPY',
  'E4,18,2026-01-01,180,JPY', // batch 5
  'F1,19,2026-01-01,190,JPY',
  'F2,20,2026-01-01,200,JPY',
  'F3,21,2026-01-01,210,JPY',
];

const CORRECTED = [
  'C2,9,2026-01-01,90,JPY', // corrected: ERROR → READY
  'D2,13,2026-12-01,130,JPY', // corrected
  'A1,1,2026-01-01,10,JPY', // identical: untouched
  'A3,3,2026-01-01,31,JPY', // amended DONE row: batch 1, every key known
  'G1,22,2026-01-01,220,JPY',
  'G2,23,2026-01-01,230,JPY',
  'G3,24,2026-01-01,240,JPY',
  'G4,25,2026-01-01,250,JPY', // batch 2: through the batch table (the batch before had only known keys)
];

/** A loader over `db` with direct staging on or off (the engine reads the switch when it is made). */
async function openLoader(db: TestDatabase, direct: boolean, seen: StageBatchResult[]): Promise<OrderLoader> {
  return withEngineSwitch('ORDER_LOADER_STAGE_DIRECT', direct, async () => (await db.openWith(recordingStaging(seen))).loader);
}

interface Outcome {
  reports: unknown[];
  stage: unknown[];
  orders: unknown[];
  errors: unknown[];
}

/** The scenario on a fresh schema: the first file, the corrections, then the first file again with --restage. */
async function runScenario(direct: boolean, seen: StageBatchResult[]): Promise<Outcome> {
  if (oracle === undefined) throw new Error('ORDER_LOADER_TEST_ORACLE is not set');
  const db: TestDatabase = await oracle.create();
  try {
    const loader = await openLoader(db, direct, seen); // migrates the dropped schema
    await db.sql(REFUSE);
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
    return {
      reports,
      // stage_ids themselves differ (a refused direct insert takes an identity value); their order may not
      stage: await db.sql(
        `SELECT source_key, TO_CHAR(customer_id) AS customer_id, TO_CHAR(order_date, 'YYYY-MM-DD') AS order_date,
                TO_CHAR(amount, 'FM99999999999999990.00') AS amount, currency, process_status, error_code, error_message,
                attempt_count, transient_failures, DENSE_RANK() OVER (ORDER BY load_id) AS load_rank, line_no,
                CASE WHEN next_attempt_at IS NULL THEN 1 ELSE 0 END AS no_next,
                CASE WHEN batch_id IS NULL THEN 1 ELSE 0 END AS no_batch,
                ROW_NUMBER() OVER (ORDER BY stage_id) AS position
           FROM order_stage ORDER BY source_key`,
      ),
      orders: await db.sql(
        `SELECT source_key, TO_CHAR(customer_id) AS c, TO_CHAR(order_date, 'YYYY-MM-DD') AS d,
                TO_CHAR(amount, 'FM9999999999990.00') AS a, currency
           FROM orders ORDER BY source_key`,
      ),
      errors: await db.sql(
        `SELECT b.source_key, b.line_no, b.attempt_no, b.phase, b.error_code, b.error_message, b.raw_record,
                s.source_key AS stage_key
           FROM order_bulk_error b LEFT JOIN order_stage s ON s.stage_id = b.stage_id
          ORDER BY b.error_id`,
      ),
    };
  } finally {
    await db.dispose();
  }
}

describe.skipIf(oracle === undefined || !underOracleConfig)('direct staging on oracle (a real server: npm run test:oracle)', () => {
  it('leaves the same order_stage, orders, error log and counts as the batch table alone (ORDER_LOADER_STAGE_DIRECT=off)', async () => {
    const viaDirect: StageBatchResult[] = [];
    const withDirect = await runScenario(true, viaDirect);
    const viaTable: StageBatchResult[] = [];
    const alone = await runScenario(false, viaTable);
    expect(withDirect).toEqual(alone);
    expect(viaTable.map((r) => r.by)).toEqual(viaTable.map(() => 'batch-table'));
    // the first file: every batch direct; the refused C3 and the known A2 went on through the batch table
    expect(viaDirect.slice(0, 6).map((r) => [r.by, r.fellBack, r.inserted])).toEqual([
      ['direct', 0, 4],
      ['direct', 0, 3],
      ['direct', 1, 2],
      ['direct', 1, 3],
      ['direct', 0, 4],
      ['direct', 0, 3],
    ]);
    expect(viaDirect[2]?.refused.map((r) => [r.sourceKey, r.code])).toEqual([['C3', 'ORA-02290']]);
    // the corrections: every key of the first batch known (ORA-00001 each); the next batch through the batch table
    expect(viaDirect.slice(6, 8).map((r) => [r.by, r.fellBack, r.inserted, r.updated, r.unchanged])).toEqual([
      ['direct', 4, 0, 3, 1],
      ['batch-table', undefined, 4, 0, 0],
    ]);
    // what the staging rule says, beyond being equal
    const stage = withDirect.stage as { source_key: string; amount: string | null; line_no: number; position: number }[];
    expect(stage.find((r) => r.source_key === 'B1')).toMatchObject({ amount: '51.00', line_no: 7 });
    expect(stage.find((r) => r.source_key === 'C3')).toBeUndefined();
    // stage_id follows the first file's lines
    const first = ['A1', 'A2', 'A3', 'A4', 'B1', 'B\\S', 'T\tB', 'C2', 'C4', 'D1', 'D2', 'D3', 'E1', 'E2', 'E3', 'E4', 'F1', 'F2', 'F3'];
    expect(first.map((key) => stage.find((r) => r.source_key === key)?.position)).toEqual(first.map((_, i) => i + 1));
  });
});
