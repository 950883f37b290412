/**
 * guess on an xlsx workbook: the first rows of its first sheet that holds a table (at least two
 * rows with a cell), each row as a CSV line of its cells as the xlsx reader reads them (dates as
 * YYYY-MM-DD, numbers as Excel shows them), one line per row number from row 1 (an empty row is an
 * empty line), so that the CSV detectors judge header, banner rows and columns, and `skip_lines`
 * counts rows as the reader does.
 */
import { UserError } from '../../errors.js';
import { csvLine } from '../formats/xlsx-cells.js';
import { openSheet } from '../formats/xlsx-sheet.js';
import { openByteSource } from '../gzip.js';

export interface WorkbookSample {
  sheet: { name: string; position: number };
  /** The sheets before it passed over, each with why. */
  passed: string[];
  /** The rows as CSV lines, from row 1. */
  text: string;
  rows: number;
  /** Every row of the sheet is in the sample (none past its limit). */
  complete: boolean;
}

/** Sheets looked at for a table before giving up. */
const SHEETS_LOOKED_AT = 10;

async function sheetLines(
  path: string,
  position: number,
  limit: number,
): Promise<{ sheet: WorkbookSample['sheet']; lines: string[]; filled: number; complete: boolean }> {
  const source = openByteSource(path, { gzip: false });
  let done = false;
  let close = () => {};
  try {
    const { sheet, rows, ...opened } = await openSheet(path, source, position, () => done);
    close = opened.close;
    const read: string[][] = [];
    let filled = 0;
    let complete = true;
    for await (const row of rows) {
      if (row.rowNo > limit) {
        complete = false;
        break;
      }
      while (read.length < row.rowNo - 1) read.push([]);
      const texts = Array.from(row.cells, (c) => c?.text ?? '');
      if (texts.some((t) => t.trim() !== '')) filled++;
      read.push(texts);
    }
    // a row with at least half of the widest row's cells is made as wide: its last cells empty (or
    // merged over) make it no trailer; a title above the table or a total below it (a cell or two) stays short
    const width = Math.max(0, ...read.map((r) => r.length));
    const lines = read.map((r) => {
      const filled = r.filter((t) => t.trim() !== '').length;
      return r.length === 0 ? '' : csvLine(filled * 2 >= width ? [...r, ...Array<string>(width - r.length).fill('')] : r);
    });
    return { sheet, lines, filled, complete };
  } finally {
    done = true;
    close();
    source.close();
  }
}

/** The sample of the first sheet of `path` with a table (at most `limit` rows). */
export async function workbookSample(path: string, limit: number): Promise<WorkbookSample> {
  const passed: string[] = [];
  for (let position = 1; position <= SHEETS_LOOKED_AT; position++) {
    let read: Awaited<ReturnType<typeof sheetLines>>;
    try {
      read = await sheetLines(path, position, limit);
    } catch (error) {
      // past the last sheet: the first one read is the draft's, table or not
      if (position > 1 && error instanceof UserError && /has no sheet/.test(error.message)) break;
      throw error;
    }
    if (read.filled >= 2)
      return { sheet: read.sheet, passed, text: read.lines.join('\n'), rows: read.lines.length, complete: read.complete };
    passed.push(`sheet ${position} ${JSON.stringify(read.sheet.name)}: ${read.filled} row(s) with a cell, no table`);
  }
  throw new UserError(
    `${path}: an xlsx workbook with no sheet of at least two rows (${passed.join('; ')}): nothing to draft a profile from`,
  );
}
