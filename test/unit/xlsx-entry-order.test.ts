/**
 * A workbook's parts in any order its zip holds them: the sheet before the workbook part (as
 * exceljs writes, workbook.xml last) or before the shared strings and styles (as Excel writes).
 * The sheet is read once everything it depends on is known, however far the zip parser has read
 * ahead meanwhile. The reads run while every thread of libuv's pool is busy: a sheet kept in a
 * temporary file waits for the file system while the zip's remaining parts (stored, so read with
 * no work off the main thread) are parsed to the archive's end — the ordering a loaded machine
 * gives by chance, here every time.
 */
import { pbkdf2 } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { ByteSource } from '../../src/input/gzip.js';
import { openSheet, type SheetRow } from '../../src/input/formats/xlsx-sheet.js';
import { storedZip, workbookParts, type SheetSpec } from '../support/xlsx.js';

const DATE = 'yyyy-mm-dd';
const ORDERS: SheetSpec = {
  name: 'Orders',
  rows: [
    ['Order No', 'Customer', 'Date', 'Amount'],
    ['A-1', 1001, { value: 45292, numFmt: DATE }, 1234.5],
    ['A-2', 1002, { value: 45293, numFmt: DATE }, 7],
  ],
};
const NOTES: SheetSpec = { name: 'Notes', rows: [['a note'], ['another']] };

/** The bytes as one chunk, from memory: the zip parser never waits for them. */
function memorySource(bytes: Buffer): ByteSource {
  let given = false;
  return {
    chunks: {
      next: () => {
        const done = given;
        given = true;
        return Promise.resolve(done ? { done: true, value: undefined } : { done: false, value: bytes });
      },
    },
    fileBytesRead: () => (given ? bytes.length : 0),
    close() {},
  };
}

/** Every thread of libuv's pool kept busy for a while (file system calls queue behind them). */
function occupyThreadPool(): Promise<unknown> {
  const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  return Promise.all(Array.from({ length: threads }, () => promisify(pbkdf2)('busy', 'salt', 300_000, 32, 'sha256')));
}

async function readSheet(bytes: Buffer, want: string | number): Promise<{ name: string; rows: string[][] }> {
  const busy = occupyThreadPool();
  try {
    const opened = await openSheet('w.xlsx', memorySource(bytes), want, () => false);
    const rows: string[][] = [];
    for await (const row of opened.rows as AsyncIterable<SheetRow>) rows.push(Array.from(row.cells, (c) => c?.text ?? ''));
    return { name: opened.sheet.name, rows };
  } finally {
    await busy;
  }
}

const EXPECTED = [
  ['Order No', 'Customer', 'Date', 'Amount'],
  ['A-1', '1001', '2024-01-01', '1234.5'],
  ['A-2', '1002', '2024-01-02', '7'],
];

/** The parts reordered: those named first in `first`, then the rest in exceljs's order. */
const ordered = (parts: Array<{ name: string; data: Buffer }>, first: string[]) => [
  ...first.map((n) => parts.find((p) => p.name === n) ?? { name: n, data: Buffer.alloc(0) }),
  ...parts.filter((p) => !first.includes(p.name)),
];

describe('a workbook whose zip holds its parts in any order', () => {
  it("exceljs's order (the sheets first, workbook.xml last): the sheet asked for, by name and by position", async () => {
    const parts = await workbookParts([NOTES, ORDERS]);
    expect(parts.at(-1)?.name).toBe('xl/workbook.xml');
    const bytes = storedZip(parts);
    expect(await readSheet(bytes, 'Orders')).toEqual({ name: 'Orders', rows: EXPECTED });
    expect(await readSheet(bytes, 2)).toEqual({ name: 'Orders', rows: EXPECTED });
  });

  it("Excel's order (workbook.xml first, the shared strings and styles after the sheets): text and date cells read right", async () => {
    const parts = await workbookParts([ORDERS, NOTES]);
    const excel = ordered(parts, [
      '[Content_Types].xml',
      '_rels/.rels',
      'xl/workbook.xml',
      'xl/_rels/workbook.xml.rels',
      'xl/worksheets/sheet1.xml',
      'xl/worksheets/sheet2.xml',
      'xl/theme/theme1.xml',
      'xl/styles.xml',
      'xl/sharedStrings.xml',
    ]);
    const bytes = storedZip(excel);
    expect(await readSheet(bytes, 1)).toEqual({ name: 'Orders', rows: EXPECTED });
    expect(await readSheet(bytes, 'Notes')).toEqual({ name: 'Notes', rows: [['a note'], ['another']] });
  });

  it('the dependencies first (workbook, relationships, shared strings, styles): the sheet streams from the zip', async () => {
    const parts = await workbookParts([ORDERS]);
    const bytes = storedZip(ordered(parts, ['xl/workbook.xml', 'xl/_rels/workbook.xml.rels', 'xl/sharedStrings.xml', 'xl/styles.xml']));
    expect(await readSheet(bytes, 'Orders')).toEqual({ name: 'Orders', rows: EXPECTED });
  });
});
