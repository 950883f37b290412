/**
 * The xlsx reader (`format: xlsx`): numbers as Excel shows them (15 significant digits, no float
 * noise), date cells as calendar dates in both date systems with the 1900 leap-year bug, formulas
 * by their cached value, merged and empty cells as missing, sheet by name or position, columns by
 * header name or letter, each bad row rejected with its row number, column and the row as CSV,
 * and the files refused before anything is read (an .xls, a missing sheet, a cut zip).
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { guessProfile } from '../../src/input/guess/index.js';
import { UserError } from '../../src/errors.js';
import { numberText, serialDate } from '../../src/input/formats/xlsx-cells.js';
import type { FileItem } from '../../src/input/order-file.js';
import { parseProfileText, type LoadProfile } from '../../src/input/profile/load-profile.js';
import { writeTestFile } from '../support/files.js';
import { readItems } from '../support/read-items.js';
import { storedZip, workbookBytes, workbookParts, type SheetSpec } from '../support/xlsx.js';

const profileOf = (head = '', columns?: string): LoadProfile =>
  parseProfileText(
    `version: 1
format: xlsx
${head}columns:
${
  columns ??
  `  source_key: { column: 'Order No' }
  customer_id: { column: Customer }
  order_date: { column: Date, date: 'DD/MM/YYYY' }
  amount: { column: Amount }
  currency: { column: E, default: EUR }
`
}`,
    'p.yaml',
    'p',
  );

async function read(bytes: Buffer, profile = profileOf()): Promise<FileItem[]> {
  return readItems(writeTestFile(bytes, 'w.xlsx'), { encoding: 'utf-8', delimiter: ',', profile });
}

const summary = (items: FileItem[]) =>
  items.map((i) =>
    i.kind === 'record'
      ? [
          i.lineNo,
          i.fields.source_key,
          i.fields.customer_id,
          i.fields.order_date,
          i.fields.amount,
          i.fields.currency,
          i.problem?.code ?? null,
        ]
      : [i.lineNo, i.code, i.raw],
  );

const DATE = 'yyyy-mm-dd';
const ORDERS: SheetSpec = {
  name: 'Orders',
  rows: [
    ['Order No', 'Customer', 'Date', 'Amount', 'Currency', 'Note'],
    ['A-1', 1001, { value: 45292, numFmt: DATE }, 1234.5, 'USD', 'first'],
    ['A-2', 1002, '15/01/2024', { formula: 'B3*1', result: 1234.4999999999998 }, undefined, 'text date, formula'],
    [],
    ['A-4', 1004, { value: 45292.75, numFmt: 'dd/mm/yyyy hh:mm' }, 0.1, 'JPY', 'a, "quoted" note'],
    ['A-5', 1005, { value: 45292, numFmt: DATE }, { error: '#N/A' }, 'EUR', 'error cell'],
    ['="000123"', 1006, { value: 45292, numFmt: DATE }, 7, 'EUR', 'merged currency'],
  ],
};

/** A workbook of ORDERS' parts whose sheet is `rows`, written with inline strings (no shared strings part), each cell with its reference. */
async function withSheet(rows: Array<Array<string | number>>): Promise<Buffer> {
  const cell = (ref: string, v: string | number) =>
    typeof v === 'number' ? `<c r="${ref}"><v>${v}</v></c>` : `<c r="${ref}" t="inlineStr"><is><t>${v}</t></is></c>`;
  const letters = (n: number): string => (n === 0 ? '' : letters(Math.floor((n - 1) / 26)) + String.fromCharCode(65 + ((n - 1) % 26)));
  const sheet = Buffer.from(
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>' +
      rows.map((r, i) => `<row r="${i + 1}">${r.map((v, j) => cell(`${letters(j + 1)}${i + 1}`, v)).join('')}</row>`).join('') +
      '</sheetData></worksheet>',
  );
  const parts = await workbookParts([ORDERS]);
  return storedZip(
    parts
      .filter((p) => p.name !== 'xl/sharedStrings.xml')
      .map((p) =>
        p.name === 'xl/_rels/workbook.xml.rels'
          ? { ...p, data: Buffer.from(p.data.toString().replace(/<Relationship[^>]*sharedStrings[^>]*\/>/, '')) }
          : /^xl\/worksheets\/sheet\d+\.xml$/.test(p.name)
            ? { ...p, data: sheet }
            : p,
      ),
  );
}

describe('xlsx cells', () => {
  it('numbers as Excel shows them: 15 significant digits, plain decimal text, never float noise', () => {
    expect(numberText(1234.5)).toBe('1234.5');
    expect(numberText(1234.4999999999998)).toBe('1234.5');
    expect(numberText(0.1)).toBe('0.1');
    expect(numberText(0.1 + 0.2)).toBe('0.3');
    expect(numberText(-0.5)).toBe('-0.5');
    expect(numberText(1.5e-7)).toBe('0.00000015');
    expect(numberText(1e21)).toBe('1000000000000000000000');
    // a number of 18 digits: the double nearest it, shown at 15 digits
    expect(numberText(Number('123456789012345678'))).toBe('123456789012346000');
    expect(numberText(42)).toBe('42');
    expect(numberText(Number.NaN)).toBeNull();
  });

  it('date serials: the 1900 system with its leap-year bug, and the 1904 system', () => {
    expect(serialDate(1, false)).toEqual({ text: '1900-01-01', date: true });
    expect(serialDate(59, false)).toEqual({ text: '1900-02-28', date: true });
    expect(serialDate(60, false)).toHaveProperty('problem', expect.stringMatching(/29 February 1900/));
    expect(serialDate(61, false)).toEqual({ text: '1900-03-01', date: true });
    expect(serialDate(45292.9, false)).toEqual({ text: '2024-01-01', date: true });
    expect(serialDate(0, true)).toEqual({ text: '1904-01-01', date: true });
    expect(serialDate(43830, true)).toEqual({ text: '2024-01-01', date: true });
    expect(serialDate(0, false)).toHaveProperty('problem');
  });
});

describe('the xlsx reader', () => {
  it('reads a sheet: header names and letters, date cells and date text, formulas by their cached value, rows by number', async () => {
    const bytes = await workbookBytes([
      { name: 'Notes', rows: [['not this sheet']] },
      { ...ORDERS, merge: ['E7:F7'] },
    ]);
    const items = await read(bytes, profileOf('sheet: Orders\n'));
    expect(summary(items)).toEqual([
      [2, 'A-1', '1001', '2024-01-01', '1234.5', 'USD', null],
      [3, 'A-2', '1002', '2024-01-15', '1234.5', 'EUR', null],
      [5, 'A-4', '1004', '2024-01-01', '0.1', 'JPY', null],
      [6, 'PARSE_XLSX_CELL', 'A-5,1005,2024-01-01,#N/A,EUR,error cell'],
      [7, '000123', '1006', '2024-01-01', '7', 'EUR', null],
    ]);
    const reject = items.find((i) => i.kind === 'reject');
    expect(reject?.kind === 'reject' && reject.message).toBe('column D ("Amount"): the cell holds the error #N/A');
    // the raw text of a row is the CSV of its cells
    expect(items.find((i) => i.lineNo === 5)?.raw).toBe('A-4,1004,2024-01-01,0.1,JPY,"a, ""quoted"" note"');
    // the same sheet by its position
    expect(summary(await read(bytes, profileOf('sheet: 2\n')))).toEqual(summary(items));
  });

  it('header: false and skip_lines: columns by letter or number; the 1904 date system', async () => {
    const bytes = await workbookBytes(
      [{ name: 'S', rows: [['Report of orders'], ['K1', 7, { value: 43830, numFmt: 'd-mmm-yy' }, 12, 'EUR']] }],
      { date1904: true },
    );
    const profile = profileOf(
      'header: false\nskip_lines: 1\n',
      `  source_key: { column: A }
  customer_id: { column: 2 }
  order_date: { column: C }
  amount: { column: D }
  currency: { column: E }
`,
    );
    expect(summary(await read(bytes, profile))).toEqual([[2, 'K1', '7', '2024-01-01', '12', 'EUR', null]]);
  });

  it('refuses before reading a row: an .xls, a missing sheet, a missing column, a cut zip', async () => {
    const bytes = await workbookBytes([ORDERS]);
    const ole = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]);
    await expect(read(ole)).rejects.toThrow(/Excel 97-2003 workbook \(\.xls\) or a password-protected workbook/);
    await expect(read(bytes, profileOf('sheet: Other\n'))).rejects.toThrow(/the workbook has no sheet "Other" \(its sheets: "Orders"\)/);
    await expect(read(bytes, profileOf('sheet: 3\n'))).rejects.toThrow(UserError);
    await expect(
      read(
        bytes,
        profileOf(
          '',
          `  source_key: { column: 'Order Number' }
  customer_id: { column: Customer }
  order_date: { column: Date }
  amount: { column: Amount }
  currency: { column: Currency }
`,
        ),
      ),
    ).rejects.toThrow(/columns\.source_key\.column: column "Order Number" is not in the header of sheet "Orders"/);
    await expect(read(bytes.subarray(0, Math.floor(bytes.length / 2)))).rejects.toThrow(UserError);
    await expect(read(Buffer.from('source_key,customer_id\n'))).rejects.toThrow(/not an xlsx workbook/);
  });

  it('refuses before reading a row a workbook whose shared strings or styles part its workbook names is not in the zip', async () => {
    // read as they are, the text cells were empty ("Order No" not in a header of empty cells) or,
    // with columns by letter, every row rejected for an empty key; without the styles, date cells
    // were serial numbers
    const parts = await workbookParts([ORDERS]);
    const without = (name: string) => storedZip(parts.filter((p) => p.name !== name));
    await expect(read(without('xl/sharedStrings.xml'))).rejects.toThrow(
      /w\.xlsx: a damaged xlsx workbook: its workbook names xl\/sharedStrings\.xml \(its text cells\), which the zip archive does not hold$/,
    );
    await expect(read(without('xl/styles.xml'))).rejects.toThrow(
      /a damaged xlsx workbook: its workbook names xl\/styles\.xml \(the formats of its cells: which numbers are dates\), which the zip archive does not hold$/,
    );
    // the same parts whole: read
    expect(summary(await read(storedZip(parts)))).toHaveLength(5);
  });

  it('reads inline strings (text written in the cell, no shared strings part), as some writers do', async () => {
    const rows = [
      ['Order No', 'Customer', 'Date', 'Amount'],
      ['I-1', 7, '02/01/2024', 12.5, 'USD'],
    ];
    expect(summary(await read(await withSheet(rows)))).toEqual([[2, 'I-1', '7', '2024-01-02', '12.5', 'USD', null]]);
  });

  it('a cell of more than 1 MB: its row rejected with its number, the next row read', async () => {
    const items = await read(
      await workbookBytes([
        {
          name: 'Orders',
          rows: [ORDERS.rows[0] ?? [], ['B-1', 1, '01/01/2024', 'x'.repeat(1 << 20), 'EUR'], ['B-2', 2, '01/01/2024', 5, 'EUR']],
        },
      ]),
    );
    expect(summary(items).map((s) => s.slice(0, 2))).toEqual([
      [2, 'CSV_MAX_RECORD_SIZE'],
      [3, 'B-2'],
    ]);
  });

  it('more columns than a sheet can have (past XFD, 16,384): said in one line, in the header or in a row', async () => {
    const wide = Array.from({ length: 20_000 }, (_, i) => `c${i}`);
    const header = ['Order No', 'Customer', 'Date', 'Amount'];
    await expect(read(await withSheet([[...header, ...wide]]))).rejects.toThrow(
      /cannot read the sheet \(a cell past column XFD: more columns than the 16384 a sheet can have\)$/,
    );
    const items = await read(await withSheet([header, ['W-1', 1, '01/01/2024', 5, 'EUR'], ['W-2', 2, '01/01/2024', 5, ...wide]]));
    expect(summary(items).map((s) => s.slice(0, 2))).toEqual([
      [2, 'W-1'],
      [3, 'XLSX_DAMAGED'],
    ]);
    expect(items[1]?.kind === 'reject' && items[1].message).toMatch(/a cell past column XFD/);
  });

  it('a profile of format: xlsx takes no delimiter or encoding; sheet is for xlsx', () => {
    expect(() => profileOf('delimiter: ";"\n')).toThrow(/delimiter has no meaning for format: xlsx/);
    expect(() =>
      parseProfileText(
        'version: 1\nsheet: 1\ncolumns: {source_key: {column: a}, customer_id: {column: b}, order_date: {column: c}, amount: {column: d}, currency: {column: e}}\n',
        'q.yaml',
        'q',
      ),
    ).toThrow(/sheet is for format: xlsx/);
    expect(() => profileOf('header: false\n')).toThrow(/a column is its letter/);
  });
});

describe('a workbook named on the command line', () => {
  it('is complete when its zip ends with its central directory: no line end is waited for', async () => {
    const { lastLineUnfinished } = await import('../../src/input/inputs.js');
    const bytes = await workbookBytes([ORDERS]);
    expect(lastLineUnfinished(writeTestFile(bytes, 'whole.xlsx'))).toBe(false);
    // a workbook still being copied: its zip has no end yet
    expect(lastLineUnfinished(writeTestFile(bytes.subarray(0, bytes.length - 30), 'cut.xlsx'))).toBe(true);
  });
});

describe('guess on a workbook', () => {
  it('drafts a profile of format: xlsx: the first sheet with a table, its header under a title row, its columns, with evidence', async () => {
    const guessed = await guessProfile('examples/profiles/partner-workbook.xlsx');
    expect(guessed).toMatchObject({ format: 'xlsx', sheet: { name: 'Orders', position: 2 }, delimiter: null, header: true, skipLines: 2 });
    const yaml = parse(guessed.yaml) as Record<string, unknown>;
    expect(yaml).toMatchObject({ format: 'xlsx', sheet: 'Orders', header: true, skip_lines: 2 });
    expect(yaml).not.toHaveProperty('delimiter');
    expect(yaml).not.toHaveProperty('encoding');
    expect(yaml.columns).toMatchObject({
      source_key: { column: 'Order No' },
      customer_id: { column: 'Customer' },
      order_date: { column: 'Order Date', date: ['YYYY-MM-DD', 'DD.MM.YYYY'] },
      amount: { column: 'Amount', decimal: '.' },
      currency: { column: 'Currency' },
    });
    expect(guessed.yaml).toContain('# passed over: sheet 1 "Summary": 1 row(s) with a cell, no table');
    // the row whose last cells are merged over is a record, not a trailer
    expect(yaml).not.toHaveProperty('when');
    expect(guessed.open).toEqual([]);
  });

  it('a workbook compressed with gzip: says to decompress it', async () => {
    const gz = writeTestFile(gzipSync(readFileSync('examples/profiles/partner-workbook.xlsx')), 'w.xlsx.gz');
    await expect(guessProfile(gz)).rejects.toThrow(/an Excel workbook \(xlsx\) inside gzip: decompress it \(gunzip\)/);
  });
});
