/**
 * Small xlsx workbooks for the tests, written with exceljs's own writer (the library the reader
 * streams with): sheets of rows, a cell given as a plain value, or as `{ value, numFmt }` for a
 * date serial or a formatted number, or a formula with its cached result.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import zlib from 'node:zlib';
import ExcelJS from 'exceljs';

export type SheetCell = ExcelJS.CellValue | { value: ExcelJS.CellValue; numFmt: string };
export interface SheetSpec {
  name: string;
  rows: SheetCell[][];
  /** Ranges merged (A5:B5). */
  merge?: string[];
}

const isFormatted = (c: SheetCell): c is { value: ExcelJS.CellValue; numFmt: string } =>
  typeof c === 'object' && c !== null && !(c instanceof Date) && 'numFmt' in c;

/** The bytes of a workbook of these sheets (the 1904 date system when asked). */
export async function workbookBytes(sheets: SheetSpec[], options: { date1904?: boolean } = {}): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  if (options.date1904 === true) wb.properties.date1904 = true;
  for (const s of sheets) {
    const ws = wb.addWorksheet(s.name);
    s.rows.forEach((cells, r) => {
      cells.forEach((c, i) => {
        if (c === undefined) return;
        const cell = ws.getCell(r + 1, i + 1);
        if (isFormatted(c)) {
          cell.value = c.value;
          cell.numFmt = c.numFmt;
        } else cell.value = c;
      });
    });
    for (const m of s.merge ?? []) ws.mergeCells(m);
  }
  return Buffer.from(await wb.xlsx.writeBuffer());
}

/** The parts of a workbook written by exceljs (their names and uncompressed bytes), in its zip's order. */
export async function workbookParts(sheets: SheetSpec[]): Promise<Array<{ name: string; data: Buffer }>> {
  const { default: unzipper } = await import('unzipper');
  const directory = await unzipper.Open.buffer(await workbookBytes(sheets));
  return Promise.all(directory.files.map(async (f) => ({ name: f.path, data: await f.buffer() })));
}

/**
 * A zip of these parts in this order, each stored (not compressed): a workbook's parts in the
 * order another writer puts them, and entries whose reading takes no work off the main thread.
 */
export function storedZip(parts: Array<{ name: string; data: Buffer }>): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const { name, data } of parts) {
    const file = Buffer.from(name, 'utf8');
    const crc = zlib.crc32(data);
    const size = data.length;
    // version 20, CRC-32, compressed and uncompressed size (stored: the same), name length
    const local = zipRecord(30, 0x04034b50, [
      [4, 20, 2],
      [14, crc, 4],
      [18, size, 4],
      [22, size, 4],
      [26, file.length, 2],
    ]);
    const entry = zipRecord(46, 0x02014b50, [
      [4, 20, 2],
      [6, 20, 2],
      [16, crc, 4],
      [20, size, 4],
      [24, size, 4],
      [28, file.length, 2],
      [42, offset, 4],
    ]);
    locals.push(local, file, data);
    central.push(entry, file);
    offset += local.length + file.length + size;
  }
  const directory = Buffer.concat(central);
  const end = zipRecord(22, 0x06054b50, [
    [8, parts.length, 2],
    [10, parts.length, 2],
    [12, directory.length, 4],
    [16, offset, 4],
  ]);
  return Buffer.concat([...locals, directory, end]);
}

/** A zip record of `size` bytes: its signature, then each [offset, value, bytes] (little-endian). */
function zipRecord(size: number, signature: number, fields: Array<[number, number, 2 | 4]>): Buffer {
  const record = Buffer.alloc(size);
  record.writeUInt32LE(signature, 0);
  for (const [at, value, bytes] of fields) {
    if (bytes === 2) record.writeUInt16LE(value, at);
    else record.writeUInt32LE(value, at);
  }
  return record;
}

/** examples/profiles/partner-workbook.yaml's sheet with bad rows in `dir`: an error cell, a date that never was, a text amount. */
export async function badPartnerWorkbook(dir: string): Promise<string> {
  const date = (value: number) => ({ value, numFmt: 'dd.mm.yyyy' });
  const file = join(dir, 'bad.xlsx');
  writeFileSync(
    file,
    await workbookBytes([
      {
        name: 'Orders',
        rows: [
          ['Partner orders export'],
          [],
          ['Order No', 'Customer', 'Order Date', 'Amount', 'Currency', 'Channel'],
          ['B-1', 7, date(46357), 5.25, 'EUR', 'shop'],
          ['B-2', 7, date(46357), { error: '#DIV/0!' }, 'EUR', 'a, b'],
          ['B-3', 7, date(60), 1, 'EUR', 'shop'],
          ['B-4', 7, date(46357), 'twelve', 'EUR', 'shop'],
          ['B-5', 8, '05.12.2026', 12, 'USD', 'shop'],
        ],
      },
    ]),
  );
  return file;
}

/** A profile reading a sheet's columns by these header names: Order No, Customer, Date, Amount, Currency. */
export const NAMED_COLUMNS_PROFILE = `version: 1
format: xlsx
columns:
  source_key: { column: 'Order No' }
  customer_id: { column: Customer }
  order_date: { column: Date }
  amount: { column: Amount }
  currency: { column: Currency }
`;

/**
 * The workbook of `sheet` with the `r` attribute (a cell's reference, optional in SpreadsheetML)
 * taken out of its cells from row `from` on (null: none) and, with `rows`, out of every row.
 */
export async function withoutReferences(sheet: SheetSpec, from: number | null, rows = false): Promise<Buffer> {
  const parts = await workbookParts([sheet]);
  return storedZip(
    parts.map((p) => {
      if (!/^xl\/worksheets\/sheet\d+\.xml$/.test(p.name)) return p;
      let xml = p.data.toString('utf8');
      if (from !== null)
        xml = xml.replace(/(<c\b[^>]*?) r="[A-Z]+(\d+)"/g, (c: string, head: string, row: string) => (Number(row) >= from ? head : c));
      if (rows) xml = xml.replace(/(<row\b[^>]*?) r="\d+"/g, '$1');
      return { name: p.name, data: Buffer.from(xml, 'utf8') };
    }),
  );
}
