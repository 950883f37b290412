/**
 * kill -9 during an xlsx load (`format: xlsx`), on PGlite and on server PostgreSQL (when
 * ORDER_LOADER_TEST_PG is set). A workbook has no byte offsets: a resumed load reads the sheet
 * again and passes over the rows its committed batches hold. The CLI is held right after its
 * second committed staging batch (ORDER_LOADER_TEST_HOLD_AFTER, src/pipeline/test-hold.ts) and
 * killed there, and the resumed run is killed the same way; a third run completes. `orders` and
 * the error log are then the same as an uninterrupted load of the workbook into another database,
 * and no rejected row is logged twice.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/files.js';
import { workbookBytes, type SheetCell } from '../support/xlsx.js';
import { FULL, assertBuilt } from './harness.js';
import { killTwiceThenCompare } from './kill-twice.js';
import { SURVIVAL_TARGETS, type SurvivalDb } from './targets.js';

const ROWS = FULL ? 60_000 : 6_000;
const LOAD_ARGS = ['--batch-size', '500', '--log-level', 'debug'];

const PROFILE = `version: 1
format: xlsx
sheet: Orders
extra: keep
columns:
  source_key: { column: Key }
  customer_id: { column: Customer }
  order_date: { column: Date }
  amount: { column: Amount }
  currency: { column: E }
`;

/** `rows` rows: every 50th a key of 1,500 rows back with another amount, every 97th an error cell, every 89th an empty row. */
async function writeFiles(dir: string, rows: number): Promise<{ file: string; profile: string }> {
  const sheet: SheetCell[][] = [['Key', 'Customer', 'Date', 'Amount', 'Currency', 'Seq']];
  for (let i = 1; i <= rows; i++) {
    if (i % 89 === 0) sheet.push([]);
    else {
      const key = i % 50 === 0 && i > 1500 ? `X${i - 1500}` : `X${i}`;
      const amount: SheetCell = i % 97 === 0 ? { error: '#VALUE!' } : (i % 1000) + (i % 100) / 100;
      sheet.push([key, i, { value: 46357 + (i % 9), numFmt: 'yyyy-mm-dd' }, amount, 'EUR', i]);
    }
  }
  const file = join(dir, 'orders.xlsx');
  writeFileSync(
    file,
    await workbookBytes([
      { name: 'Cover', rows: [['orders on the next sheet']] },
      { name: 'Orders', rows: sheet },
    ]),
  );
  const profile = join(dir, 'orders.yaml');
  writeFileSync(profile, PROFILE);
  return { file, profile };
}

describe.each(SURVIVAL_TARGETS)('survival: kill -9 during an xlsx load on $kind', (target) => {
  const dbs: SurvivalDb[] = [];
  afterAll(async () => {
    for (const db of dbs) await db.dispose().catch(() => undefined);
  });

  it(
    `two SIGKILLs while staging a ${ROWS}-row sheet, then the same orders and error log as an uninterrupted load`,
    async () => {
      assertBuilt();
      const { file, profile } = await writeFiles(tempDir(), ROWS);
      const args = (db: SurvivalDb) => ['load', '--profile', profile, file, '--db', db.url, ...LOAD_ARGS];
      const last = await killTwiceThenCompare(target, dbs, args, ROWS);
      // the third run resumed the load after the rows the second one committed (four batches in all)
      expect(last).toMatch(/resuming load \d+ after line \d+/);
    },
    FULL ? 1_800_000 : 300_000,
  );
});
