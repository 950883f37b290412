/**
 * The kill test of a reader (xlsx-kill, jsonl-kill): its load killed twice, each time right after
 * its second committed staging batch, then run to its end; `orders` and the error log must then be
 * the same as the same load uninterrupted into another database.
 */
import { expect } from 'vitest';
import { checkInvariants } from '../support/invariants.js';
import { killAfterSecondBatch, runCli } from './harness.js';
import type { SurvivalDb, SurvivalTarget } from './targets.js';

const ORDERS =
  'SELECT source_key, customer_id::text, order_date::text, amount::text, currency, attributes::text FROM orders ORDER BY source_key';
const ERRORS = 'SELECT line_no::int, error_code, raw_record FROM order_bulk_error ORDER BY line_no';

/**
 * `args`: the load of the file into a database (it rejects some lines: exit 2); `rows`: the
 * file's. The databases made are pushed to `dbs`. Returns the last run's stderr (where it resumed).
 */
export async function killTwiceThenCompare(
  target: SurvivalTarget,
  dbs: SurvivalDb[],
  args: (db: SurvivalDb) => string[],
  rows: number,
): Promise<string> {
  const whole = await target.create();
  const killed = await target.create();
  dbs.push(whole, killed);
  const uninterrupted = await runCli(args(whole));
  expect(uninterrupted.code, uninterrupted.stderr.slice(-3000)).toBe(2);

  await killAfterSecondBatch(args(killed));
  const partial = await killed.withSql((sql) => checkInvariants(sql, { allowUnfinished: true }));
  expect(partial.violations).toEqual([]);
  await killAfterSecondBatch(args(killed));
  const final = await runCli(args(killed));
  expect(final.code, final.stderr.slice(-3000)).toBe(2);

  const expected = await whole.withSql((sql) => sql(ORDERS));
  expect(expected.length).toBeGreaterThan(rows * 0.9);
  expect(await killed.withSql((sql) => sql(ORDERS))).toEqual(expected);
  expect(await killed.withSql((sql) => sql(ERRORS))).toEqual(await whole.withSql((sql) => sql(ERRORS)));
  return final.stderr;
}
