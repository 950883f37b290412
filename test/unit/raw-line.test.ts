import { describe, expect, it } from 'vitest';
import type { FileLayout } from '../../src/engine/types.js';
import { parseProfileText } from '../../src/input/profile/load-profile.js';
import { splitRawLine } from '../../src/input/raw-line.js';

/** The rejected line's values, reconstructed for `errors` and `retry --from-errors` (more in formula-guard.test.ts). */
const ORDER_HEADER = ['source_key', 'customer_id', 'order_date', 'amount', 'currency'];
const plain: FileLayout = { header: ORDER_HEADER, delimiter: ',' };
const values = (source_key: string, customer_id: string, order_date: string, amount: string, currency: string) => ({
  source_key,
  customer_id,
  order_date,
  amount,
  currency,
});

/** A file read through a profile, as its load recorded it (the spec went through JSON in the run's 'invoked' event). */
function profiled(yaml: string, header: string[], encoding = 'utf-8'): FileLayout {
  const profile = parseProfileText(yaml, 'p.yaml', 'p');
  const spec: unknown = JSON.parse(JSON.stringify(profile.spec));
  return { header, delimiter: ';', profile: { name: profile.name, sha256: profile.sha256, spec, encoding } };
}

describe('splitRawLine over the built-in format', () => {
  it('finds the columns by the header as written in the file: any case, surrounding blanks', () => {
    const layout = { header: [' Source_Key ', 'note', 'CUSTOMER_ID', 'Order_Date', ' amount', 'Currency '], delimiter: ',' };
    expect(splitRawLine('P-1,hello,7,2026-01-05,12.5,JPY', layout)).toEqual(values('P-1', '7', '2026-01-05', '12.5', 'JPY'));
  });

  it('an empty raw text: every column empty', () => {
    expect(splitRawLine('', plain)).toEqual(values('', '', '', '', ''));
  });

  it('a quoted line break is part of its field, whatever the line ends of the file', () => {
    for (const eol of ['\n', '\r\n', '\r'])
      expect(splitRawLine(`P-1,7,2026-01-05,"1${eol}0",JPY`, plain), JSON.stringify(eol)).toEqual(
        values('P-1', '7', '2026-01-05', `1${eol}0`, 'JPY'),
      );
  });

  it('a raw text that reads as several records (a line break outside quotes): their fields in order, none lost', () => {
    for (const eol of ['\n', '\r\n', '\r'])
      expect(splitRawLine(`P-1,7${eol}2026-01-05,12.5,JPY`, plain), JSON.stringify(eol)).toEqual(
        values('P-1', '7', '2026-01-05', '12.5', 'JPY'),
      );
  });

  it('mixed line ends (a file edited on two systems): each one ends a line', () => {
    expect(splitRawLine('P-1,7\r\n2026-01-05\n12.5,JPY', plain)).toEqual(values('P-1', '7', '2026-01-05', '12.5', 'JPY'));
  });

  it('a stray quote in a field after a quoted field: both read as written', () => {
    expect(splitRawLine('"P,1",7,2026-01-05,1"00,JPY', plain)).toEqual(values('P,1', '7', '2026-01-05', '1"00', 'JPY'));
  });
});

describe('splitRawLine of a file read through a load profile: the five fields as the profile maps them', () => {
  const EU = `version: 1
delimiter: ";"
columns:
  source_key: { column: ["Order No", "OrderNo"] }
  customer_id: { column: "Customer" }
  order_date: { column: "Date", date: "DD.MM.YYYY" }
  amount: { column: "Total", decimal: ",", group: "." }
  currency: { const: "EUR" }
`;

  it('columns by header name (the first alias found, in any case and width), converted as loaded', () => {
    const layout = profiled(EU, ['ORDERNO', ' Customer ', 'Note', 'Date', 'Total']);
    expect(splitRawLine('"A;1";42;x;05.01.2026;1.234,50', layout)).toEqual(values('A;1', '42', '2026-01-05', '1234.5', 'EUR'));
    // a value the profile could not read keeps its text as found; a missing field is empty
    expect(splitRawLine('A-2;42;x;2026-01-05', layout)).toEqual(values('A-2', '42', '2026-01-05', '', 'EUR'));
  });

  it('as lenient as the built-in format: a stray quote, several records, mixed line ends, an empty text', () => {
    const layout = profiled(EU, ['OrderNo', 'Customer', 'Note', 'Date', 'Total']);
    expect(splitRawLine('"A;1";42;x"y;05.01.2026;7', layout)).toEqual(values('A;1', '42', '2026-01-05', '7', 'EUR'));
    expect(splitRawLine('A-5;42\r\nx;05.01.2026\n7', layout)).toEqual(values('A-5', '42', '2026-01-05', '7', 'EUR'));
    expect(splitRawLine('', layout)).toEqual(values('', '', '', '', 'EUR'));
  });

  it('a column the header does not have is empty', () => {
    expect(splitRawLine('A-3;x;05.01.2026;7', profiled(EU, ['Order No', 'Note', 'Date', 'Total']))).toEqual(
      values('A-3', '', '2026-01-05', '7', 'EUR'),
    );
  });

  it('the profile’s quote and escape characters; a comma when it names no delimiter', () => {
    const quoted = `version: 1
quote: "'"
escape: "\\\\"
columns:
  source_key: { column: "k" }
  customer_id: { column: "c" }
  order_date: { column: "d" }
  amount: { column: "a" }
  currency: { column: "cur" }
`;
    const layout = profiled(quoted, ['k', 'c', 'd', 'a', 'cur']);
    expect(splitRawLine("'it\\'s,1',7,2026-01-05,\"5\",JPY", layout)).toEqual(values("it's,1", '7', '2026-01-05', '"5"', 'JPY'));
    // an unclosed quote: the plain split, by the comma
    expect(splitRawLine("K-1,'7,2026-01-05,5,JPY", layout)).toEqual(values('K-1', "'7", '2026-01-05', '5', 'JPY'));
  });

  it('columns by number (no header)', () => {
    const numbered = `version: 1
header: false
delimiter: "|"
columns:
  source_key: { column: 2 }
  customer_id: { column: 1 }
  order_date: { column: 4 }
  amount: { column: 3 }
  currency: { column: 6 }
`;
    expect(splitRawLine('7|K-9|12.5|2026-01-05|JPY', profiled(numbered, []))).toEqual(values('K-9', '7', '2026-01-05', '12.5', ''));
  });

  it('an unclosed quote: the plain split by the profile’s delimiter', () => {
    const layout = profiled(EU, ['OrderNo', 'Customer', 'Note', 'Date', 'Total']);
    expect(splitRawLine('A-4;"42;x;05.01.2026;9', layout)).toEqual(values('A-4', '"42', '2026-01-05', '9', 'EUR'));
  });

  it('a fixed-width line: the fields at their positions', () => {
    const fixed = `version: 1
format: fixed
columns:
  source_key: { at: [1, 5] }
  customer_id: { at: [6, 4] }
  order_date: { at: [10, 8], date: "YYYYMMDD" }
  amount: { at: [18, 6] }
  currency: { at: [24, 3] }
`;
    expect(splitRawLine('A1   42  20260105 12.50EUR', profiled(fixed, []))).toEqual(values('A1', '42', '2026-01-05', '12.50', 'EUR'));
  });

  it('a recorded profile this version does not read: the plain split by the recorded header and delimiter', () => {
    // the sender's header: the columns it does not name by an order column's name are empty
    const layout: FileLayout = {
      header: ['source_key', 'Customer', 'order_date', 'Total', 'currency'],
      delimiter: ';',
      profile: { name: 'future', sha256: 'f'.repeat(64), spec: { version: 2, columns: {} }, encoding: 'utf-8' },
    };
    expect(splitRawLine('P-5;7;2026-01-05;1;JPY', layout)).toEqual(values('P-5', '', '2026-01-05', '', 'JPY'));
  });
});
