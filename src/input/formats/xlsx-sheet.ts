/**
 * The rows of one sheet of an xlsx workbook, streamed: exceljs's streaming WorkbookReader reads
 * the zip entry by entry as its bytes arrive (unzipper's streaming parser, saxes for the XML), so
 * memory holds the shared strings (compactly: xlsx-strings.ts) and the rows of one read chunk,
 * never the sheet. Its bytes come from the run's byte source (the file as the run opened it, its
 * identity tapped from the same pass), read to the end of the workbook even past the sheet so
 * that the tap sees every byte.
 * exceljs is loaded on the first workbook read: every other command starts without it.
 */
import { Readable } from 'node:stream';
import { UserError } from '../../errors.js';
import type { ByteSource } from '../gzip.js';
import { cellText, type CellText, type CellValue } from './xlsx-cells.js';
import type { SharedStrings } from './xlsx-strings.js';
import { findSheet, type PartParsers, type SheetChoice, type SheetFound } from './xlsx-parts.js';

export type { SheetChoice } from './xlsx-parts.js';

export interface SheetRow {
  rowNo: number;
  /** Cells by 0-based column index, up to the last cell written; a missing (or merged-over) cell is absent. */
  cells: Array<CellText | undefined>;
}

export interface SheetReading {
  /** The sheet read: its name and 1-based position among the workbook's sheets. */
  sheet: { name: string; position: number };
  rows: AsyncGenerator<SheetRow>;
  /** Ends the reading (the rows left unread). */
  close: () => void;
}

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/** Why the first bytes are not those of an xlsx workbook (a zip), or null. */
export function notWorkbook(first: Uint8Array): string | null {
  if (ZIP_MAGIC.every((b, i) => first[i] === b)) return null;
  if (OLE_MAGIC.every((b, i) => first[i] === b))
    return 'an Excel 97-2003 workbook (.xls) or a password-protected workbook, which format: xlsx does not read: save it in Excel as an Excel Workbook (.xlsx) without a password';
  return 'not an xlsx workbook (an xlsx file is a zip archive; this file does not start like one)';
}

const describeChoice = (want: SheetChoice): string => (typeof want === 'number' ? `sheet ${want}` : `sheet ${JSON.stringify(want)}`);

/**
 * Open `want` of the workbook whose bytes `source` gives: resolves once the sheet's part is
 * reached (the sheets before it read past), refuses a file that is no workbook or has no such sheet.
 */
export async function openSheet(path: string, source: ByteSource, want: SheetChoice, stopped: () => boolean): Promise<SheetReading> {
  const first = await source.chunks.next();
  const head = first.done === true ? Buffer.alloc(0) : first.value;
  const refusal = notWorkbook(head);
  if (refusal !== null) throw new UserError(`${path}: ${refusal}`);
  async function* bytes(): AsyncGenerator<Buffer> {
    yield head;
    for (;;) {
      const next = await source.chunks.next();
      if (next.done === true) return;
      yield next.value;
    }
  }
  const input = Readable.from(bytes(), { objectMode: false });
  const { default: ExcelJS } = await import('exceljs');
  // used for its part parsers only (src/input/formats/xlsx-parts.ts says why not for its loop)
  const parts = new ExcelJS.stream.xlsx.WorkbookReader(input, {
    worksheets: 'emit',
    // each handed to SheetWalk, which keeps them compactly (xlsx-strings.ts); a cell refers to one by index
    sharedStrings: 'emit',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  }) as unknown as PartParsers;
  let found: SheetFound;
  try {
    found = await findSheet(input, parts, want);
  } catch (error) {
    throw new UserError(`${path}: not a readable xlsx workbook (${damage(error)})`, { cause: error });
  }
  if (found.kind === 'not-workbook') throw new UserError(`${path}: not an xlsx workbook: the zip archive holds ${found.lacks}`);
  if (found.kind === 'incomplete') {
    const named = found.lacks.map((part) => `${part.path} (${part.holds})`).join(' and ');
    throw new UserError(`${path}: a damaged xlsx workbook: its workbook names ${named}, which the zip archive does not hold`);
  }
  if (found.kind === 'missing') {
    const names = found.names.map((n) => JSON.stringify(n));
    throw new UserError(`${path}: the workbook has no ${describeChoice(want)} (its sheets: ${names.join(', ')})`);
  }
  const date1904 = parts.properties?.model?.date1904 === true;
  return { sheet: { name: found.name, position: found.position }, rows: sheetRows(found, date1904, stopped), close: found.close };
}

const unreferenced = (what: string): string =>
  `${what} (no r attribute), which exceljs, the library that streams the sheet, needs to place it: save the workbook again in Excel or LibreOffice, which write every reference`;

/** What went wrong in a damaged workbook, in a few words. */
export function damage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/FILE_ENDED|end of|unexpected end|premature/i.test(message)) return 'the zip archive is cut short';
  // exceljs's words for a cell reference past XFD ("Out of bounds. Invalid column letter: XFE")
  if (/invalid column letter|out of bounds/i.test(message)) return 'a cell past column XFD: more columns than the 16384 a sheet can have';
  // SpreadsheetML lets a cell or row leave out its reference (`r`, then the next one); exceljs's
  // streaming reader places them by it only: a cell without one fails in its decodeAddress
  // ("Cannot read properties of undefined"), a row without one makes addresses like "ANaN"
  if (error instanceof TypeError && /\bdecodeAddress\b/.test(error.stack ?? '')) return unreferenced('a cell without its reference');
  if (/^Invalid Address: [A-Z]+NaN$/.test(message)) return unreferenced('a row without its number');
  return message.replace(/\s+/g, ' ').slice(0, 200);
}

/** A cell exceljs's own cache would have left empty: a shared string that is empty (<si/>) or none. */
const NO_CELL = Symbol('no cell');

/** A cell's value, a shared string's index read as the string (without the workbook's strings: left to cellText). */
function valueOf(value: unknown, strings: SharedStrings | null): CellValue | typeof NO_CELL {
  if (strings === null || typeof value !== 'object' || value === null || !('sharedString' in value)) return value as CellValue;
  const shared = strings.get(value.sharedString as number) as CellValue;
  // from exceljs's cache such a cell was null, and eachCell passes over null cells
  return shared === null || shared === undefined ? NO_CELL : shared;
}

async function* sheetRows(found: SheetFound & { kind: 'sheet' }, date1904: boolean, stopped: () => boolean): AsyncGenerator<SheetRow> {
  const strings = found.strings;
  for await (const row of found.sheet) {
    if (stopped()) return;
    const cells: Array<CellText | undefined> = [];
    row.eachCell({ includeEmpty: false }, (cell, col) => {
      const value = valueOf(cell.value, strings);
      if (value !== NO_CELL) cells[col - 1] = cellText(value, cell.numFmt, date1904);
    });
    yield { rowNo: row.number, cells };
  }
  if (stopped()) return;
  // the rest of the workbook read through: the identity's tap sees every byte
  await found.finish();
}
