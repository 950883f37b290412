/**
 * The rules of a profile's compiled mapping (src/input/profile/mapping.ts) that the other unit
 * tests reach only in passing: `normalize` (preview's reading), `keep` (when), the names of
 * columns in messages, the masks read by a regular expression (D, M), the amount's signs, the
 * warning of a form that read none of the first lines, and a mapped line's other problems.
 * No database, no file.
 */
import { describe, expect, test } from 'vitest';
import type { OrderColumn } from '../../src/input/order-record.js';
import { parseProfileText, type LoadProfile } from '../../src/input/profile/load-profile.js';
import {
  compileMapping,
  describeSource,
  headerKey,
  MASK_CHECK_LINES,
  parseMappedRecord,
  type MappedRecord,
  type Mapping,
} from '../../src/input/profile/mapping.js';

/** A CSV profile with a header; `columns` replaces the five columns' lines, `extra` is added at the top level. */
function profile(extra = '', columns?: Partial<Record<OrderColumn, string>>): LoadProfile {
  const c: Record<OrderColumn, string> = {
    source_key: '{ column: "k" }',
    customer_id: '{ column: "c" }',
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

const mapRow = (m: Mapping, values: Partial<Record<OrderColumn, string>>): MappedRecord => m.map((c) => ({ ...ROW, ...values })[c]);

describe('normalize (what preview shows of each field before its form)', () => {
  test('trimmed, null_if and NFKC applied, source_key not normalised, a const or missing column null', () => {
    const m = compileMapping(
      profile('normalize: nfkc\nnull_if: ["", "n/a"]\n', { currency: '{ const: "JPY" }', customer_id: '{ column: "c", trim: false }' }),
    );
    const raw: Record<OrderColumn, string | null> = {
      source_key: ' Ｋ１ ',
      customer_id: ' １２ ',
      order_date: ' ０１.１２.２０２６ ',
      amount: 'ｎ/ａ',
      currency: 'ignored',
    };
    const asked: OrderColumn[] = [];
    const out = m.normalize((c) => {
      asked.push(c);
      return raw[c];
    });
    expect(out).toEqual({
      source_key: 'Ｋ１',
      // trim: false: the blanks kept, the digits made ASCII
      customer_id: ' 12 ',
      // the form (the date mask) is not applied: the text as map reads it before its mask
      order_date: '01.12.2026',
      // "ｎ/ａ" is null_if only after NFKC
      amount: null,
      currency: null,
    });
    // a const column's text is not asked for
    expect(asked).toEqual(['source_key', 'customer_id', 'order_date', 'amount']);
    expect(m.normalize(() => null)).toEqual({ source_key: null, customer_id: null, order_date: null, amount: null, currency: null });
    expect(m.normalize(() => '   ').customer_id).toBe('   ');
    expect(m.normalize(() => '   ').order_date).toBeNull();
  });

  test('without normalize: nfkc the full-width text stays as it is', () => {
    const m = compileMapping(profile('null_if: ["n/a"]\n'));
    const out = m.normalize((c) => ({ ...ROW, customer_id: '１２', amount: 'ｎ/ａ', currency: ' n/a ' })[c]);
    expect(out.customer_id).toBe('１２');
    expect(out.amount).toBe('ｎ/ａ');
    expect(out.currency).toBeNull();
  });
});

describe('null_if: members of 30 and 31 characters (the length test of the short and the long ones)', () => {
  test('a member of each length matches itself only', () => {
    const m30 = 'a'.repeat(30);
    const m31 = 'b'.repeat(31);
    const m = compileMapping(profile(`null_if: ["", "${m30}", "${m31}"]\n`));
    const customer = (v: string) => mapRow(m, { customer_id: v }).fields.customer_id;
    expect(customer(m30)).toBe('');
    expect(customer(m31)).toBe('');
    expect(customer('b'.repeat(30))).toBe('b'.repeat(30));
    expect(customer('a'.repeat(31))).toBe('a'.repeat(31));
    expect(customer('b'.repeat(32))).toBe('b'.repeat(32));
    const only31 = compileMapping(profile(`null_if: ["", "${m31}", "x"]\n`));
    expect(mapRow(only31, { customer_id: m31 }).fields.customer_id).toBe('');
    expect(mapRow(only31, { customer_id: 'c'.repeat(31) }).fields.customer_id).toBe('c'.repeat(31));
  });

  test('NFKC output is trimmed again: a character whose NFKC form starts with a blank', () => {
    // U+00A8 (diaeresis) is U+0020 U+0308 in NFKC
    const m = compileMapping(profile('normalize: nfkc\n'));
    expect(m.normalize((c) => (c === 'currency' ? '\u00a8X' : 'a')).currency).toBe('\u0308X');
    expect(mapRow(m, { currency: '\u00a8X' }).fields.currency).toBe('\u0308X');
  });
});

describe('keep (a profile’s when)', () => {
  test('without when every line is kept', () => {
    const m = compileMapping(profile());
    expect(m.keep('')).toBe(true);
    expect(m.keep('anything')).toBe(true);
  });

  test('equals compares the trimmed value exactly, NFKC with normalize: nfkc', () => {
    const m = compileMapping(profile('when: { column: "s", equals: "D" }\n'));
    expect(m.keep('D')).toBe(true);
    expect(m.keep(' D ')).toBe(true);
    expect(m.keep('d')).toBe(false);
    expect(m.keep('DD')).toBe(false);
    expect(m.keep('')).toBe(false);
    expect(m.keep('Ｄ')).toBe(false);
    expect(compileMapping(profile('normalize: nfkc\nwhen: { column: "s", equals: "D" }\n')).keep(' Ｄ ')).toBe(true);
  });

  test('in keeps the listed values, not_in all others', () => {
    const inList = compileMapping(profile('when: { column: "s", in: ["A", "B"] }\n'));
    expect(['A', 'B', ' A', 'C', ''].map((v) => inList.keep(v))).toEqual([true, true, true, false, false]);
    const notIn = compileMapping(profile('when: { column: "s", not_in: ["A", "B"] }\n'));
    expect(['A', 'B', ' A', 'C', ''].map((v) => notIn.keep(v))).toEqual([false, false, false, true, true]);
  });

  test('null_if does not make a when value empty', () => {
    const m = compileMapping(profile('null_if: ["X"]\nwhen: { column: "s", equals: "X" }\n'));
    // the when value is compared as read (trimmed): a null_if value reads as empty
    expect(m.keep('X')).toBe(false);
    expect(m.keep('Y')).toBe(false);
  });
});

describe('how a column is named in messages', () => {
  test('by position, by number, by the header name found, by the names looked for', () => {
    expect(describeSource({ at: [10, 8] })).toBe('at 10–17');
    expect(describeSource({ at: [1, 1] })).toBe('at 1–1');
    expect(describeSource({ column: 3 })).toBe('column 3');
    expect(describeSource({ column: ['Datum', 'Date'] }, 'Date')).toBe('column "Date"');
    expect(describeSource({ column: 'Datum' })).toBe('column "Datum"');
    expect(describeSource({ column: ['Datum', 'Date'] })).toBe('column "Datum" or "Date"');
    expect(describeSource({})).toBe('column ');
  });

  test('a header name matches ignoring case, blanks and width', () => {
    expect(headerKey('  Order No ')).toBe('order no');
    expect(headerKey('ＤＡＴＥ')).toBe('date');
    expect(headerKey('Währung')).toBe('währung');
  });
});

describe('date masks read by a regular expression (one-or-two-digit tokens)', () => {
  const m = () => compileMapping(profile('', { order_date: '{ column: "d", date: "D.M.YYYY" }' }));

  test('one or two digits, the separators literal', () => {
    expect(mapRow(m(), { order_date: '1.2.2026' }).fields.order_date).toBe('2026-02-01');
    expect(mapRow(m(), { order_date: '01.12.2026' }).fields.order_date).toBe('2026-12-01');
    expect(mapRow(m(), { order_date: '31.1.2026' }).fields.order_date).toBe('2026-01-31');
    // "." is not any character
    expect(mapRow(m(), { order_date: '1x2x2026' }).problem).toEqual({
      column: 'order_date',
      code: 'PARSE_ORDER_DATE',
      message: 'order_date: "1x2x2026" matches none of D.M.YYYY (column "d")',
    });
    // the whole value, nothing before or after
    expect(mapRow(m(), { order_date: '1.2.20267' }).problem?.code).toBe('PARSE_ORDER_DATE');
    expect(mapRow(m(), { order_date: 'x1.2.2026' }).problem?.code).toBe('PARSE_ORDER_DATE');
    expect(mapRow(m(), { order_date: '123.2.2026' }).problem?.code).toBe('PARSE_ORDER_DATE');
    // read, then checked as a date
    expect(mapRow(m(), { order_date: '30.2.2026' }).problem?.code).toBe('PARSE_ORDER_DATE');
    expect(mapRow(m(), { order_date: '0.2.2026' }).problem?.code).toBe('PARSE_ORDER_DATE');
  });

  test('a two-digit token beside a one-digit one takes two digits exactly', () => {
    const mixed = compileMapping(profile('', { order_date: '{ column: "d", date: "D.MM.YYYY" }' }));
    expect(mapRow(mixed, { order_date: '1.02.2026' }).fields.order_date).toBe('2026-02-01');
    expect(mapRow(mixed, { order_date: '1.2.2026' }).problem?.code).toBe('PARSE_ORDER_DATE');
    expect(mapRow(mixed, { order_date: '1.2.26' }).problem?.code).toBe('PARSE_ORDER_DATE');
  });

  test('a mask with M before D and another separator', () => {
    const us = compileMapping(profile('', { order_date: '{ column: "d", date: "M/D/YYYY" }' }));
    expect(mapRow(us, { order_date: '2/1/2026' }).fields.order_date).toBe('2026-02-01');
    expect(mapRow(us, { order_date: '12/31/2026' }).fields.order_date).toBe('2026-12-31');
    expect(mapRow(us, { order_date: '31/12/2026' }).problem?.code).toBe('PARSE_ORDER_DATE');
  });

  test('a regular expression character in the mask is literal', () => {
    const m2 = compileMapping(profile('', { order_date: '{ column: "d", date: "D(M)YYYY" }' }));
    expect(mapRow(m2, { order_date: '1(2)2026' }).fields.order_date).toBe('2026-02-01');
    expect(mapRow(m2, { order_date: '122026' }).problem?.code).toBe('PARSE_ORDER_DATE');
  });

  test('two masks that read a value as the same date are not ambiguous; as different dates they are', () => {
    const two = compileMapping(profile('', { order_date: '{ column: "d", date: ["D.M.YYYY", "DD.MM.YYYY"] }' }));
    expect(mapRow(two, { order_date: '01.02.2026' })).toMatchObject({ fields: { order_date: '2026-02-01' }, problem: null });
    expect(mapRow(two, { order_date: '1.2.2026' })).toMatchObject({ fields: { order_date: '2026-02-01' }, problem: null });
    expect(mapRow(two, { order_date: '2026-02-01' }).problem?.message).toBe(
      'order_date: "2026-02-01" matches none of D.M.YYYY, DD.MM.YYYY (column "d")',
    );
    const dm = compileMapping(profile('', { order_date: '{ column: "d", date: ["D.M.YYYY", "M.D.YYYY"] }' }));
    expect(mapRow(dm, { order_date: '1.2.2026' }).problem?.message).toBe(
      'order_date: "1.2.2026" is ambiguous: D.M.YYYY reads 2026-02-01, M.D.YYYY reads 2026-01-02 (column "d")',
    );
    // only the second reads it
    expect(mapRow(dm, { order_date: '2.13.2026' })).toMatchObject({ fields: { order_date: '2026-02-13' }, problem: null });
    expect(mapRow(dm, { order_date: '2.2.2026' }).problem).toBeNull();
  });
});

describe('fixed-width date masks (read by position)', () => {
  const m = (mask: string) => compileMapping(profile('', { order_date: `{ column: "d", date: "${mask}" }` }));
  const date = (mask: string, v: string) => {
    const out = mapRow(m(mask), { order_date: v });
    return out.problem === null ? out.fields.order_date : null;
  };

  test('the years from 1900, the leap days, the month and day bounds', () => {
    expect(date('YYYYMMDD', '19000101')).toBe('1900-01-01');
    expect(date('YYYYMMDD', '18991231')).toBeNull();
    expect(date('YYYYMMDD', '20240229')).toBe('2024-02-29');
    expect(date('YYYYMMDD', '20000229')).toBe('2000-02-29');
    expect(date('YYYYMMDD', '19000229')).toBeNull();
    expect(date('YYYYMMDD', '20230229')).toBeNull();
    expect(date('YYYYMMDD', '20230228')).toBe('2023-02-28');
    expect(date('YYYYMMDD', '20260431')).toBeNull();
    expect(date('YYYYMMDD', '20260430')).toBe('2026-04-30');
    expect(date('YYYYMMDD', '20261231')).toBe('2026-12-31');
    expect(date('YYYYMMDD', '20261232')).toBeNull();
    expect(date('YYYYMMDD', '20261301')).toBeNull();
    expect(date('YYYYMMDD', '20260001')).toBeNull();
    expect(date('YYYYMMDD', '20260100')).toBeNull();
    expect(date('YYYYMMDD', '2026010')).toBeNull();
    expect(date('YYYYMMDD', '202601011')).toBeNull();
    expect(date('YYYYMMDD', '2026O101')).toBeNull();
    expect(date('YYYYMMDD', '2026:101')).toBeNull();
    expect(date('YYYYMMDD', '2026/101')).toBeNull();
  });

  test('the separator right after each token is checked; a character below "0" is no digit', () => {
    expect(date('DD.MM.YYYY', '31x12.2026')).toBeNull();
    expect(date('YYYY.DD.MM', '2026x31.12')).toBeNull();
    expect(date('MM/DD/YYYY', '12/31x2026')).toBeNull();
    // "/" is "0" less one: "1/" read as digits would be the day 9
    expect(date('YYYYMMDD', '2026011/')).toBeNull();
    expect(date('YYYYMMDD', '202601/9')).toBeNull();
  });

  test('the separators at their places, the tokens in any order', () => {
    expect(date('DD.MM.YYYY', '31.12.2026')).toBe('2026-12-31');
    expect(date('DD.MM.YYYY', '31-12-2026')).toBeNull();
    expect(date('DD.MM.YYYY', '31.12-2026')).toBeNull();
    expect(date('MM/DD/YYYY', '12/31/2026')).toBe('2026-12-31');
    expect(date('YYYY.DD.MM', '2026.31.12')).toBe('2026-12-31');
    expect(date('YYYYMMDD', '20260102')).toBe('2026-01-02');
  });
});

describe('amounts with a profile’s signs and separators', () => {
  const m = (spec: string) => compileMapping(profile('', { amount: `{ column: "a", ${spec} }` }));
  const amount = (mapping: Mapping, v: string) => mapRow(mapping, { amount: v });

  test('the minus alone: a sign before the digits, blanks after it, "+" dropped, "-0" read as 0', () => {
    const minus = m('decimal: "."');
    expect(amount(minus, '-5').fields.amount).toBe('-5');
    expect(amount(minus, '- 5').fields.amount).toBe('-5');
    expect(amount(minus, '+5').fields.amount).toBe('5');
    expect(amount(minus, '-0.00').fields.amount).toBe('0');
    expect(amount(minus, '5').fields.amount).toBe('5');
    expect(amount(minus, '0.50').fields.amount).toBe('0.5');
    expect(amount(minus, '5-').problem).toEqual({
      column: 'amount',
      code: 'PARSE_AMOUNT',
      message: 'amount: "5-" is not a number with decimal "." (column "a")',
    });
    expect(amount(minus, '(5)').problem?.code).toBe('PARSE_AMOUNT');
    expect(amount(minus, '+-5').problem?.code).toBe('PARSE_AMOUNT');
    expect(amount(minus, '-+5').problem?.code).toBe('PARSE_AMOUNT');
  });

  test('other negative forms: a mark, parentheses; the minus only when listed', () => {
    const marks = m('negative: ["▲", "()"]');
    expect(amount(marks, '▲5').fields.amount).toBe('-5');
    expect(amount(marks, '(5)').fields.amount).toBe('-5');
    expect(amount(marks, '( 5 )').fields.amount).toBe('-5');
    expect(amount(marks, '+5').fields.amount).toBe('5');
    expect(amount(marks, '5').fields.amount).toBe('5');
    expect(amount(marks, '-5').problem?.message).toBe('amount: "-5" is not a number with decimal "." (column "a")');
    expect(amount(marks, '()').problem?.code).toBe('PARSE_AMOUNT');
    expect(amount(marks, '(5').problem?.code).toBe('PARSE_AMOUNT');
    expect(amount(marks, '5)').problem?.code).toBe('PARSE_AMOUNT');
    expect(amount(marks, '+(5)').problem?.code).toBe('PARSE_AMOUNT');
    // the first form that matches is taken; "(" after "▲" is not a second sign
    expect(amount(marks, '▲(5)').problem?.code).toBe('PARSE_AMOUNT');
    const both = m('negative: ["-", "▲"]');
    expect(amount(both, '-5').fields.amount).toBe('-5');
    expect(amount(both, '▲5').fields.amount).toBe('-5');
    expect(amount(both, '5').fields.amount).toBe('5');
    // one sign only: the form found first is taken, no second one after it
    expect(amount(m('negative: ["()", "-"]'), '(-5)').problem?.code).toBe('PARSE_AMOUNT');
    expect(amount(m('negative: ["-", "▲"]'), '-▲5').problem?.code).toBe('PARSE_AMOUNT');
    // parentheses on both sides only
    expect(amount(marks, '55)').problem?.code).toBe('PARSE_AMOUNT');
    expect(amount(marks, '(55').problem?.code).toBe('PARSE_AMOUNT');
    const wordy = m('negative: ["minus "]');
    expect(amount(wordy, 'minus 5').fields.amount).toBe('-5');
    // the form as written, its blank too
    expect(amount(wordy, 'minus5').problem?.code).toBe('PARSE_AMOUNT');
    expect(amount(wordy, 'minu5').problem?.code).toBe('PARSE_AMOUNT');
  });

  test('the form in the message: decimal and group as written in the profile', () => {
    expect(amount(m('decimal: ",", group: "."'), '1,2,3').problem?.message).toBe(
      'amount: "1,2,3" is not a number with decimal ",", group "." (column "a")',
    );
    expect(amount(m('group: " "'), '1 23').problem?.message).toBe(
      'amount: "1 23" is not a number with decimal ".", group " " (column "a")',
    );
    expect(amount(m('group: " "'), '1 234.5').fields.amount).toBe('1234.5');
    expect(amount(m('decimal: ","'), '1,5').fields.amount).toBe('1.5');
    expect(amount(m('decimal: ","'), '1.5').problem?.code).toBe('PARSE_AMOUNT');
  });

  test('a profile amount without decimal, group or negative is passed to the order rules as it is', () => {
    const plain = compileMapping(profile());
    expect(amount(plain, '1,5')).toMatchObject({ fields: { amount: '1,5' }, problem: null });
    expect(amount(plain, '007.50')).toMatchObject({ fields: { amount: '007.50' }, problem: null });
  });
});

describe('empty values, defaults, prefixes, const', () => {
  test('an empty or null_if value takes the default; a prefix goes before the value read, not before the default', () => {
    const m = compileMapping(
      profile('null_if: ["-"]\n', {
        source_key: '{ column: "k", prefix: "EU-" }',
        currency: '{ column: "cur", default: "EUR" }',
        customer_id: '{ column: "c", default: "9" }',
      }),
    );
    expect(mapRow(m, { currency: '' }).fields.currency).toBe('EUR');
    expect(mapRow(m, { currency: ' - ' }).fields.currency).toBe('EUR');
    expect(mapRow(m, { currency: 'CHF' }).fields.currency).toBe('CHF');
    expect(mapRow(m, { source_key: ' A1 ' }).fields.source_key).toBe('EU-A1');
    expect(mapRow(m, { source_key: '' }).fields.source_key).toBe('');
    expect(mapRow(m, { customer_id: '-' }).fields.customer_id).toBe('9');
  });

  test('trim: false keeps the blanks around a value; other columns are trimmed', () => {
    const m = compileMapping(profile('', { customer_id: '{ column: "c", trim: false }' }));
    expect(mapRow(m, { customer_id: ' 7 ', currency: ' EUR ' }).fields).toMatchObject({ customer_id: ' 7 ', currency: 'EUR' });
    expect(m.mapRecord(['K', ' 7 ', '01.12.2026', '1', ' EUR '], [0, 1, 2, 3, 4]).fields.customer_id).toBe(' 7 ');
  });

  test('a date or amount left empty is no problem of the mapping (the order rules say it is missing)', () => {
    const m = compileMapping(profile('', { amount: '{ column: "a", decimal: "," }' }));
    expect(mapRow(m, { order_date: '', amount: '' })).toEqual({
      fields: { ...ROW, order_date: '', amount: '' },
      problem: null,
    });
  });

  test('a const column is not read: map never asks for it', () => {
    const m = compileMapping(profile('', { currency: '{ const: "JPY" }' }));
    const asked: OrderColumn[] = [];
    const out = m.map((c) => {
      asked.push(c);
      return ROW[c];
    });
    expect(out.fields.currency).toBe('JPY');
    expect(asked).toEqual(['source_key', 'customer_id', 'order_date', 'amount']);
    expect(m.mapRecord(['K', '1', '02.01.2026', '3'], [0, 1, 2, 3, -1]).fields).toEqual({
      source_key: 'K',
      customer_id: '1',
      order_date: '2026-01-02',
      amount: '3',
      currency: 'JPY',
    });
  });

  test('the problem of one record is not carried to the next', () => {
    const m = compileMapping(profile());
    expect(mapRow(m, { order_date: 'x' }).problem?.code).toBe('PARSE_ORDER_DATE');
    expect(mapRow(m, {}).problem).toBeNull();
  });

  test('the first problem in column order is the line’s', () => {
    const m = compileMapping(profile('', { amount: '{ column: "a", decimal: "," }' }));
    expect(mapRow(m, { order_date: 'x', amount: 'y' }).problem?.column).toBe('order_date');
    expect(mapRow(m, { amount: 'y' }).problem?.column).toBe('amount');
    expect(mapRow(m, { amount: 'y' }).fields.amount).toBe('y');
  });
});

describe('a form that read none of the first lines is said once', () => {
  const warned = (extra = '', columns?: Partial<Record<OrderColumn, string>>) => {
    const warnings: string[] = [];
    const m = compileMapping(profile(extra, columns), { order_date: 'Datum' }, (w) => warnings.push(w));
    return { m, warnings };
  };

  test('at the end of a short file: the date masks and the number form, with an example', () => {
    const { m, warnings } = warned('', {
      order_date: '{ column: "d", date: ["DD.MM.YYYY", "YYYYMMDD"] }',
      amount: '{ column: "a", decimal: "," }',
    });
    mapRow(m, { order_date: '2026-12-01', amount: '1.5' });
    mapRow(m, { order_date: '2026-12-02', amount: '2.5' });
    mapRow(m, { order_date: '', amount: '' });
    expect(warnings).toEqual([]);
    m.finish();
    expect(warnings).toEqual([
      'profile p: columns.order_date: no value of the first 3 line(s) fits date: DD.MM.YYYY,YYYYMMDD (column "Datum"; such as "2026-12-01"): each line is rejected',
      'profile p: columns.amount: no value of the first 3 line(s) fits decimal "," (column "a"; such as "1.5"): each line is rejected',
    ]);
    m.finish();
    expect(warnings).toHaveLength(2);
  });

  test('not said when one value fitted, nor for a column whose values were all empty', () => {
    const { m, warnings } = warned('', { amount: '{ column: "a", negative: ["▲"] }' });
    mapRow(m, { order_date: 'bad', amount: '' });
    mapRow(m, { order_date: '01.12.2026', amount: '' });
    mapRow(m, { order_date: 'bad', amount: '' });
    m.finish();
    expect(warnings).toEqual([]);
  });

  test('the amount form named with its default decimal', () => {
    const { m, warnings } = warned('', { amount: '{ column: "a", negative: ["▲"] }' });
    mapRow(m, { amount: 'x' });
    m.finish();
    expect(warnings).toEqual([
      'profile p: columns.amount: no value of the first 1 line(s) fits decimal "." (column "a"; such as "x"): each line is rejected',
    ]);
  });

  test(`said at the ${MASK_CHECK_LINES}th line, from those lines only, and never again`, () => {
    const { m, warnings } = warned();
    for (let i = 1; i < MASK_CHECK_LINES; i++) mapRow(m, { order_date: `x${i}` });
    expect(warnings).toEqual([]);
    mapRow(m, { order_date: 'y' });
    expect(warnings).toEqual([
      `profile p: columns.order_date: no value of the first ${MASK_CHECK_LINES} line(s) fits date: DD.MM.YYYY (column "Datum"; such as "x1"): each line is rejected`,
    ]);
    mapRow(m, { order_date: 'z' });
    m.finish();
    expect(warnings).toHaveLength(1);
  });

  test(`a value that fits after the first ${MASK_CHECK_LINES} lines is not counted`, () => {
    const { m, warnings } = warned();
    for (let i = 0; i < MASK_CHECK_LINES - 1; i++) mapRow(m, { order_date: 'bad' });
    // the warning counts lines, the 1000th is the last counted: nothing fitted up to there
    mapRow(m, { order_date: 'bad' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`the first ${MASK_CHECK_LINES} line(s)`);
  });

  test('without a warning function nothing is counted or said', () => {
    const m = compileMapping(profile());
    mapRow(m, { order_date: 'bad' });
    expect(() => m.finish()).not.toThrow();
  });
});

describe('parseMappedRecord: the line is the mapping’s problem, with the other problems of its fields', () => {
  const problem = { column: 'amount' as const, code: 'PARSE_AMOUNT', message: 'amount: "x" is not a number with decimal "," (column "a")' };

  test('the other fields valid: the mapping’s problem alone, the key kept', () => {
    const out = parseMappedRecord({ ...ROW, order_date: '2026-12-01', amount: 'x' }, problem);
    expect(out).toEqual({
      ok: false,
      sourceKey: 'K-1',
      issues: [{ column: 'amount', message: problem.message }],
      error: { code: 'PARSE_AMOUNT', message: problem.message },
    });
  });

  test('another field invalid by the schema: each problem said once with its code, the mapping’s first, the field it could not read not "missing"', () => {
    const out = parseMappedRecord({ ...ROW, order_date: '2026-12-01', currency: 'euro', amount: 'x' }, problem);
    expect(out).toEqual({
      ok: false,
      sourceKey: 'K-1',
      issues: [
        { column: 'amount', message: problem.message },
        { column: 'currency', message: 'currency is longer than 3 characters: "euro"' },
      ],
      error: {
        code: 'PARSE_AMOUNT',
        message: `PARSE_AMOUNT: ${problem.message}; PARSE_CURRENCY: currency is longer than 3 characters: "euro"`,
      },
    });
  });

  test('with the rules the fields that did parse break, in the order parseOrderRecord says them', () => {
    const out = parseMappedRecord({ ...ROW, customer_id: '-1', currency: 'euro', order_date: '2026-12-01', amount: 'x' }, problem);
    expect(!out.ok && out.error).toEqual({
      code: 'PARSE_AMOUNT',
      message:
        `PARSE_AMOUNT: ${problem.message}; PARSE_CURRENCY: currency is longer than 3 characters: "euro"; ` +
        'INVALID_CUSTOMER_ID: customer_id must be a positive integer',
    });
    // a field that failed the schema is not also judged by its rule; the parse problems in column
    // order, the line's code the first of them (as the built-in format's)
    const both = parseMappedRecord({ ...ROW, customer_id: 'x', currency: '', order_date: '2026-12-01', amount: 'x' }, problem);
    expect(!both.ok && both.error.message).toBe(
      `PARSE_CUSTOMER_ID: customer_id is not an integer: "x"; PARSE_AMOUNT: ${problem.message}; INVALID_CURRENCY: currency is missing`,
    );
    expect(!both.ok && both.error.code).toBe('PARSE_CUSTOMER_ID');
    const date = {
      column: 'order_date' as const,
      code: 'PARSE_ORDER_DATE',
      message: 'order_date: "x" matches none of DD.MM.YYYY (column "d")',
    };
    const noKey = parseMappedRecord({ ...ROW, source_key: 'k'.repeat(101), customer_id: '', order_date: 'x' }, date);
    expect(noKey).toMatchObject({
      ok: false,
      sourceKey: null,
      error: {
        code: 'PARSE_SOURCE_KEY',
        message: `PARSE_SOURCE_KEY: source_key is longer than 100 characters (101); PARSE_ORDER_DATE: ${date.message}; INVALID_CUSTOMER_ID: customer_id is missing`,
      },
    });
  });

  test('a missing key: no key to stage the line by', () => {
    const out = parseMappedRecord({ ...ROW, source_key: '', order_date: '2026-12-01', amount: 'x' }, problem);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.sourceKey).toBeNull();
    expect(out.issues[0]).toEqual({ column: 'amount', message: problem.message });
  });
});
