/**
 * A line the database refuses while staging drops alone, as a line the reader rejects does: the
 * key's earlier line that reached the stage stays its stage row (and its order), whatever the
 * batch size, in the same batch as the refused line or an earlier one, in the same file or an
 * earlier file of the run. The refusal comes from a CHECK of the site's own on order_stage
 * (docs/operations.md: the documented way to add a rule), currency 'XXX' passing the loader's
 * parse and validation.
 */
import { expect } from 'vitest';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, writeTestFile } from '../support/files.js';
import { constraintViolationCode } from '../support/engine-expect.js';
import type { TestDatabase } from '../support/databases.js';

const REFUSE = "ALTER TABLE order_stage ADD CONSTRAINT test_refuse_xxx CHECK (currency <> 'XXX')";

const BATCH_SIZES = [1, 2, 3, 1000];

// The file first (K: 10, 20, then 12.50 refused), then keys whose refused lines share a
// batch with their last valid one at other batch sizes: each size below puts at least one key's
// refused line in the batch of the line that must stay.
const LINES = [
  'K,1,2026-01-01,10,JPY', // line 2
  'F1,2,2026-01-01,5,JPY', // line 3
  'K,3,2026-01-01,20,JPY', // line 4: K's last line the database takes
  'K,4,2026-01-01,12.50,XXX', // line 5: refused (with line 4 in one batch of 2)
  'N,5,2026-01-01,7,JPY', // line 6: N's last line the database takes
  'N,6,2026-01-01,70,XXX', // line 7: refused (with line 6 in one batch of 2 or 3)
  'M,7,2026-01-01,8,JPY', // line 8
  'M,8,2026-02-30,9,JPY', // line 9: a parse error, staged ERROR: M's last line that reaches the stage
  'M,9,2026-01-01,90,XXX', // line 10: refused (with lines 8 and 9 in one batch of 3)
  'N,10,2026-01-01,71,XXX', // line 11: refused again
];

async function state(db: TestDatabase) {
  const orders = await db.sql<{ source_key: string; amount: string }>('SELECT source_key, amount FROM orders ORDER BY source_key');
  const stage = await db.sql<{ source_key: string; process_status: string; line_no: string | number; amount: string | null }>(
    'SELECT source_key, process_status, line_no, amount FROM order_stage ORDER BY source_key',
  );
  const errors = await db.sql<{
    line_no: string | number;
    source_key: string | null;
    phase: string;
    error_code: string;
    raw_record: string;
  }>('SELECT line_no, source_key, phase, error_code, raw_record FROM order_bulk_error ORDER BY line_no, error_id');
  return {
    orders: orders.map((r) => [r.source_key, Number(r.amount)]),
    stage: stage.map((r) => [r.source_key, r.process_status, Number(r.line_no), r.amount === null ? null : Number(r.amount)]),
    errors: errors.map((r) => [Number(r.line_no), r.source_key, r.phase, r.error_code, r.raw_record]),
  };
}

forEachTarget('a line the database refuses while staging on $kind', (target) => {
  const refused = constraintViolationCode(target.kind, 'check');
  for (const batchSize of BATCH_SIZES) {
    targetTest(`drops alone: the key keeps its last line the database took (--batch-size ${batchSize})`, async ({ db }) => {
      await db.sql(REFUSE);
      const { loader } = await db.open();
      const report = await loader.load([writeTestFile(`${HEADER}\n${LINES.join('\n')}\n`)], { batchSize });
      expect(report.aborted).toBeNull();
      // K's line 2 and M's line 8 overridden by a line that was staged; four lines refused, one parse error
      expect(report.files[0]?.counts).toMatchObject({ read: 10, rejected: 5, duplicates: 2 });
      expect(await state(db)).toEqual({
        orders: [
          ['F1', 5],
          ['K', 20],
          ['N', 7],
        ],
        stage: [
          ['F1', 'DONE', 3, 5],
          ['K', 'DONE', 4, 20],
          ['M', 'ERROR', 9, null],
          ['N', 'DONE', 6, 7],
        ],
        errors: [
          [5, 'K', 'PARSE', refused, LINES[3]],
          [7, 'N', 'PARSE', refused, LINES[5]],
          [9, 'M', 'PARSE', 'PARSE_ORDER_DATE', LINES[7]],
          [10, 'M', 'PARSE', refused, LINES[8]],
          [11, 'N', 'PARSE', refused, LINES[9]],
        ],
      });
    });
  }

  targetTest('a refused last line in a later file of the run: the earlier file line stays the key’s', async ({ db }) => {
    await db.sql(REFUSE);
    const { loader } = await db.open();
    const a = writeTestFile(`${HEADER}\nK,1,2026-01-01,100,JPY\nL,2,2026-01-01,1,JPY\n`, 'a.csv');
    const b = writeTestFile(`${HEADER}\nK,3,2026-01-01,200,JPY\nK,4,2026-01-01,300,XXX\nL,5,2026-01-01,2,XXX\n`, 'b.csv');
    const report = await loader.load([a, b], { batchSize: 2 });
    expect(report.aborted).toBeNull();
    const s = await state(db);
    expect(s.orders).toEqual([
      ['K', 200],
      ['L', 1],
    ]);
    expect(s.errors.map((e) => e.slice(0, 4))).toEqual([
      [3, 'K', 'PARSE', refused],
      [4, 'L', 'PARSE', refused],
    ]);
  });
});
