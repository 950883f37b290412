/**
 * A workbook's control row under a `not_in` rule (src/input/formats/xlsx-control.ts), which passes
 * an empty text: a row too short for the rule's column, or a rule column the header lacks, must
 * still be no control row, though the missing cell would read as '' and pass the rule. Written
 * against the survivors of StrykerJS's `xlsx` group (docs/mutation.md, "Scores of the `xlsx`
 * group"); not yet in the group's list.
 */
import { describe, expect, it } from 'vitest';
import { sheetControls } from '../../src/input/formats/xlsx-control.js';
import { parseProfileText } from '../../src/input/profile/load-profile.js';

const COLUMNS =
  '  source_key: { column: Key }\n  customer_id: { column: B }\n  order_date: { column: 3 }\n' +
  '  amount: { column: Amount }\n  currency: { const: JPY }\n';

const control = (rule: string) =>
  parseProfileText(`version: 1\nname: wb\nformat: xlsx\ncontrol: { ${rule}, count: { column: B } }\ncolumns:\n${COLUMNS}`, 'wb.yaml', 'wb')
    .spec;

describe('sheetControls: a rule that passes an empty cell takes no cell that is not there', () => {
  it('a row too short for the rule column is no control row; one that reaches it is', () => {
    const c = sheetControls(control('trailer: { column: D, not_in: [D1, D2] }'), () => ['Key', 'Cust', 'Date', 'Amount']);
    expect(c?.taken(7, ['T', '3', 'x'])).toBe(false);
    expect(c?.taken(8, ['T', '3', 'x', ''])).toBe(true);
    expect(c?.records.map((r) => r.lineNo)).toEqual([8]);
  });

  it('a rule column the header lacks takes no row', () => {
    const c = sheetControls(control('trailer: { column: Kind, not_in: [D] }'), () => ['Key', 'Cust', 'Date', 'Amount']);
    expect(c?.taken(9, ['T', '3', 'x', '5'])).toBe(false);
    expect(c?.records).toEqual([]);
  });
});
