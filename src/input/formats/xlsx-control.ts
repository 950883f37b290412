/**
 * A workbook's control rows (`control: trailer` or `control: header` of a `format: xlsx`
 * profile): a row whose cell in the rule's column passes the rule states the sheet's own totals.
 * It is no data row, whatever `skip_lines` or `when` say; it is kept for the check
 * (src/input/control/control-check.ts), which reads its figures by column as the profile names
 * them: a header name, a letter or a number. Only a `header:` rule is tested on the rows above
 * the column-name row, so a trailer rule never takes the names.
 */
import { ruleTest, type ControlRecord } from '../control/control-record.js';
import type { LoadProfileSpec } from '../profile/schema.js';
import { csvLine } from './xlsx-cells.js';
import { sheetColumnIndex } from './xlsx-columns.js';

export interface SheetControls {
  /** The rows taken so far. */
  readonly records: ControlRecord[];
  /** Whether a row above the column names is the header row (kept); always false for a trailer rule. */
  aboveNames(rowNo: number, texts: readonly string[]): boolean;
  /** Whether a row of the table is the control row (kept). */
  taken(rowNo: number, texts: readonly string[]): boolean;
}

/** The control rows of a sheet read with this spec, or null when it names none. `names`: the header row once read (empty before, and without one). */
export function sheetControls(spec: LoadProfileSpec, names: () => readonly string[]): SheetControls | null {
  const rule = spec.control?.trailer ?? spec.control?.header;
  if (rule === undefined || rule.column === undefined) return null;
  const column = rule.column;
  const test = ruleTest(rule);
  const header = spec.control?.header !== undefined;
  const records: ControlRecord[] = [];
  const cellIndex = (ref: string | number): number => sheetColumnIndex(names(), ref);
  const taken = (rowNo: number, texts: readonly string[]): boolean => {
    const i = sheetColumnIndex(names(), column);
    if (i < 0 || i >= texts.length || !test((texts[i] ?? '').trim())) return false;
    records.push({ lineNo: rowNo, fields: [...texts], text: csvLine(texts), cellIndex });
    return true;
  };
  return {
    records,
    aboveNames: (rowNo, texts) => header && taken(rowNo, texts),
    taken,
  };
}
