/**
 * Small xlsx workbooks for the tests, written with exceljs's own writer (the library the reader
 * streams with): sheets of rows, a cell given as a plain value, or as `{ value, numFmt }` for a
 * date serial or a formatted number, or a formula with its cached result.
 */
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
