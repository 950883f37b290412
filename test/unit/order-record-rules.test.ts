/**
 * The parse and business rules of src/input/order-record.ts at their edges: the calendar month by
 * month, the bigint range of customer_id on both sides, the amount's canonical form and its
 * hints, lengths in characters, how a value is quoted in a message, and the combined message of a
 * row with several problems. More in order-record.test.ts (which also compares the fast paths
 * with the schema over edge values).
 */
import { describe, expect, it } from 'vitest';
import {
  charLength,
  describeProblems,
  isValidIsoDate,
  ORDER_DATE_RANGE,
  orderProblems,
  parseAmount,
  parseOrderRecord,
  parseOrderRecordWithSchema,
  plainValidOrder,
  quoteValue,
  validateOrder,
} from '../../src/input/order-record.js';
import type { OrderValues } from '../../src/engine/types.js';

const fields = (over: Partial<Record<string, string>> = {}) => ({
  source_key: 'K-1',
  customer_id: '10',
  order_date: '2026-11-01',
  amount: '1200',
  currency: 'JPY',
  ...over,
});

const good: OrderValues = { customerId: '10', orderDate: '2026-11-01', amount: '1200', currency: 'JPY' };

/** Both paths of parseOrderRecord give the same answer (the fast one, and the schema alone). */
function parse(over: Partial<Record<string, string>>) {
  const record = fields(over);
  const result = parseOrderRecord(record);
  expect(result).toEqual(parseOrderRecordWithSchema(record));
  return result;
}

describe('the calendar (isValidIsoDate)', () => {
  const lastDay = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  it('every month’s last day is valid and the day after it is not (a common year)', () => {
    lastDay.forEach((days, i) => {
      const month = String(i + 1).padStart(2, '0');
      expect(isValidIsoDate(`2023-${month}-${days}`), `${month}-${days}`).toBe(true);
      expect(isValidIsoDate(`2023-${month}-${days + 1}`), `${month}-${days + 1}`).toBe(false);
      expect(isValidIsoDate(`2023-${month}-01`)).toBe(true);
      expect(isValidIsoDate(`2023-${month}-00`)).toBe(false);
    });
  });

  it('February 29: every fourth year, but not a century unless it divides by 400', () => {
    expect(['2024', '2000', '1904', '2400'].map((y) => isValidIsoDate(`${y}-02-29`))).toEqual([true, true, true, true]);
    expect(['2023', '1900', '2100', '2200'].map((y) => isValidIsoDate(`${y}-02-29`))).toEqual([false, false, false, false]);
    expect(isValidIsoDate('2024-02-30')).toBe(false);
  });

  it('months 01 to 12, the first year 1900, the form YYYY-MM-DD exactly', () => {
    expect(isValidIsoDate('2023-00-10')).toBe(false);
    expect(isValidIsoDate('2023-13-10')).toBe(false);
    expect(isValidIsoDate('1900-01-01')).toBe(true);
    expect(isValidIsoDate('1899-12-31')).toBe(false);
    expect(isValidIsoDate('9999-12-31')).toBe(true);
    for (const v of ['2023-1-10', '2023/01/10', '2023-01-10 ', '20230110', '2023-01-1x', '2023-0a-10', '2o23-01-10', '2023-01-010'])
      expect(isValidIsoDate(v), v).toBe(false);
    expect(ORDER_DATE_RANGE).toEqual({ first: '1900-01-01', last: '9999-12-31' });
  });

  it('an order date before 1900 says so even when it is no date at all; after 1900, an impossible date is not valid', () => {
    expect(parse({ order_date: '1899-13-45' })).toMatchObject({
      ok: false,
      error: { code: 'PARSE_ORDER_DATE', message: 'order_date is before 1900-01-01 (the dates every engine stores alike): "1899-13-45"' },
    });
    expect(parse({ order_date: '1900-02-29' })).toMatchObject({
      ok: false,
      error: { code: 'PARSE_ORDER_DATE', message: 'order_date is not a valid date (YYYY-MM-DD): "1900-02-29"' },
    });
    expect(parse({ order_date: '18-01-01' })).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('not a valid date') as string },
    });
  });

  it('validation says the same of a staged date', () => {
    expect(validateOrder({ ...good, orderDate: '2023-02-29' })).toEqual({
      code: 'INVALID_ORDER_DATE',
      message: 'order_date is not a valid date',
    });
    expect(validateOrder({ ...good, orderDate: '2024-02-29' })).toBeNull();
  });
});

describe('customer_id', () => {
  it('an integer within bigint on both sides; beyond it out of range (PARSE), negative a business rule', () => {
    expect(parse({ customer_id: '9223372036854775807' })).toMatchObject({ ok: true, order: { customerId: '9223372036854775807' } });
    expect(parse({ customer_id: '9223372036854775808' })).toMatchObject({
      ok: false,
      error: { code: 'PARSE_CUSTOMER_ID', message: 'customer_id is out of range: "9223372036854775808"' },
    });
    // staged as read: the business rule is VALIDATE's
    expect(parse({ customer_id: '-9223372036854775807' })).toMatchObject({ ok: true, order: { customerId: '-9223372036854775807' } });
    expect(validateOrder({ ...good, customerId: '-9223372036854775807' })).toEqual({
      code: 'INVALID_CUSTOMER_ID',
      message: 'customer_id must be a positive integer',
    });
    expect(parse({ customer_id: '-9223372036854775808' })).toMatchObject({
      ok: false,
      error: { code: 'PARSE_CUSTOMER_ID', message: 'customer_id is out of range: "-9223372036854775808"' },
    });
    expect(parse({ customer_id: '+0012' })).toMatchObject({ ok: true, order: { customerId: '12' } });
    expect(parse({ customer_id: '1 2' })).toMatchObject({ ok: false, error: { code: 'PARSE_CUSTOMER_ID' } });
  });

  it('validation: a positive integer, a plus sign and leading zeros allowed', () => {
    for (const id of ['1', '+5', '0005', '123456789012345678', '1234567890123456789'])
      expect(validateOrder({ ...good, customerId: id }), id).toBeNull();
    for (const id of ['0', '000', '-5', '1.5', 'x', '', ' 5', '+']) {
      expect(validateOrder({ ...good, customerId: id }), id).toEqual({
        code: 'INVALID_CUSTOMER_ID',
        message: 'customer_id must be a positive integer',
      });
    }
    expect(validateOrder({ ...good, customerId: null })).toEqual({ code: 'INVALID_CUSTOMER_ID', message: 'customer_id is missing' });
  });
});

describe('amount', () => {
  it('canonical: no plus, no leading zeros, no trailing zeros of the decimals, no minus on zero', () => {
    const canonical = (v: string) => parseAmount(v);
    expect(canonical('+12')).toEqual({ value: '12' });
    expect(canonical('0012.10')).toEqual({ value: '12.1' });
    expect(canonical('00')).toEqual({ value: '0' });
    expect(canonical('-0.00')).toEqual({ value: '0' });
    expect(canonical('-00.0')).toEqual({ value: '0' });
    expect(canonical('-0.5')).toEqual({ value: '-0.5' });
    expect(canonical('-12.00')).toEqual({ value: '-12' });
    expect(canonical('0.05')).toEqual({ value: '0.05' });
    expect(canonical('10')).toEqual({ value: '10' });
    expect(canonical('100.50')).toEqual({ value: '100.5' });
  });

  it('at most 16 digits before the point, leading zeros not counted', () => {
    expect(parseAmount('9999999999999999.99')).toEqual({ value: '9999999999999999.99' });
    expect(parseAmount('0000009999999999999999')).toEqual({ value: '9999999999999999' });
    expect(parseAmount('10000000000000000')).toEqual({
      error: 'amount is too large (more than 16 digits before the point): "10000000000000000"',
    });
  });

  it('the hints: thousands separators, exponents (any case), a point that looks like one; none for other text', () => {
    expect(parseAmount('1,200.50')).toEqual({ error: 'amount is not a decimal number (no thousands separators): "1,200.50"' });
    expect(parseAmount('-1,2')).toEqual({ error: 'amount is not a decimal number (no thousands separators): "-1,2"' });
    expect(parseAmount('1E5')).toEqual({ error: 'amount is not a decimal number (no exponent notation): "1E5"' });
    expect(parseAmount('abc')).toEqual({ error: 'amount is not a decimal number: "abc"' });
    expect(parseAmount('12.345')).toEqual({
      error: 'amount has more than 2 decimals (the point is the decimal point: no thousands separators): "12.345"',
    });
    expect(parseAmount('12.3456')).toEqual({ error: 'amount has more than 2 decimals: "12.3456"' });
    expect(parseAmount('1.')).toEqual({ error: 'amount is not a decimal number: "1."' });
  });

  it('validation: a negative amount breaks the rule, minus zero does not; text that is no amount says why', () => {
    expect(validateOrder({ ...good, amount: '-0.01' })).toEqual({ code: 'INVALID_AMOUNT', message: 'amount must be zero or greater' });
    expect(validateOrder({ ...good, amount: '-0' })).toBeNull();
    expect(validateOrder({ ...good, amount: '0' })).toBeNull();
    expect(validateOrder({ ...good, amount: '1.50' })).toBeNull();
    expect(validateOrder({ ...good, amount: '12345678901234567' })).toEqual({
      code: 'INVALID_AMOUNT',
      message: 'amount is too large (more than 16 digits before the point): "12345678901234567"',
    });
    expect(validateOrder({ ...good, amount: 'x' })).toEqual({ code: 'INVALID_AMOUNT', message: 'amount is not a decimal number: "x"' });
    expect(validateOrder({ ...good, amount: null })).toEqual({ code: 'INVALID_AMOUNT', message: 'amount is missing' });
  });
});

describe('currency and source_key: lengths in characters', () => {
  it('three characters at most, counted in code points; validation wants three upper-case letters', () => {
    // three characters can be staged; VALIDATE refuses them
    expect(parse({ currency: '𠮷𠮷𠮷' })).toMatchObject({ ok: true, order: { currency: '𠮷𠮷𠮷' } });
    expect(validateOrder({ ...good, currency: '𠮷𠮷𠮷' })).toEqual({
      code: 'INVALID_CURRENCY',
      message: 'currency must be three upper-case letters',
    });
    expect(parse({ currency: '𠮷𠮷𠮷𠮷' })).toMatchObject({
      ok: false,
      error: { code: 'PARSE_CURRENCY', message: 'currency is longer than 3 characters: "𠮷𠮷𠮷𠮷"' },
    });
    for (const c of ['AAA', 'ZZZ', 'USD']) expect(validateOrder({ ...good, currency: c }), c).toBeNull();
    for (const c of ['@AA', 'AA[', 'A`A', 'AA{', 'JP', 'JPYY', 'jpy', 'JP1'])
      expect(validateOrder({ ...good, currency: c }), c).toEqual({
        code: 'INVALID_CURRENCY',
        message: 'currency must be three upper-case letters',
      });
    expect(validateOrder({ ...good, currency: null })).toEqual({ code: 'INVALID_CURRENCY', message: 'currency is missing' });
  });

  it('source_key: 100 characters at most, astral ones counted once; over it the line has no key', () => {
    expect(charLength('𠮷a')).toBe(2);
    expect(charLength('')).toBe(0);
    expect(parse({ source_key: '𠮷'.repeat(100) })).toMatchObject({ ok: true, order: { sourceKey: '𠮷'.repeat(100) } });
    expect(parse({ source_key: 'x'.repeat(101) })).toMatchObject({
      ok: false,
      sourceKey: null,
      error: { code: 'PARSE_SOURCE_KEY', message: 'source_key is longer than 100 characters (101)' },
    });
    expect(parse({ source_key: '  ' })).toMatchObject({
      ok: false,
      sourceKey: null,
      error: { code: 'PARSE_SOURCE_KEY', message: 'source_key is missing' },
    });
  });
});

describe('messages', () => {
  it('a value is quoted as JSON, cut after 40 characters (code points) with an ellipsis', () => {
    expect(quoteValue('a"b')).toBe('"a\\"b"');
    expect(quoteValue('x'.repeat(40))).toBe(JSON.stringify('x'.repeat(40)));
    expect(quoteValue('x'.repeat(41))).toBe(JSON.stringify(`${'x'.repeat(40)}…`));
    expect(quoteValue('𠮷'.repeat(41))).toBe(JSON.stringify(`${'𠮷'.repeat(40)}…`));
    expect(parse({ amount: 'y'.repeat(50) })).toMatchObject({
      error: { message: `amount is not a decimal number: ${JSON.stringify(`${'y'.repeat(40)}…`)}` },
    });
  });

  it('describeProblems: none is null, one is itself, several are named each with its code, the first one’s code kept', () => {
    expect(describeProblems([])).toBeNull();
    expect(describeProblems([{ code: 'A', message: 'a' }])).toEqual({ code: 'A', message: 'a' });
    expect(
      describeProblems([
        { code: 'A', message: 'a' },
        { code: 'B', message: 'b' },
        { code: 'C', message: 'c' },
      ]),
    ).toEqual({ code: 'A', message: 'A: a; B: b; C: c' });
  });

  it('every business rule of a row, in column order', () => {
    expect(orderProblems({ customerId: null, orderDate: null, amount: null, currency: null }).map((p) => [p.column, p.code])).toEqual([
      ['customer_id', 'INVALID_CUSTOMER_ID'],
      ['order_date', 'INVALID_ORDER_DATE'],
      ['amount', 'INVALID_AMOUNT'],
      ['currency', 'INVALID_CURRENCY'],
    ]);
    expect(orderProblems(good)).toEqual([]);
    expect(validateOrder({ customerId: '0', orderDate: '2023-02-29', amount: '-1', currency: 'jp' })).toEqual({
      code: 'INVALID_CUSTOMER_ID',
      message:
        'INVALID_CUSTOMER_ID: customer_id must be a positive integer; INVALID_ORDER_DATE: order_date is not a valid date; ' +
        'INVALID_AMOUNT: amount must be zero or greater; INVALID_CURRENCY: currency must be three upper-case letters',
    });
  });

  it('a line with a parse problem and no other: its code and message; missing values are business problems of the line', () => {
    expect(parse({ customer_id: '', amount: '1e5' })).toMatchObject({
      ok: false,
      issues: [{ column: 'amount', message: 'amount is not a decimal number (no exponent notation): "1e5"' }],
      error: {
        code: 'PARSE_AMOUNT',
        message: 'PARSE_AMOUNT: amount is not a decimal number (no exponent notation): "1e5"; INVALID_CUSTOMER_ID: customer_id is missing',
      },
    });
  });

  it('a record lacking a column (not even an empty text) is refused for that column, not thrown', () => {
    const { currency: _, ...rest } = fields();
    const result = parseOrderRecord(rest as ReturnType<typeof fields>);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues.map((i) => i.column)).toEqual(['currency']);
  });
});

describe('plainValidOrder: a profile line read once', () => {
  const keys = ['K-1', ' K-1 ', '', 'k'.repeat(100), 'k'.repeat(101)];
  const customers = ['7', '0', '07', '-7', '+7', ' 7', '', '123456789012345678', '1234567890123456789', 'x'];
  const dates = ['2026-12-01', '2024-02-29', '2026-02-29', '1899-12-31', ' 2026-12-01', ''];
  const amounts = ['12', '12.5', '12.50', '0', '-1', '-0', '007', '1.234', '1'.repeat(16), '1'.repeat(17), '1'.repeat(16) + '.5', ''];
  const currencies = ['EUR', 'eur', 'EU', 'EURO', 'E1R', ''];

  it('unchecked texts: whenever an order is given, it is the one parseOrderRecord reads, and validateOrder accepts it', () => {
    let given = 0;
    for (const k of keys)
      for (const c of customers)
        for (const d of dates)
          for (const a of amounts)
            for (const x of currencies) {
              const got = plainValidOrder(k, c, d, a, x, { date: false, amount: false });
              if (got === null) continue;
              given++;
              const what = JSON.stringify([k, c, d, a, x]);
              expect(parseOrderRecord({ source_key: k, customer_id: c, order_date: d, amount: a, currency: x }), what).toEqual({
                ok: true,
                order: got,
              });
              expect(validateOrder(got), what).toBeNull();
            }
    // the plain forms of every column are taken (keys trimmed, 12.50 as 12.5): 3 keys × 2 customers × 2 dates × 6 amounts × 1
    expect(given).toBe(72);
  });

  it('a checked date and amount (canonical as a mask and a form make them): only presence, sign and size tested', () => {
    const checked = { date: true, amount: true };
    expect(plainValidOrder('K', '7', '2026-12-01', '1234.5', 'EUR', checked)).toEqual({
      sourceKey: 'K',
      customerId: '7',
      orderDate: '2026-12-01',
      amount: '1234.5',
      currency: 'EUR',
    });
    expect(plainValidOrder('K', '7', '', '1', 'EUR', checked)).toBeNull();
    expect(plainValidOrder('K', '7', '2026-12-01', '', 'EUR', checked)).toBeNull();
    expect(plainValidOrder('K', '7', '2026-12-01', '-5', 'EUR', checked)).toBeNull();
    expect(plainValidOrder('K', '7', '2026-12-01', '1'.repeat(17), 'EUR', checked)).toBeNull();
    expect(plainValidOrder('K', '7', '2026-12-01', '1'.repeat(17) + '.5', 'EUR', checked)).toBeNull();
    expect(plainValidOrder('K', '7', '2026-12-01', '1'.repeat(16) + '.5', 'EUR', checked)?.amount).toBe('1'.repeat(16) + '.5');
    // not checked: the plain form is read (12.50 canonical as 12.5; a date that is none refused)
    expect(plainValidOrder('K', '7', '2026-12-01', '12.50', 'EUR', { date: false, amount: false })?.amount).toBe('12.5');
    expect(plainValidOrder('K', '7', '2026-02-30', '1', 'EUR', { date: false, amount: false })).toBeNull();
  });
});

describe('plainValidOrder: the edges of the plain forms', () => {
  const given = (k: string, c: string, d: string, a: string, x: string) =>
    plainValidOrder(k, c, d, a, x, { date: false, amount: false }) !== null;

  it('a currency of the alphabet’s first and last letters is given; the characters just outside A–Z are not', () => {
    expect(given('K', '7', '2026-12-01', '1', 'ZAR')).toBe(true);
    expect(given('K', '7', '2026-12-01', '1', 'AZA')).toBe(true);
    for (const x of ['@UD', 'US@', '[UD', 'US[', 'ZA`', 'AU\u0000'])
      expect(validateOrder({ customerId: '7', orderDate: '2026-12-01', amount: '1', currency: x }), x).not.toBeNull();
    for (const x of ['@UD', 'US@', '[UD', 'US[', 'ZA`', 'AU\u0000']) expect(given('K', '7', '2026-12-01', '1', x), x).toBe(false);
  });

  it('a customer_id of 18 digits is given, of 19 is not; a key of 100 characters is given, of 101 is not', () => {
    expect(given('K', '9'.repeat(18), '2026-12-01', '1', 'EUR')).toBe(true);
    expect(given('K', '9'.repeat(19), '2026-12-01', '1', 'EUR')).toBe(false);
    expect(given('k'.repeat(100), '7', '2026-12-01', '1', 'EUR')).toBe(true);
    expect(given('k'.repeat(101), '7', '2026-12-01', '1', 'EUR')).toBe(false);
  });

  it('a checked amount of 16 integer digits is given, with or without decimals; of 17 is not', () => {
    const checked = { date: true, amount: true };
    expect(plainValidOrder('K', '7', '2026-12-01', '9'.repeat(16), 'EUR', checked)?.amount).toBe('9'.repeat(16));
    expect(plainValidOrder('K', '7', '2026-12-01', '9'.repeat(16) + '.99', 'EUR', checked)?.amount).toBe('9'.repeat(16) + '.99');
    expect(plainValidOrder('K', '7', '2026-12-01', '9'.repeat(17) + '.9', 'EUR', checked)).toBeNull();
    expect(plainValidOrder('K', '7', '2026-12-01', '0.5', 'EUR', checked)?.amount).toBe('0.5');
  });
});
