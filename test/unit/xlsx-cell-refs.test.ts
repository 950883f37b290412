/**
 * A sheet whose cells or rows carry no `r` attribute (their reference: optional in SpreadsheetML,
 * where a cell without one is the next column of its row, and written so by some generators):
 * exceljs's streaming reader cannot place such a cell or row: the sheet is refused (or stops at that row) naming
 * the file, the sheet and why, never with the library's own "Cannot read properties of undefined".
 */
import { describe, expect, it } from 'vitest';
import type { FileItem } from '../../src/input/order-file.js';
import { parseProfileText } from '../../src/input/profile/load-profile.js';
import { writeTestFile } from '../support/files.js';
import { readItems } from '../support/read-items.js';
import { NAMED_COLUMNS_PROFILE, withoutReferences, type SheetSpec } from '../support/xlsx.js';

const profile = parseProfileText(NAMED_COLUMNS_PROFILE, 'p.yaml', 'p');

const ORDERS: SheetSpec = {
  name: 'Orders',
  rows: [
    ['Order No', 'Customer', 'Date', 'Amount', 'Currency'],
    ['A-1', 'C1', '2026-12-01', 1234.5, 'EUR'],
    ['A-2', 'C2', '2026-12-02', 0.1, 'JPY'],
  ],
};

const withoutRefs = (from: number | null, rows = false, sheet = ORDERS): Promise<Buffer> => withoutReferences(sheet, from, rows);

const read = async (bytes: Buffer): Promise<FileItem[]> =>
  readItems(writeTestFile(bytes, 'norefs.xlsx'), { encoding: 'utf-8', delimiter: ',', profile });

// exceljs's streaming reader places a cell by its reference only: without one it failed with
// "Cannot read properties of undefined (reading 'length')", said as the sheet's damage
const WHY = /a cell without its reference \(no r attribute\), which exceljs.*save the workbook again/;

describe('xlsx: cells without a reference', () => {
  it("the header row's cells without one: the file refused naming the sheet, the file and why", async () => {
    await expect(read(await withoutRefs(1))).rejects.toThrow(
      /^sheet "Orders" of \S+norefs\.xlsx: cannot read the sheet \(a cell without its reference/,
    );
    await expect(read(await withoutRefs(1))).rejects.toThrow(WHY);
  });

  it("a data row's cells without one: the rows before it read, then the sheet stops there saying why", async () => {
    // enough rows that those before it are parsed (and read) before exceljs reaches it
    const rows = Array.from({ length: 3000 }, (_, i) => [`A-${i + 1}`, 'C1', '2026-12-01', 10, 'EUR']);
    const items = await read(await withoutRefs(2800, false, { name: 'Orders', rows: [ORDERS.rows[0] ?? [], ...rows] }));
    const last = items.at(-1);
    expect(items.length).toBeGreaterThan(100);
    expect(items.slice(0, -1).every((i) => i.kind === 'record')).toBe(true);
    expect(last).toMatchObject({ kind: 'reject', code: 'XLSX_DAMAGED', lineNo: items.length + 1 });
    expect(last?.kind === 'reject' ? last.message : '').toMatch(
      /^sheet "Orders" of \S+norefs\.xlsx: the workbook could not be read past row \d+ \(a cell without its reference/,
    );
    expect(last?.kind === 'reject' ? last.message : '').toMatch(WHY);
  });

  it('rows without one (their cells with theirs): the file refused naming the sheet, the file and why', async () => {
    await expect(read(await withoutRefs(null, true))).rejects.toThrow(
      /^sheet "Orders" of \S+norefs\.xlsx: cannot read the sheet \(a row without its number \(no r attribute\).*save the workbook again/,
    );
  });
});
