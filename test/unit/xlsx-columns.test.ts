/**
 * Where an xlsx profile's columns and control rows are in a sheet (src/input/formats/xlsx-columns.ts,
 * xlsx-control.ts), called directly with a header row: a name matched as a CSV profile's are, a
 * column letter, a number, a name twice, a column not there, `when`, `extra`, the control row of
 * a trailer or header rule. The reader's tests reach them through whole workbooks; written
 * against the survivors of StrykerJS's `xlsx` group (docs/mutation.md).
 */
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { sheetColumnIndex, sheetColumns } from '../../src/input/formats/xlsx-columns.js';
import { sheetControls } from '../../src/input/formats/xlsx-control.js';
import { parseProfileText, type LoadProfile } from '../../src/input/profile/load-profile.js';

const profile = (columns: string, rest = ''): LoadProfile =>
  parseProfileText(`version: 1\nname: wb\nformat: xlsx\n${rest}columns:\n${columns}`, 'wb.yaml', 'wb');

const FIVE =
  '  source_key: { column: Key }\n  customer_id: { column: B }\n  order_date: { column: 3 }\n' +
  '  amount: { column: [Total, Amount] }\n  currency: { const: JPY }\n';

describe('sheetColumnIndex: a column reference in a header row', () => {
  it('none, a 1-based number, a name (case, blanks and full width ignored), the first of a list found, a letter', () => {
    const names = ['Key', 'Customer', 'Order Date', 'Amount'];
    expect(sheetColumnIndex(names, undefined)).toBe(-1);
    expect(sheetColumnIndex(names, 3)).toBe(2);
    expect(sheetColumnIndex(names, 'key')).toBe(0);
    expect(sheetColumnIndex(names, ' ＡＭＯＵＮＴ ')).toBe(3);
    expect(sheetColumnIndex(names, ['Total', 'Amount', 'Key'])).toBe(3);
    expect(sheetColumnIndex(names, ['Key', 'Amount'])).toBe(0);
    expect(sheetColumnIndex(names, 'C')).toBe(2);
    expect(sheetColumnIndex(names, ' AB ')).toBe(27);
    expect(sheetColumnIndex(names, ['Total', 'D'])).toBe(3);
    expect(sheetColumnIndex(names, 'Total')).toBe(-1);
    expect(sheetColumnIndex(names, ['Total', 'Sum'])).toBe(-1);
    expect(sheetColumnIndex([], 'B')).toBe(1);
  });

  it('a name before a letter: a header cell named "B" is the column it is in', () => {
    expect(sheetColumnIndex(['x', 'y', 'B'], 'B')).toBe(2);
    expect(sheetColumnIndex(['x', 'y', 'b'], ['z', 'B'])).toBe(2);
  });
});

describe('sheetColumns: the five fields, when and extra in a sheet', () => {
  it('each field its cell index (a const one -1), found under its header name or its letter', () => {
    const c = sheetColumns(['Key', '', 'Date', 'Amount', 'Note'], 'sheet Orders of wb.xlsx', profile(FIVE));
    expect(c.indexes).toEqual({ source_key: 0, customer_id: 1, order_date: 2, amount: 3, currency: -1 });
    expect(c.found).toEqual({ source_key: 'Key', customer_id: 'B', order_date: 'Date', amount: 'Amount' });
    expect(c.when).toBe(-1);
    expect(c.attributes).toBeNull();
    // the header cells no field reads, said as ignored (an empty cell is no name)
    expect(c.unused).toEqual(['Note']);
  });

  it('extra: ignore written in the profile is quiet about the cells it ignores', () => {
    const c = sheetColumns(['Key', 'Cust', 'Date', 'Amount', 'Note'], 'sheet 1', profile(FIVE, 'extra: ignore\n'));
    expect(c.unused).toEqual([]);
  });

  it('a name on two header cells refuses the file naming both columns; a letter or a number does not', () => {
    const twice = () => sheetColumns(['Key', 'Cust', 'Date', 'Key', 'Amount'], 'sheet Orders of wb.xlsx', profile(FIVE));
    expect(twice).toThrow(UserError);
    expect(twice).toThrow(
      'profile wb: columns.source_key.column: "Key" names columns A and D of sheet Orders of wb.xlsx: which one is meant cannot be told',
    );
    // the same name twice, read by letter and by number: no question which
    const byPosition = profile(
      '  source_key: { column: A }\n  customer_id: { column: 2 }\n  order_date: { column: C }\n  amount: { column: D }\n  currency: { const: JPY }\n',
    );
    expect(sheetColumns(['K', 'K', 'K', 'K'], 'sheet 1', byPosition).indexes).toEqual({
      source_key: 0,
      customer_id: 1,
      order_date: 2,
      amount: 3,
      currency: -1,
    });
    // empty header cells twice are no name
    const c = sheetColumns(['Key', '', 'Date', 'Amount', ''], 'sheet 1', profile(FIVE));
    expect(c.indexes.customer_id).toBe(1);
  });

  it('a column not in the header refuses the file, showing the header (or an empty row)', () => {
    const missing = profile(FIVE.replace('column: Key', 'column: [Id, Ref]'));
    expect(() => sheetColumns(['Key', 'Cust'], 'sheet Orders of wb.xlsx', missing)).toThrow(
      'profile wb: columns.source_key.column: column "Id" or "Ref" is not in the header of sheet Orders of wb.xlsx (A "Key", B "Cust"); name a header cell or a column letter',
    );
    expect(() => sheetColumns([], 'sheet Orders of wb.xlsx', profile(FIVE))).toThrow(
      'profile wb: columns.source_key.column: column "Key" is not in the header of sheet Orders of wb.xlsx (an empty row); name a header cell or a column letter',
    );
  });

  it('when: its column found as a field is', () => {
    const c = sheetColumns(['Key', 'Cust', 'Date', 'Amount', 'Kind'], 'sheet 1', profile(FIVE, 'when: { column: kind, equals: O }\n'));
    expect(c.when).toBe(4);
    expect(c.unused).toEqual([]);
    expect(() => sheetColumns(['Key', 'Cust', 'Date', 'Amount'], 'sheet 1', profile(FIVE, 'when: { column: Kind, equals: O }\n'))).toThrow(
      /^profile wb: when.column: column "Kind" is not in the header of sheet 1/,
    );
  });

  it('extra: keep takes the other named cells; without a header, each row its cells past the fields', () => {
    const kept = sheetColumns(['Key', 'Cust', 'Date', 'Amount', 'Note', ''], 'sheet 1', profile(FIVE, 'extra: keep\n'));
    expect(kept.attributes).not.toBeNull();
    expect(typeof kept.attributes).toBe('object');
    expect(kept.unused).toEqual([]);
    const listed = sheetColumns(['Key', 'Cust', 'Date', 'Amount', 'Note', 'Memo'], 'sheet 1', profile(FIVE, 'extra: [Memo]\n'));
    expect(listed.unused).toEqual(['Note']);
    const positional = profile(
      '  source_key: { column: A }\n  customer_id: { column: B }\n  order_date: { column: C }\n  amount: { column: D }\n  currency: { const: JPY }\n',
      'header: false\nextra: keep\n',
    );
    const c = sheetColumns([], 'sheet 1', positional);
    expect(typeof c.attributes).toBe('function');
    expect(c.unused).toEqual([]);
  });
});

describe('sheetControls: the control row of a sheet', () => {
  const control = (rule: string, header = '') => profile(FIVE, `${header}control: { ${rule}, count: { column: B } }\n`).spec;

  it('none without a control rule', () => {
    expect(sheetControls(profile(FIVE).spec, () => [])).toBeNull();
  });

  it('a trailer rule: a row whose cell in its column passes is taken (trimmed), kept with its cells and text', () => {
    const names = ['Key', 'Cust', 'Date', 'Amount'];
    const c = sheetControls(control('trailer: { column: Key, equals: Total }'), () => names);
    if (c === null) throw new Error('no control rows');
    expect(c.aboveNames(1, ['Total', '3'])).toBe(false);
    expect(c.taken(5, ['A1', '3'])).toBe(false);
    expect(c.taken(6, [' Total ', '3', 'a,"b"'])).toBe(true);
    expect(c.records).toHaveLength(1);
    const record = c.records[0];
    expect(record).toMatchObject({ lineNo: 6, fields: [' Total ', '3', 'a,"b"'], text: ' Total ,3,"a,""b"""' });
    const cellIndex = record?.cellIndex;
    if (cellIndex === undefined) throw new Error('a workbook control row reads its figures by column');
    expect(cellIndex('Amount')).toBe(3);
    expect(cellIndex('B')).toBe(1);
    expect(cellIndex(2)).toBe(1);
  });

  it('a row too short for the rule column, or a column the header lacks, is no control row', () => {
    const c = sheetControls(control('trailer: { column: D, equals: Total }'), () => ['Key', 'Cust', 'Date', 'Amount']);
    expect(c?.taken(7, ['Total', '3', 'x'])).toBe(false);
    expect(c?.taken(8, ['x', '3', 'x', 'Total'])).toBe(true);
    const none = sheetControls(control('trailer: { column: Kind, equals: Total }'), () => ['Key']);
    expect(none?.taken(9, ['Total'])).toBe(false);
    expect(none?.records).toEqual([]);
  });

  it('a header rule is tested on the rows above the column names too', () => {
    const c = sheetControls(control('header: { column: A, in: [H, HDR] }', 'skip_lines: 1\n'), () => []);
    expect(c?.aboveNames(1, ['HDR', '2'])).toBe(true);
    expect(c?.aboveNames(2, ['Key', '2'])).toBe(false);
    expect(c?.records.map((r) => r.lineNo)).toEqual([1]);
  });
});
