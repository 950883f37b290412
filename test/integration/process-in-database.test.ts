/**
 * Processing in the database (order_loader_process_chunk, migration 012; ChunkTx.processInDatabase):
 * the function merges and marks DONE the rows whose stored values plainly meet the business rules,
 * and returns every other row for validateOrder and every row the MERGE refused. The outcome must
 * be the one of the client's own path (ORDER_LOADER_PROCESS_IN_DATABASE=off: claim, validateOrder,
 * MERGE, finalize): the same order_stage, orders, error log and counts, on files with every kind of
 * validation failure, a database refusal, a correction and a retry; and, for values only an
 * operator's SQL can put in order_stage (a customer 0, a date before 1900 or of five digits,
 * 'infinity', NaN, a lower-case or accented currency), the same judgement of each value.
 */
import { expect } from 'vitest';
import { testTargets, type TestDatabase } from '../support/databases.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, writeTestFile } from '../support/files.js';
import { outcomeSnapshot, type OutcomeSnapshot } from '../support/outcome-snapshot.js';
import { openProcessingLoader } from '../support/processing-both-ways.js';
import { sameBothWays } from '../support/same-both-ways.js';

const FIRST = [
  'A1,1,2026-01-01,10,JPY',
  'A2,0,2026-01-01,20,JPY', // VALIDATE: customer_id 0
  'A3,3,2026-01-01,-30,JPY', // VALIDATE: negative amount
  'A4,4,2026-01-01,40,yen', // VALIDATE: currency
  'A5,5,2026-01-01,,JPY', // VALIDATE: amount missing
  'A6,6,,60,JPY', // VALIDATE: order_date missing
  'A7,,2026-01-01,70,JPY', // VALIDATE: customer_id missing
  'A8,8,2026-01-01,80,', // VALIDATE: currency missing
  'A9,9,2026-01-01,0,EUR', // DONE: zero is an amount
  'B1,10,1900-01-01,100,USD', // DONE: the first date
  'B2,11,9999-12-31,110,USD', // DONE: the last
  'B3,12,2026-01-01,99999999999999,JPY', // MERGE: overflow of orders.amount
  'B4,13,2026-01-01,130,EU', // VALIDATE: two letters
  'B5,x,2026-01-01,140,JPY', // staged as ERROR (parse), never claimed
  'B6,15,2026-01-01,150.5,CHF',
  'B7,0,2026-01-01,-1,jp', // VALIDATE: three problems at once
];

const CORRECTED = [
  'A2,2,2026-01-01,20,JPY',
  'A3,3,2026-01-01,30,JPY',
  'B3,12,2026-01-01,999,JPY',
  'B4,13,2026-01-01,130,EUR',
  'A1,1,2026-01-01,11,JPY', // an amendment of a DONE row
];

interface Outcome extends OutcomeSnapshot {
  reports: unknown[];
}

/** The first file, the corrections, then a retry of every ERROR row (the overflow's row is corrected by then). */
async function runScenario(db: TestDatabase, inDatabase: boolean): Promise<Outcome> {
  const loader = await openProcessingLoader(db, inDatabase);
  const reports: unknown[] = [];
  for (const lines of [FIRST, CORRECTED]) {
    // not settled while staging: on a server, how many batches settle depends on when processing
    // runs dry (a timing), and settled rows would not go through the two paths compared here
    const report = await loader.load([writeTestFile(`${HEADER}\n${lines.join('\n')}\n`)], { chunkSize: 5, settleWhileStaging: false });
    reports.push(
      report.files.map((f) => ({ counts: f.counts, tally: f.tally })),
      report.process,
      report.exitCode,
    );
  }
  // a retry with a correction (A4's currency), and one without (B7 stays wrong)
  for (const [key, corrections] of [
    ['A4', { currency: 'JPY' }],
    ['B7', {}],
  ] as const) {
    const retried = await loader.retry(
      { selector: { sourceKeys: [key] }, all: false, corrections, reason: 'test', operator: 'test', dryRun: false },
      { chunkSize: 5 },
    );
    reports.push(retried.retry.count, retried.process?.process);
  }
  return { reports, ...(await outcomeSnapshot(db)) };
}

/** One stage row per value an operator could set with SQL: each column of a valid row varied alone. */
const EDGES: Array<[column: 'customer_id' | 'order_date' | 'amount' | 'currency', value: string]> = [
  ['customer_id', '0'],
  ['customer_id', '-1'],
  ['customer_id', '9223372036854775807'],
  ['customer_id', 'NULL'],
  ['order_date', "'1900-01-01'"],
  ['order_date', "'1899-12-31'"],
  ['order_date', "'9999-12-31'"],
  ['order_date', "'10000-01-01'"],
  ['order_date', "'infinity'"],
  ['order_date', "'-infinity'"],
  ['order_date', "'1990-01-01 BC'"],
  ['amount', '0'],
  ['amount', '-0.01'],
  ['amount', "'NaN'"],
  ['amount', '9999999999999999.99'],
  ['amount', '0.5'],
  ['currency', "'usd'"],
  ['currency', "'ÀBC'"],
  ['currency', "'AB'"],
  ['currency', "'A C'"],
  ['currency', "''"],
  ['currency', "'ABC'"],
];

async function runEdges(db: TestDatabase, inDatabase: boolean): Promise<unknown[]> {
  const loader = await openProcessingLoader(db, inDatabase);
  const base = { customer_id: '7', order_date: "'2026-01-01'", amount: '10', currency: "'JPY'" };
  for (const [i, [column, value]] of EDGES.entries()) {
    const v = { ...base, [column]: value };
    await db.sql(
      `INSERT INTO order_stage (source_key, customer_id, order_date, amount, currency, load_id, line_no)
       VALUES ('E${String(i).padStart(2, '0')}', ${v.customer_id}, ${v.order_date}, ${v.amount}, ${v.currency}, NULL, ${i + 2})`,
    );
  }
  const processed = await loader.process({ chunkSize: 7 });
  const rows = await db.sql(
    `SELECT source_key, process_status, error_code, error_message, attempt_count
       FROM order_stage ORDER BY source_key`,
  );
  return [processed.process, rows, (await outcomeSnapshot(db)).errors];
}

// PostgreSQL's order_loader_process_chunk against its client path; Oracle's block (process_rows.sql) against its own
// client path is test/oracle/process-in-database.recording.test.ts
const pgTargets = testTargets().filter((t) => t.kind !== 'oracle');

forEachTarget(
  'processing in the database on $kind',
  (target) => {
    targetTest('leaves the same stage, orders, error log and counts as the client’s own path', async ({ db }) => {
      const inDatabase = await sameBothWays(target, db, runScenario);
      // and the outcome is the rules': what each line should give
      const stage = inDatabase.stage as Array<{
        source_key: string;
        process_status: string;
        error_code: string | null;
        attempt_count: number;
      }>;
      const status = Object.fromEntries(stage.map((r) => [r.source_key, [r.process_status, r.error_code, r.attempt_count]]));
      expect(status).toMatchObject({
        A1: ['DONE', null, 2],
        A2: ['DONE', null, 2],
        A3: ['DONE', null, 2],
        A4: ['DONE', null, 2],
        A9: ['DONE', null, 1],
        B1: ['DONE', null, 1],
        B2: ['DONE', null, 1],
        B3: ['DONE', null, 2],
        B4: ['DONE', null, 2],
        B6: ['DONE', null, 1],
      });
      expect(status.B5?.[0]).toBe('ERROR');
      expect(status.B7).toEqual(['ERROR', 'INVALID_CUSTOMER_ID', 2]);
    });

    targetTest('judges values set by SQL as validateOrder does, value by value', async ({ db }) => {
      const inDatabase = await sameBothWays(target, db, runEdges);
      const rows = inDatabase[1] as Array<{ source_key: string; process_status: string; error_code: string | null }>;
      const done = rows.filter((r) => r.process_status === 'DONE').map((r) => EDGES[Number(r.source_key.slice(1))]);
      // what the business rules accept of these; every other value ends ERROR by VALIDATE, or by the MERGE
      expect(done).toEqual([
        ['customer_id', '9223372036854775807'],
        ['order_date', "'1900-01-01'"],
        ['order_date', "'9999-12-31'"],
        ['amount', '0'],
        ['amount', '0.5'],
        ['currency', "'ABC'"],
      ]);
      const failed = rows.filter((r) => r.process_status !== 'DONE');
      expect(failed.map((r) => [r.source_key, r.process_status, r.error_code?.slice(0, 8)])).toEqual(
        // the largest amount the stage holds is too large for orders.amount: the MERGE refuses it
        failed.map((r) => [r.source_key, 'ERROR', r.source_key === 'E14' ? '22003' : 'INVALID_']),
      );
    });
  },
  pgTargets,
);
