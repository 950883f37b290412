/**
 * Control totals of an xlsx workbook through the CLI, on PGlite and on server PostgreSQL (when
 * ORDER_LOADER_TEST_PG is set): a totals row under the orders (the trailer: the row whose column A
 * is "Total", its count in column B, its sum under the Amount header) or a control row above the
 * column-name row (the header record). A workbook whose figures agree loads (exit 0); a copy short
 * of an order is staged HELD with exit 1, the report giving both figures; a copy without its totals
 * row is refused before staging (exit 1).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-run.js';
import { cliTargets, profiledCliDb } from '../support/cli-targets.js';
import { NEEDS, unavailable } from '../support/requirements.js';
import { workbookBytes, type SheetCell } from '../support/xlsx.js';

const COLUMNS = `columns:
  source_key: { column: 'Order No' }
  customer_id: { column: Customer }
  order_date: { column: 'Order Date', date: 'YYYY-MM-DD' }
  amount: { column: Amount }
  currency: { column: Currency }
`;
const TRAILER = `version: 1\nname: xlsx-trailer\nformat: xlsx\n${COLUMNS}control:
  trailer: { column: A, equals: Total }
  count: { column: B }
  sum: { column: Amount }
`;
const HEADER = `version: 1\nname: xlsx-header\nformat: xlsx\n${COLUMNS}control:
  header: { column: 1, equals: Control }
  count: { column: 2 }
  sum: { column: 3 }
`;
const NAMES = ['Order No', 'Customer', 'Order Date', 'Amount', 'Currency'];
const orders = (prefix: string): SheetCell[][] => [
  [`${prefix}-1`, 501, '2026-12-01', 1200, 'JPY'],
  [`${prefix}-2`, 502, '2026-12-01', 34.5, 'JPY'],
  [`${prefix}-3`, 503, '2026-12-02', 0, 'JPY'],
];

async function workbook(dir: string, name: string, rows: SheetCell[][]): Promise<string> {
  const file = join(dir, name);
  writeFileSync(file, await workbookBytes([{ name: 'Orders', rows }]));
  return file;
}

describe.skipIf(unavailable(NEEDS.cli)).each(cliTargets('xlsxctl'))('xlsx control rows through the CLI on $kind', (target) => {
  const { start, sql } = profiledCliDb(target);
  const keys = async (like: string) =>
    (await sql<{ source_key: string }>(`SELECT source_key FROM orders WHERE source_key LIKE '${like}' ORDER BY 1`)).map(
      (r) => r.source_key,
    );

  it('a totals row that agrees loads; a copy short of an order is HELD (exit 1); one without its totals row is refused', async () => {
    const { dir, quiet } = await start(TRAILER);
    // the sum under Amount, as a spreadsheet writes it: a formula, its cached result
    const total = (n: number, sum: number): SheetCell[] => ['Total', n, '', { formula: 'SUM(D2:D4)', result: sum }];
    const good = await workbook(dir, 'good.xlsx', [NAMES, ...orders('XT'), total(3, 1234.5)]);
    const loaded = await runCli(['load', good, ...quiet]);
    expect(loaded.code, loaded.stdout + loaded.stderr).toBe(0);
    expect(loaded.stdout).toContain('control totals agree: trailer (row 5) states count 3, sum 1234.5; read count 3, sum 1234.50');
    expect(await keys('XT-%')).toEqual(['XT-1', 'XT-2', 'XT-3']);

    const short = await workbook(dir, 'short.xlsx', [NAMES, ...orders('XS').filter((r) => r[0] !== 'XS-2'), total(3, 1234.5)]);
    const held = await runCli(['load', short, ...quiet]);
    expect(held.code, held.stdout + held.stderr).toBe(1);
    expect(held.stdout).toMatch(
      /control totals DIFFER: trailer \(row 4\) states count 3, sum 1234\.5; read count 2, sum 1200\.00 .*NOT MERGED: its rows stay HELD in load 2/,
    );
    expect(
      await sql("SELECT process_status AS status, count(*)::int AS n FROM order_stage WHERE source_key LIKE 'XS-%' GROUP BY 1"),
    ).toEqual([{ status: 'HELD', n: 2 }]);
    expect(await keys('XS-%')).toEqual([]);

    const cut = await workbook(dir, 'cut.xlsx', [NAMES, ...orders('XC')]);
    const refused = await runCli(['load', cut, ...quiet]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/cut\.xlsx: control totals cannot be checked: .*no trailer record \(column A equals "Total"\).*REFUSED/);
    expect(await sql("SELECT count(*)::int AS n FROM order_stage WHERE source_key LIKE 'XC-%'")).toEqual([{ n: 0 }]);
  });

  it('a control row above the column names: the workbook loads; a copy short of an order is HELD (exit 1)', async () => {
    const { dir, quiet } = await start(HEADER);
    const good = await workbook(dir, 'good.xlsx', [['Control', 3, 1234.5], NAMES, ...orders('XH')]);
    const loaded = await runCli(['load', good, ...quiet]);
    expect(loaded.code, loaded.stdout + loaded.stderr).toBe(0);
    expect(loaded.stdout).toContain('control totals agree: header (row 1) states count 3, sum 1234.5; read count 3, sum 1234.50');
    expect(await keys('XH-%')).toEqual(['XH-1', 'XH-2', 'XH-3']);

    const short = await workbook(dir, 'short.xlsx', [['Control', 3, 1234.5], NAMES, ...orders('XG').slice(0, 2)]);
    const held = await runCli(['load', short, ...quiet]);
    expect(held.code, held.stdout + held.stderr).toBe(1);
    expect(held.stdout).toMatch(/control totals DIFFER: header \(row 1\) states count 3, sum 1234\.5; read count 2, sum 1234\.50/);
    expect(await keys('XG-%')).toEqual([]);
  });
});
