/** What a profile of `format: xlsx` may not say, and its column references checked (a header name, a column letter or a number). */
import { MAX_COLUMN, columnNumber } from '../formats/xlsx-cells.js';

interface XlsxSpecPart {
  format: string;
  delimiter?: string | undefined;
  quote?: string | undefined;
  escape?: string | undefined;
  units?: string | undefined;
  comment?: string | undefined;
  encoding: string;
  header?: boolean | undefined;
  sheet?: string | number | undefined;
  columns: Record<string, { column?: string | number | string[] | undefined }>;
  when?: { column?: string | number | string[] | undefined } | undefined;
  control?: Partial<
    Record<'trailer' | 'header' | 'count' | 'sum' | 'bytes' | 'sha256', { column?: string | number | string[] | undefined }>
  >;
}

export function xlsxSpecProblems(p: XlsxSpecPart, issue: (path: Array<string | number>, message: string) => void): void {
  if (p.format !== 'xlsx') {
    if (p.sheet !== undefined) issue(['sheet'], 'sheet is for format: xlsx');
    return;
  }
  for (const key of ['delimiter', 'quote', 'escape', 'units', 'comment'] as const)
    if (p[key] !== undefined) issue([key], `a ${key} has no meaning for format: xlsx (a workbook has cells, not text lines)`);
  if (p.encoding !== 'utf-8') issue(['encoding'], 'a workbook holds its own text: format: xlsx takes no encoding');
  const check = (path: Array<string | number>, ref: string | number | string[] | undefined): void => {
    if (ref === undefined) return;
    if (typeof ref === 'number') {
      if (ref > MAX_COLUMN) issue(path, `out of range: a sheet has ${MAX_COLUMN} columns (A to XFD)`);
      return;
    }
    // without a header row a column is its letter or its number
    if (p.header === false)
      (typeof ref === 'string' ? [ref] : ref).forEach((text, i) => {
        if (columnNumber(text.trim()) === null)
          issue(typeof ref === 'string' ? path : [...path, i], 'header: false: a column is its letter (A to XFD) or its 1-based number');
      });
  };
  for (const [name, c] of Object.entries(p.columns)) check(['columns', name, 'column'], c.column);
  check(['when', 'column'], p.when?.column);
  // a trailer or header row is read by column as the data rows are (a control file's line by field number)
  const control = p.control;
  if (control === undefined || (control.trailer === undefined && control.header === undefined)) return;
  for (const key of ['trailer', 'header', 'count', 'sum', 'bytes', 'sha256'] as const)
    check(['control', key, 'column'], control[key]?.column);
  const rule = control.header?.column;
  // the header row's rule is tested on the rows above the column names, which it cannot name
  if (typeof rule === 'string' && columnNumber(rule.trim()) === null)
    issue(
      ['control', 'header', 'column'],
      'a header row comes before the column names: its column is a letter (A to XFD) or a 1-based number',
    );
}
