/**
 * Small xlsx workbooks for the tests, written with exceljs's own writer (the library the reader
 * streams with): sheets of rows, a cell given as a plain value, or as `{ value, numFmt }` for a
 * date serial or a formatted number, or a formula with its cached result.
 */
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
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(file.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(data.length, 24);
    entry.writeUInt16LE(file.length, 28);
    entry.writeUInt32LE(offset, 42);
    locals.push(local, file, data);
    central.push(entry, file);
    offset += local.length + file.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
