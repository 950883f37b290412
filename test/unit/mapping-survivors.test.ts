/**
 * The mapping's readings that StrykerJS found untested (docs/mutation.md, "Not measured yet":
 * the survivors of mapping.ts's measured run, and the mutants only profile-mapping-fast.test.ts
 * killed, which is too slow for the profile group's list): each written amount of each decimal and
 * group style with its canonical text or its refusal, null_if and `when` lists of every size, the
 * fixed-width date masks in each token order, masks that look exclusive but are not. Every case is
 * asserted as the mapping gives it (the field, the PARSE_* code, the message). No database, no file;
 * each profile and mapping is built inside its test (StrykerJS's per-test coverage).
 */
import { describe, expect, test } from 'vitest';
import type { OrderColumn } from '../../src/input/order-record.js';
import { parseProfileText, type LoadProfile } from '../../src/input/profile/load-profile.js';
import { compileMapping, exclusiveMasks, type Mapping } from '../../src/input/profile/mapping.js';

/** A CSV profile ("; "-delimited); `columns` replaces the five columns' lines, `extra` is added at the top level. */
function profile(extra = '', columns?: Partial<Record<OrderColumn, string>>): LoadProfile {
  const c: Record<OrderColumn, string> = {
    source_key: '{ column: "k" }',
    customer_id: '{ column: "c", default: "D" }',
    order_date: '{ column: "d", date: "DD.MM.YYYY" }',
    amount: '{ column: "a" }',
    currency: '{ column: "cur" }',
    ...columns,
  };
  const lines = Object.entries(c).map(([name, spec]) => `  ${name}: ${spec}`);
  return parseProfileText(`version: 1\ndelimiter: ";"\n${extra}columns:\n${lines.join('\n')}\n`, 'p.yaml', 'p');
}

const ROW: Record<OrderColumn, string> = {
  source_key: 'K-1',
  customer_id: '7',
  order_date: '01.12.2026',
  amount: '10',
  currency: 'EUR',
};

const mapRow = (m: Mapping, values: Partial<Record<OrderColumn, string>>) => m.map((c) => ({ ...ROW, ...values })[c]);

/** A field as the mapping gives it: its text, or the line's PARSE_* code when that field could not be read. */
function field(m: Mapping, column: OrderColumn, value: string): string {
  const out = mapRow(m, { [column]: value });
  if (out.problem === null) return out.fields[column];
  expect(out.problem.column).toBe(column);
  return out.problem.code;
}

/** Each value with what the mapping makes of it, checked one by one (the value named in a failure). */
function expectReadings(m: Mapping, column: OrderColumn, cases: ReadonlyArray<readonly [string, string]>): void {
  for (const [value, expected] of cases) expect(field(m, column, value), JSON.stringify(value)).toBe(expected);
}

const amountMapping = (spec: string) => compileMapping(profile('', { amount: `{ column: "a", ${spec} }` }));
const REFUSED = 'PARSE_AMOUNT';

describe('amounts: each written form to its canonical text (no leading zeros, no trailing zeros of the fraction) or refused', () => {
  test('decimal ".", no group separator', () => {
    expectReadings(amountMapping('decimal: "."'), 'amount', [
      ['0', '0'],
      ['00', '0'],
      ['000', '0'],
      ['007', '7'],
      ['0100', '100'],
      ['10', '10'],
      ['90', '90'],
      ['1234567', '1234567'],
      ['1.5', '1.5'],
      ['01.5', '1.5'],
      ['1.50', '1.5'],
      // a third decimal is refused, zeros or not: orders.amount holds two
      ['1.500', REFUSED],
      ['10.0', '10'],
      ['1.0', '1'],
      ['0.0', '0'],
      ['0.000', REFUSED],
      ['0.5', '0.5'],
      ['00.50', '0.5'],
      ['0.05', '0.05'],
      ['1.05', '1.05'],
      ['9.09', '9.09'],
      ['100.001', REFUSED],
      // refused: no digit before or after the point, a second point, letters, other separators
      ['1.', REFUSED],
      ['.5', REFUSED],
      ['1.5.0', REFUSED],
      ['12a', REFUSED],
      ['1a.5', REFUSED],
      ['1.5a', REFUSED],
      ['1.a', REFUSED],
      ['1,5', REFUSED],
      ['1,234', REFUSED],
      ['1 5', REFUSED],
      ['a', REFUSED],
      // "/" and ":" stand just below "0" and just above "9"
      ['1/', REFUSED],
      ['/1', REFUSED],
      ['1:', REFUSED],
      [':1', REFUSED],
      ['1./', REFUSED],
      ['1.:', REFUSED],
      ['1.5/', REFUSED],
      ['1.5:', REFUSED],
      // digits of other scripts are not read as digits (no normalize: nfkc)
      ['١٢٣', REFUSED],
      ['１２３', REFUSED],
      // a control character is no group separator when the profile names none
      ['1\u0001234', REFUSED],
      ['1\u0001234.5', REFUSED],
    ]);
  });

  test('decimal ",", group "."', () => {
    expectReadings(amountMapping('decimal: ",", group: "."'), 'amount', [
      ['1.234,50', '1234.5'],
      ['12.345.678,9', '12345678.9'],
      ['1.234', '1234'],
      ['1.234.567', '1234567'],
      ['1234', '1234'],
      ['1234,5', '1234.5'],
      ['999.999,999', REFUSED],
      ['100.000', '100000'],
      ['1.000,00', '1000'],
      ['1,5', '1.5'],
      ['1,50', '1.5'],
      ['01,50', '1.5'],
      ['0,5', '0.5'],
      ['0,0', '0'],
      ['0,05', '0.05'],
      // zeros before a group separator are leading zeros too
      ['0.001,5', '1.5'],
      ['000.001', '1'],
      ['0.000', '0'],
      ['0.000,50', '0.5'],
      ['00.100', '100'],
      // the first group of one to three digits, every other of three exactly
      ['1.23', REFUSED],
      ['1.2345', REFUSED],
      ['1.23,4', REFUSED],
      ['1.23.456', REFUSED],
      ['1.2345.678', REFUSED],
      ['1234.567', REFUSED],
      ['.123', REFUSED],
      ['1..234', REFUSED],
      ['1.234.', REFUSED],
      ['1.234,', REFUSED],
      [',5', REFUSED],
      ['1.234,5,6', REFUSED],
      ['1,5.0', REFUSED],
      ['1.234,5.', REFUSED],
      ['1 234', REFUSED],
      ['1.5', REFUSED],
    ]);
  });

  test('decimal ".", group ","; a blank, an apostrophe and a no-break space as group separators', () => {
    expectReadings(amountMapping('decimal: ".", group: ","'), 'amount', [
      ['1,234.50', '1234.5'],
      ['1,234.5', '1234.5'],
      ['1,234,567', '1234567'],
      ['12,345,678.90', '12345678.9'],
      ['0,001.5', '1.5'],
      ['1.5', '1.5'],
      ['01.5', '1.5'],
      ['1,23.4', REFUSED],
      ['1.234,5', REFUSED],
    ]);
    expectReadings(amountMapping('decimal: ",", group: " "'), 'amount', [
      ['1 234,5', '1234.5'],
      ['1 234 567', '1234567'],
      ['1 23', REFUSED],
    ]);
    expectReadings(amountMapping(`decimal: ".", group: "'"`), 'amount', [
      ["1'234.5", '1234.5'],
      ["1'234'000", '1234000'],
    ]);
    expectReadings(amountMapping('decimal: ",", group: "\\u00a0"'), 'amount', [
      ['1\u00a0234,00', '1234'],
      ['1\u00a0234', '1234'],
      // the three blanks are one class: a plain space and U+202F too
      ['1 234', '1234'],
      ['1\u202f234', '1234'],
    ]);
  });

  test('decimal "," without a group separator: a point is refused, not read as a group', () => {
    expectReadings(amountMapping('decimal: ","'), 'amount', [
      ['1,5', '1.5'],
      ['0,00', '0'],
      ['1234,50', '1234.5'],
      ['1.5', REFUSED],
      ['1.234', REFUSED],
    ]);
  });

  test('signs with separators: the sign applies to the canonical amount, a zero has none', () => {
    expectReadings(amountMapping('decimal: ",", group: ".", negative: ["-", "()"]'), 'amount', [
      ['(1.234,50)', '-1234.5'],
      ['-1.234,50', '-1234.5'],
      ['- 0.001,5', '-1.5'],
      ['(0,00)', '0'],
      ['-0', '0'],
      ['+1.234', '1234'],
      ['(1.23,4)', REFUSED],
    ]);
  });

  test('the refusal names the value, the form and the column', () => {
    const out = mapRow(amountMapping('decimal: ",", group: "."'), { amount: '1.23.456' });
    expect(out).toEqual({
      fields: { ...ROW, customer_id: '7', order_date: '2026-12-01', amount: '1.23.456' },
      problem: {
        column: 'amount',
        code: 'PARSE_AMOUNT',
        message: 'amount: "1.23.456" is not a number with decimal ",", group "." (column "a")',
      },
    });
  });
});

describe('null_if lists of every size: a member reads as empty (the default), any other text as itself', () => {
  const customer = (m: Mapping, v: string) => mapRow(m, { customer_id: v }).fields.customer_id;

  test('an empty list: nothing is null, an empty value still takes the default', () => {
    const m = compileMapping(profile('null_if: []\n'));
    expect(customer(m, 'x')).toBe('x');
    expect(customer(m, 'NULL')).toBe('NULL');
    expect(customer(m, '')).toBe('D');
    expect(m.normalize(() => 'x').customer_id).toBe('x');
  });

  test('one member, empty or not', () => {
    const empty = compileMapping(profile('null_if: [""]\n'));
    expect(customer(empty, '')).toBe('D');
    expect(customer(empty, 'x')).toBe('x');
    const one = compileMapping(profile('null_if: ["NULL"]\n'));
    expect(customer(one, 'NULL')).toBe('D');
    expect(customer(one, ' NULL ')).toBe('D');
    expect(customer(one, 'NULX')).toBe('NULX');
    expect(customer(one, 'NUL')).toBe('NUL');
    expect(customer(one, 'NULLS')).toBe('NULLS');
    expect(customer(one, 'x')).toBe('x');
    // a member listed twice is one member
    const twice = compileMapping(profile('null_if: ["NULL", "NULL"]\n'));
    expect(customer(twice, 'NULL')).toBe('D');
    expect(customer(twice, 'NULX')).toBe('NULX');
  });

  test('a few members: each of them, not another text of a member’s length', () => {
    const m = compileMapping(profile('null_if: ["", "n/a", "-", "NULL"]\n'));
    expect(['', 'n/a', '-', 'NULL'].map((v) => customer(m, v))).toEqual(['D', 'D', 'D', 'D']);
    expect(['n/b', '+', 'NULX', 'n/aa', 'x', 'NULLNULL'].map((v) => customer(m, v))).toEqual(['n/b', '+', 'NULX', 'n/aa', 'x', 'NULLNULL']);
    // a text of 31 characters or more, beside members that are all shorter
    expect(customer(m, 'n'.repeat(31))).toBe('n'.repeat(31));
    expect(customer(m, 'N'.repeat(40))).toBe('N'.repeat(40));
  });

  test('members of 31 characters and more only', () => {
    const a31 = 'a'.repeat(31);
    const b40 = 'b'.repeat(40);
    const m = compileMapping(profile(`null_if: ["${a31}", "${b40}"]\n`));
    expect(customer(m, a31)).toBe('D');
    expect(customer(m, b40)).toBe('D');
    expect(customer(m, 'c'.repeat(31))).toBe('c'.repeat(31));
    expect(customer(m, 'a'.repeat(32))).toBe('a'.repeat(32));
    expect(customer(m, 'a'.repeat(30))).toBe('a'.repeat(30));
    expect(customer(m, 'x')).toBe('x');
  });

  test('more than eight members', () => {
    const many = Array.from({ length: 12 }, (_, i) => `N${i}`);
    const m = compileMapping(profile(`null_if: ${JSON.stringify(many)}\n`));
    expect(many.map((v) => customer(m, v))).toEqual(many.map(() => 'D'));
    expect(['N12', 'N', 'x', 'N1 1'].map((v) => customer(m, v))).toEqual(['N12', 'N', 'x', 'N1 1']);
  });
});

describe('when with an empty text among its values', () => {
  test('in: [""] keeps the lines whose tested value is empty (or null_if), not the others', () => {
    const m = compileMapping(profile('when: { column: "s", in: [""] }\n'));
    expect(m.keep('')).toBe(true);
    expect(m.keep('  ')).toBe(true);
    expect(m.keep('x')).toBe(false);
  });

  test('not_in: [""] keeps the others', () => {
    const m = compileMapping(profile('when: { column: "s", not_in: [""] }\n'));
    expect(m.keep('')).toBe(false);
    expect(m.keep('x')).toBe(true);
  });

  test('in with one value of 31 characters or more', () => {
    const long = 'L'.repeat(31);
    const m = compileMapping(profile(`when: { column: "s", in: ["${long}", "${long}X"] }\n`));
    expect(m.keep(long)).toBe(true);
    expect(m.keep(`${long}X`)).toBe(true);
    expect(m.keep('M'.repeat(31))).toBe(false);
    expect(m.keep('L')).toBe(false);
  });
});

describe('normalize: nfkc in map: every field but source_key', () => {
  test('full-width digits, date and amount read; the key as written; a null_if value after NFKC', () => {
    const m = compileMapping(
      profile('normalize: nfkc\nnull_if: ["", "n/a"]\n', {
        amount: '{ column: "a", decimal: ",", group: "." }',
        currency: '{ column: "cur", default: "EUR" }',
      }),
    );
    expect(
      mapRow(m, { source_key: 'Ｋ１', customer_id: '１２', order_date: '０１.１２.２０２６', amount: '１.２３４,５', currency: 'ｎ/ａ' }),
    ).toEqual({
      fields: { source_key: 'Ｋ１', customer_id: '12', order_date: '2026-12-01', amount: '1234.5', currency: 'EUR' },
      problem: null,
    });
    // ASCII text is read as it is
    expect(mapRow(m, { customer_id: 'Ab1' }).fields.customer_id).toBe('Ab1');
  });
});

describe('fixed-width date masks: each token at its place, each separator checked', () => {
  const date = (mask: string, v: string) =>
    field(compileMapping(profile('', { order_date: `{ column: "d", date: "${mask}" }` })), 'order_date', v);

  test('the tokens in each order, without and with separators', () => {
    expect(date('DDMMYYYY', '31122026')).toBe('2026-12-31');
    expect(date('MMDDYYYY', '12312026')).toBe('2026-12-31');
    expect(date('YYYYDDMM', '20263112')).toBe('2026-12-31');
    expect(date('DDYYYYMM', '31202612')).toBe('2026-12-31');
    expect(date('MMYYYYDD', '12202631')).toBe('2026-12-31');
    expect(date('YYYY-MM-DD', '2026-12-31')).toBe('2026-12-31');
    expect(date('YYYY-MM-DD', '1987-06-05')).toBe('1987-06-05');
    expect(date('DD.MM.YYYY', '05.06.1987')).toBe('1987-06-05');
    expect(date('DDMMYYYY', '05061987')).toBe('1987-06-05');
    // the 30th and 31st of a leap year's months (only February has 29 days)
    expect(date('YYYYMMDD', '20240131')).toBe('2024-01-31');
    expect(date('YYYYMMDD', '20240430')).toBe('2024-04-30');
    expect(date('YYYYMMDD', '20241231')).toBe('2024-12-31');
    expect(date('YYYYMMDD', '20240230')).toBe('PARSE_ORDER_DATE');
  });

  test('a character just above "9" is no digit', () => {
    // ":" is "9" plus one: read as a digit it would be the day 10 or the month 10
    expect(date('YYYYMMDD', '2026010:')).toBe('PARSE_ORDER_DATE');
    expect(date('YYYYMMDD', '20260:01')).toBe('PARSE_ORDER_DATE');
    expect(date('DD.MM.YYYY', '01.01.202:')).toBe('PARSE_ORDER_DATE');
  });

  test('a wrong separator at any place, a text longer or shorter than the mask', () => {
    expect(date('YYYY-MM-DD', '2026x12-31')).toBe('PARSE_ORDER_DATE');
    expect(date('YYYY-MM-DD', '2026-12x31')).toBe('PARSE_ORDER_DATE');
    expect(date('YYYY-MM-DD', '2026-12-3')).toBe('PARSE_ORDER_DATE');
    expect(date('YYYY-MM-DD', '2026-12-311')).toBe('PARSE_ORDER_DATE');
    expect(date('YYYY-MM-DD', '2026-1-31')).toBe('PARSE_ORDER_DATE');
    expect(date('DD.MM.YYYY', '31.12.2026.')).toBe('PARSE_ORDER_DATE');
    expect(date('DD.MM.YYYY', '.31.12.2026')).toBe('PARSE_ORDER_DATE');
  });
});

describe('date masks that no text can fit two of, and masks that look so but are not', () => {
  const masks = (list: string[]) =>
    compileMapping(profile('', { order_date: `{ column: "d", date: ${JSON.stringify(list)} }` }), { order_date: 'Datum' });

  test('masks of different lengths, one of them with a one-or-two-digit token: one text read as two dates is ambiguous', () => {
    const m = masks(['YYYY.MM.D', 'YYYY.DD.MM']);
    expect(mapRow(m, { order_date: '2026.01.12' }).problem).toEqual({
      column: 'order_date',
      code: 'PARSE_ORDER_DATE',
      message: 'order_date: "2026.01.12" is ambiguous: YYYY.MM.D reads 2026-01-12, YYYY.DD.MM reads 2026-12-01 (column "Datum")',
    });
    expect(mapRow(m, { order_date: '2026.01.5' }).fields.order_date).toBe('2026-01-05');
    const d = masks(['D.M.YYYY', 'MM.DD.YYYY']);
    expect(mapRow(d, { order_date: '01.02.2026' }).problem?.message).toBe(
      'order_date: "01.02.2026" is ambiguous: D.M.YYYY reads 2026-02-01, MM.DD.YYYY reads 2026-01-02 (column "Datum")',
    );
    expect(mapRow(d, { order_date: '1.2.2026' }).fields.order_date).toBe('2026-02-01');
  });

  test('of three masks, the second and the third read one text as two dates', () => {
    const m = masks(['YYYY/MM/DD', 'DD.MM.YYYY', 'MM.DD.YYYY']);
    expect(mapRow(m, { order_date: '01.02.2026' }).problem?.message).toBe(
      'order_date: "01.02.2026" is ambiguous: DD.MM.YYYY reads 2026-02-01, MM.DD.YYYY reads 2026-01-02 (column "Datum")',
    );
    expect(mapRow(m, { order_date: '2026/02/01' }).fields.order_date).toBe('2026-02-01');
    expect(mapRow(m, { order_date: '13.02.2026' }).fields.order_date).toBe('2026-02-13');
    const first = masks(['DD.MM.YYYY', 'YYYY/MM/DD', 'MM.DD.YYYY']);
    expect(mapRow(first, { order_date: '01.02.2026' }).problem?.message).toBe(
      'order_date: "01.02.2026" is ambiguous: DD.MM.YYYY reads 2026-02-01, MM.DD.YYYY reads 2026-01-02 (column "Datum")',
    );
  });

  test('masks of one length with the separators at the same places: ambiguous; a separator apart: each read alone', () => {
    const same = masks(['YYYYMMDD', 'YYYYDDMM']);
    expect(mapRow(same, { order_date: '20260102' }).problem?.message).toBe(
      'order_date: "20260102" is ambiguous: YYYYMMDD reads 2026-01-02, YYYYDDMM reads 2026-02-01 (column "Datum")',
    );
    // the same date read by both is no ambiguity
    expect(mapRow(same, { order_date: '20260101' }).fields.order_date).toBe('2026-01-01');
    const apart = masks(['DD.MM.YYYY', 'DD/MM/YYYY', 'YYYY.MM.DD']);
    expect(['01.02.2026', '01/02/2026', '2026.02.01'].map((v) => mapRow(apart, { order_date: v }).fields.order_date)).toEqual([
      '2026-02-01',
      '2026-02-01',
      '2026-02-01',
    ]);
    expect(mapRow(apart, { order_date: '2026-02-01' }).problem?.message).toBe(
      'order_date: "2026-02-01" matches none of DD.MM.YYYY, DD/MM/YYYY, YYYY.MM.DD (column "Datum")',
    );
  });

  test('exclusiveMasks says which lists no text can fit two of', () => {
    expect(exclusiveMasks(['DD.MM.YYYY', 'YYYY/MM/DD'])).toBe(true);
    expect(exclusiveMasks(['DD.MM.YYYY', 'YYYYMMDD'])).toBe(true);
    expect(exclusiveMasks(['DD.MM.YYYY', 'DD/MM/YYYY', 'YYYY.MM.DD'])).toBe(true);
    expect(exclusiveMasks(['YYYY-MM-DD'])).toBe(true);
    expect(exclusiveMasks(['DD.MM.YYYY', 'MM.DD.YYYY'])).toBe(false);
    expect(exclusiveMasks(['YYYY/MM/DD', 'DD.MM.YYYY', 'MM.DD.YYYY'])).toBe(false);
    expect(exclusiveMasks(['YYYY.MM.D', 'YYYY.DD.MM'])).toBe(false);
    expect(exclusiveMasks(['D.M.YYYY', 'MM.DD.YYYY'])).toBe(false);
  });
});
