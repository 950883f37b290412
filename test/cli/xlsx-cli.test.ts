/**
 * xlsx workbooks (`format: xlsx`) through the CLI on PGlite and on server PostgreSQL (when
 * ORDER_LOADER_TEST_PG is set): the example workbook loads end to end (its second sheet under a
 * title row, date cells and a date typed as text, a formula's cached 1357.9499999999998 as
 * 1357.95, a `="000123"` guard, a merged cell taking the default); a bad row is rejected with its
 * row number, column and cells (as CSV) in the error log and in `errors`, the rest loads;
 * `--dry-run` writes nothing; a workbook loaded without a profile, or with a sheet it lacks, is
 * refused in one line that says what to do.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-run.js';
import { cliTargets, expectNothingWritten, type CliDb } from '../support/cli-targets.js';
import { tempDir } from '../support/files.js';
import { NEEDS, unavailable } from '../support/requirements.js';
import { badPartnerWorkbook as badWorkbook } from '../support/xlsx.js';

const PROFILE = 'examples/profiles/partner-workbook.yaml';
const EXAMPLE = 'examples/profiles/partner-workbook.xlsx';
const ORDERS =
  "SELECT source_key, customer_id::text AS customer_id, to_char(order_date, 'YYYY-MM-DD') AS order_date, amount::text AS amount, currency, attributes::text AS attributes FROM orders ORDER BY source_key";

describe.skipIf(unavailable(NEEDS.cli)).each(cliTargets('xlsx'))('xlsx workbooks through the CLI on $kind', (target) => {
  let db: CliDb | undefined;
  afterEach(async () => {
    await db?.dispose();
    db = undefined;
  });

  it('the example loads end to end: dates, numbers as Excel shows them, the other columns as attributes; a reload changes nothing', async () => {
    db = await target.create();
    const first = await runCli(['load', '--profile', PROFILE, EXAMPLE, '--db', db.url]);
    expect(first.code, first.stderr).toBe(0);
    const rows = await db.sql<Record<string, string | null>>(ORDERS);
    expect(rows.map((r) => [r.source_key, r.customer_id, r.order_date, r.amount, r.currency])).toEqual([
      ['000123', '1003', '2026-12-03', '0.10', 'USD'],
      ['PW-1001', '1001', '2026-12-01', '1234.50', 'EUR'],
      ['PW-1002', '1002', '2026-12-02', '1357.95', 'EUR'],
      ['PW-1004', '1004', '2026-12-04', '99.00', 'EUR'],
    ]);
    expect(JSON.parse(rows[1]?.attributes ?? '')).toEqual({ Channel: 'shop' });
    // the merged-over cell is missing: no attribute
    expect(rows[3]?.attributes ?? null).toBeNull();
    const again = await runCli(['load', '--profile', PROFILE, EXAMPLE, '--db', db.url]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/already staged|skipp/i);
    expect(await db.sql(ORDERS)).toEqual(rows);
  });

  it('bad rows are rejected with their row number, column and cells, in the error log and in `errors`; the rest loads', async () => {
    db = await target.create();
    const file = await badWorkbook(tempDir());
    const result = await runCli(['load', '--profile', PROFILE, file, '--db', db.url]);
    expect(result.code, result.stderr).toBe(2);
    expect(await db.sql('SELECT source_key, amount::text AS amount FROM orders ORDER BY 1')).toEqual([
      { source_key: 'B-1', amount: '5.25' },
      { source_key: 'B-5', amount: '12.00' },
    ]);
    const logged = await db.sql<{ line_no: number; error_code: string; error_message: string; raw_record: string }>(
      'SELECT line_no::int AS line_no, error_code, error_message, raw_record FROM order_bulk_error ORDER BY line_no',
    );
    expect(logged.map((r) => [r.line_no, r.error_code, r.raw_record])).toEqual([
      [5, 'PARSE_XLSX_CELL', 'B-2,7,2026-12-01,#DIV/0!,EUR,"a, b"'],
      [6, 'PARSE_XLSX_CELL', 'B-3,7,1900-02-29,1,EUR,shop'],
      [7, 'PARSE_AMOUNT', 'B-4,7,2026-12-01,twelve,EUR,shop'],
    ]);
    expect(logged[0]?.error_message).toMatch(/column D \("Amount"\): the cell holds the error #DIV\/0!/);
    expect(logged[1]?.error_message).toMatch(/column C \("Order Date"\): .*29 February 1900/);
    const errors = await runCli(['errors', '--format', 'csv', '--db', db.url]);
    expect(errors.code, errors.stderr).toBe(0);
    const lines = errors.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^source_key,customer_id,order_date,amount,currency,error_code,error_message,line_no,/);
    // the canonical five columns read back from the row's cells, its row number and code
    expect(lines.find((l) => l.includes('PARSE_AMOUNT'))).toMatch(/^B-4,7,2026-12-01,twelve,EUR,PARSE_AMOUNT,.*,7,/);
  });

  it('--dry-run reads and checks every row and writes nothing', async () => {
    db = await target.create();
    const file = await badWorkbook(tempDir());
    const result = await runCli(['load', '--dry-run', '--profile', PROFILE, file, '--db', db.url]);
    expect(result.stdout + result.stderr).toMatch(/PARSE_XLSX_CELL/);
    await expectNothingWritten(db);
  });

  it('a workbook without a profile, or with a sheet it does not have, is refused in one line before anything is staged', async () => {
    db = await target.create();
    const plain = await runCli(['load', EXAMPLE, '--db', db.url]);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain(
      `${EXAMPLE}: an Excel workbook (xlsx), not a text file: load it with a profile of format: xlsx (\`order-loader guess ${EXAMPLE}\` drafts one; docs/files.md)`,
    );
    const dir = tempDir();
    const profile = join(dir, 'other-sheet.yaml');
    writeFileSync(profile, (await import('node:fs')).readFileSync(PROFILE, 'utf8').replace('sheet: Orders', 'sheet: Bestellungen'));
    const missing = await runCli(['load', '--profile', profile, EXAMPLE, '--db', db.url]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`${EXAMPLE}: the workbook has no sheet "Bestellungen" (its sheets: "Summary", "Orders")`);
    await expectNothingWritten(db);
  });
});
