/**
 * A row the database refuses while staging is rejected alone, like a parse reject: its line
 * and raw text in the error log, counted in `rejected`, in the checkpoints and in --max-errors;
 * the rest of its batch is staged. The refusal comes from a test-only CHECK constraint on
 * order_stage (currency 'XXX' passes the loader's parse and validation).
 */
import { expect } from 'vitest';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, writeTestFile } from '../support/files.js';
import { constraintViolationCode, namesConstraint } from '../support/engine-expect.js';

// currency <> 'XXX', not IS DISTINCT FROM (which Oracle 19c/21c do not have): a CHECK passes a NULL either way
const REFUSE = "ALTER TABLE order_stage ADD CONSTRAINT test_refuse_xxx CHECK (currency <> 'XXX')";

forEachTarget('a row the database refuses while staging on $kind', (target) => {
  // 23514 on PostgreSQL, ORA-02290 on Oracle
  const refused = constraintViolationCode(target.kind, 'check');
  targetTest('is rejected with its line and raw text; the rest of its batch is staged, in line order', async ({ db }) => {
    await db.sql(REFUSE);
    const { loader } = await db.open();
    const lines = [
      'R1,1,2026-01-01,10,JPY',
      'R2,2,2026-01-01,20,XXX', // refused
      'R3,3,2026-01-01,30,JPY',
      'R4,4,2026-01-01', // parse reject (field count): no stage row
      'R5,5,2026-01-01,50,XXX', // refused
      'R6,6,2026-01-01,60,XXX', // refused
      'R7,7,2026-01-01,70,JPY',
    ];
    const path = writeTestFile(`${HEADER}\n${lines.join('\n')}\n`);
    const report = await loader.load([path], { batchSize: 4 });
    expect(report.aborted).toBeNull();
    expect(report.files[0]?.counts).toMatchObject({ read: 7, inserted: 3, rejected: 4, duplicates: 0 });
    const staged = await db.sql<{ source_key: string; line_no: string | number }>(
      'SELECT source_key, line_no FROM order_stage ORDER BY stage_id',
    );
    expect(staged.map((r) => [r.source_key, Number(r.line_no)])).toEqual([
      ['R1', 2],
      ['R3', 4],
      ['R7', 8],
    ]);
    const logged = await db.sql<{
      line_no: string | number;
      source_key: string | null;
      phase: string;
      error_code: string;
      error_message: string;
      raw_record: string;
      stage_id: unknown;
    }>('SELECT line_no, source_key, phase, error_code, error_message, raw_record, stage_id FROM order_bulk_error ORDER BY error_id');
    expect(logged.map((r) => [Number(r.line_no), r.source_key, r.phase, r.error_code, r.raw_record, r.stage_id])).toEqual([
      [3, 'R2', 'PARSE', refused, lines[1], null],
      [5, null, 'PARSE', expect.any(String), lines[3], null],
      [6, 'R5', 'PARSE', refused, lines[4], null],
      [7, 'R6', 'PARSE', refused, lines[5], null],
    ]);
    for (const r of logged.filter((l) => l.error_code === refused)) {
      expect(namesConstraint(r.error_message, 'test_refuse_xxx'), r.error_message).toBe(true);
      // the failing row's values (PostgreSQL's DETAIL "Failing row contains (…, XXX)") are not
      // logged: its refused currency appears nowhere but in the constraint's own name, which
      // Oracle's message carries in upper case with its schema (LOADER.TEST_REFUSE_XXX)
      expect(r.error_message.replace(/test_refuse_xxx/gi, ''), r.error_message).not.toMatch(/XXX|Failing row/i);
    }
    // each checkpoint carries the counts with the refusals, as with parse rejects
    const checkpoints = await db.sql<{ detail: unknown }>(
      "SELECT detail FROM load_run_event WHERE event = 'staged_checkpoint' ORDER BY run_id, seq",
    );
    const counts = checkpoints.map(
      (c) => (typeof c.detail === 'string' ? JSON.parse(c.detail) : c.detail) as { counts: { rejected: number }; line: number },
    );
    expect(counts.map((c) => [c.line, c.counts.rejected])).toEqual([
      [5, 2],
      [8, 4],
    ]);
  });

  targetTest('counts toward --max-errors like a parse reject', async ({ db }) => {
    await db.sql(REFUSE);
    const { loader } = await db.open();
    const path = writeTestFile(`${HEADER}\nA1,1,2026-01-01,10,XXX\nA2,2,2026-01-01,20,XXX\nA3,3,2026-01-01,30,JPY\n`);
    const report = await loader.load([path], { maxErrors: 1 });
    expect(report.exitCode).toBe(1);
    expect(report.aborted).not.toBeNull();
    expect(report.files[0]?.counts).toMatchObject({ read: 3, inserted: 1, rejected: 2 });
    const again = await loader.load([path], { maxErrors: 2 });
    expect(again.aborted).toBeNull();
  });

  targetTest('a refused row that updates an existing key leaves the stored row as it was', async ({ db }) => {
    const { loader } = await db.open();
    await loader.load([writeTestFile(`${HEADER}\nU1,1,2026-01-01,10,JPY\nU2,2,2026-01-01,20,JPY\n`)], { batchSize: 10 });
    await db.sql(REFUSE);
    const report = await loader.load([writeTestFile(`${HEADER}\nU1,1,2026-01-01,11,XXX\nU2,2,2026-01-01,21,JPY\n`)], { batchSize: 10 });
    expect(report.files[0]?.counts).toMatchObject({ read: 2, updated: 1, rejected: 1 });
    expect(await db.sql('SELECT source_key, amount::text AS amount, currency FROM order_stage ORDER BY stage_id')).toEqual([
      { source_key: 'U1', amount: '10.00', currency: 'JPY' },
      { source_key: 'U2', amount: '21.00', currency: 'JPY' },
    ]);
  });
});
