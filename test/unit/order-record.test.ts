import { describe, expect, it } from 'vitest';
import {
  describeProblems,
  isValidIsoDate,
  orderProblems,
  parseAmount,
  parseOrderRecord,
  parseOrderRecordWithSchema,
  validateOrder,
} from '../../src/input/order-record.js';

const fields = (over: Partial<Record<string, string>> = {}) => ({
  source_key: 'K-1',
  customer_id: '10',
  order_date: '2026-11-01',
  amount: '1200',
  currency: 'JPY',
  ...over,
});

describe('parseOrderRecord (PARSE: can the value be staged?)', () => {
  it('parses a good record into canonical text', () => {
    expect(parseOrderRecord(fields({ amount: '+0012.50', customer_id: '007' }))).toEqual({
      ok: true,
      order: { sourceKey: 'K-1', customerId: '7', orderDate: '2026-11-01', amount: '12.5', currency: 'JPY' },
    });
  });

  it('treats an empty field as a missing value and trims blanks', () => {
    const r = parseOrderRecord(fields({ amount: '', currency: ' ', customer_id: ' 12 ' }));
    expect(r).toMatchObject({ ok: true, order: { amount: null, currency: null, customerId: '12' } });
  });

  it.each([
    ['customer_id', 'abc', 'PARSE customer_id is not an integer'],
    ['customer_id', '12.5', 'customer_id is not an integer'],
    ['customer_id', '99999999999999999999', 'customer_id is out of range'],
    ['order_date', '2026-02-30', 'order_date is not a valid date'],
    ['order_date', '2026/01/01', 'order_date is not a valid date'],
    ['amount', '1e5', 'no exponent notation'],
    ['amount', '1,200', 'no thousands separators'],
    ['amount', '12.345', 'more than 2 decimals'],
    ['amount', '12345678901234567', 'too large'],
    ['currency', 'EURO', 'currency is longer than 3 characters'],
    ['order_date', '1582-10-10', 'order_date is before 1900-01-01'],
    ['order_date', '1899-12-31', 'order_date is before 1900-01-01'],
    ['order_date', '0001-01-01', 'order_date is before 1900-01-01'],
  ])('rejects %s %j, naming the column and the value', (column, value, message) => {
    const r = parseOrderRecord(fields({ [column]: value }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.sourceKey).toBe('K-1');
    expect(r.issues[0]?.column).toBe(column);
    expect(r.issues[0]?.message).toContain(message.replace(/^PARSE /, ''));
    expect(r.issues[0]?.message).toContain(JSON.stringify(value));
  });

  it('has no usable key when source_key is missing or too long', () => {
    expect(parseOrderRecord(fields({ source_key: '' }))).toMatchObject({ ok: false, sourceKey: null });
    expect(parseOrderRecord(fields({ source_key: 'x'.repeat(101) }))).toMatchObject({ ok: false, sourceKey: null });
    expect(parseOrderRecord(fields({ source_key: 'x'.repeat(100) })).ok).toBe(true);
  });

  it('counts lengths in characters, as the databases do, not in UTF-16 units', () => {
    // "𠮷" is one character and two UTF-16 units: 100 of them fit varchar(100) / VARCHAR2(100 CHAR)
    expect(parseOrderRecord(fields({ source_key: '𠮷'.repeat(100) })).ok).toBe(true);
    const tooLong = parseOrderRecord(fields({ source_key: '𠮷'.repeat(101) }));
    expect(tooLong).toMatchObject({ ok: false, sourceKey: null });
    if (!tooLong.ok) expect(tooLong.issues[0]?.message).toContain('(101)');
    expect(parseOrderRecord(fields({ currency: '𠮷𠮷𠮷' })).ok).toBe(true);
  });

  it('takes the same order dates on every engine: 1900-01-01 and later, refused before at parse time and in validation', () => {
    expect(parseOrderRecord(fields({ order_date: '1900-01-01' })).ok).toBe(true);
    expect(parseOrderRecord(fields({ order_date: '9999-12-31' })).ok).toBe(true);
    const gap = parseOrderRecord(fields({ order_date: '1582-10-10' }));
    expect(gap).toMatchObject({ ok: false, sourceKey: 'K-1', error: { code: 'PARSE_ORDER_DATE' } });
    expect(isValidIsoDate('1582-10-10')).toBe(false);
  });

  it('accepts 2 decimals, trailing zeros within them and -0', () => {
    expect(parseAmount('12.30')).toEqual({ value: '12.3' });
    expect(parseAmount('12.00')).toEqual({ value: '12' });
    expect(parseAmount('-0')).toEqual({ value: '0' });
    expect(parseAmount('-0.00')).toEqual({ value: '0' });
    expect(parseAmount('999999999999.99')).toEqual({ value: '999999999999.99' });
  });

  it.each(['1.200', '5.000000', '12.345', '12.340', '0.000', '-1.500'])(
    'refuses %j: more than 2 decimal digits as written, zeros too (a German 1.200 is one thousand two hundred)',
    (value) => {
      expect(parseAmount(value)).toEqual({ error: expect.stringContaining(`amount has more than 2 decimals`) as unknown });
      expect(parseAmount(value)).toEqual({ error: expect.stringContaining(JSON.stringify(value)) as unknown });
      expect(parseOrderRecord(fields({ amount: value }))).toMatchObject({ ok: false, sourceKey: 'K-1', error: { code: 'PARSE_AMOUNT' } });
    },
  );

  it('says the point is the decimal point when three decimals look like a thousands group', () => {
    expect(parseAmount('1.200')).toEqual({
      error: 'amount has more than 2 decimals (the point is the decimal point: no thousands separators): "1.200"',
    });
    expect(parseAmount('5.000000')).toEqual({ error: 'amount has more than 2 decimals: "5.000000"' });
  });

  it('knows the calendar', () => {
    expect(isValidIsoDate('2024-02-29')).toBe(true);
    expect(isValidIsoDate('2023-02-29')).toBe(false);
    expect(isValidIsoDate('1900-02-29')).toBe(false);
    expect(isValidIsoDate('2000-02-29')).toBe(true);
    expect(isValidIsoDate('2026-04-31')).toBe(false);
    expect(isValidIsoDate('2026-13-01')).toBe(false);
  });
});

describe('validateOrder (VALIDATE: business rules before the MERGE)', () => {
  const good = { customerId: '10', orderDate: '2026-11-01', amount: '1200', currency: 'JPY' };
  it('passes a good row, including an amount orders cannot hold (the database decides that)', () => {
    expect(validateOrder(good)).toBeNull();
    expect(validateOrder({ ...good, amount: '999999999999.99' })).toBeNull();
  });
  it.each([
    [{ amount: null }, 'INVALID_AMOUNT', 'amount is missing'],
    [{ amount: '-1' }, 'INVALID_AMOUNT', 'zero or greater'],
    [{ customerId: '0' }, 'INVALID_CUSTOMER_ID', 'positive'],
    [{ customerId: '-5' }, 'INVALID_CUSTOMER_ID', 'positive'],
    [{ customerId: null }, 'INVALID_CUSTOMER_ID', 'missing'],
    [{ orderDate: null }, 'INVALID_ORDER_DATE', 'missing'],
    [{ currency: 'jpy' }, 'INVALID_CURRENCY', 'upper-case'],
    [{ currency: null }, 'INVALID_CURRENCY', 'missing'],
  ])('rejects %j', (over, code, message) => {
    const failure = validateOrder({ ...good, ...over });
    expect(failure?.code).toBe(code);
    expect(failure?.message).toContain(message);
  });
  it('reports every problem of a row with its code, error_code being the first', () => {
    expect(validateOrder({ customerId: null, orderDate: null, amount: null, currency: null })).toEqual({
      code: 'INVALID_CUSTOMER_ID',
      message:
        'INVALID_CUSTOMER_ID: customer_id is missing; INVALID_ORDER_DATE: order_date is missing; INVALID_AMOUNT: amount is missing; INVALID_CURRENCY: currency is missing',
    });
  });
  it("names a line's parse problems and the business rules its other fields break, coded by the first", () => {
    const r = parseOrderRecord(fields({ customer_id: 'x', order_date: '2026-13-01', amount: '-1', currency: 'jpy' }));
    expect(r).toMatchObject({
      ok: false,
      sourceKey: 'K-1',
      error: {
        code: 'PARSE_CUSTOMER_ID',
        message:
          'PARSE_CUSTOMER_ID: customer_id is not an integer: "x"; PARSE_ORDER_DATE: order_date is not a valid date (YYYY-MM-DD): "2026-13-01"; ' +
          'INVALID_AMOUNT: amount must be zero or greater; INVALID_CURRENCY: currency must be three upper-case letters',
      },
    });
    // one problem: the message alone, as before
    expect(parseOrderRecord(fields({ amount: '1e5' }))).toMatchObject({
      error: { code: 'PARSE_AMOUNT', message: 'amount is not a decimal number (no exponent notation): "1e5"' },
    });
  });
});

describe('the fast paths of parseOrderRecord and validateOrder agree with the schema and the rules', () => {
  // parseOrderRecord and validateOrder take a shortcut for plainly written values; every value
  // here must give exactly what the zod schema and orderProblems give (results and messages).
  const values: Record<string, string[]> = {
    source_key: ['K-1', ' K-1 ', '', ' ', 'x'.repeat(100), 'x'.repeat(101), '\u{20BB7}'.repeat(60), '\u{20BB7}'.repeat(101)],
    customer_id: [
      '10',
      '',
      ' 7 ',
      '0',
      '007',
      '-5',
      '+5',
      '123456789012345678',
      '9223372036854775807',
      '9223372036854775808',
      '1.5',
      'abc',
      '１２',
    ],
    order_date: [
      '2026-11-01',
      '',
      '2024-02-29',
      '2023-02-29',
      '1900-01-01',
      '1899-12-31',
      '2026-13-01',
      '2026-00-10',
      '2026-01-00',
      '2026-4-01',
      '2026/01/01',
      ' 2026-01-31 ',
      '9999-12-31',
      '２０２６-01-01',
    ],
    amount: [
      '1200',
      '',
      '0',
      '0.5',
      '0.50',
      '12.5',
      '12.05',
      '12.345',
      '12.340',
      '1.200',
      '5.000000',
      '12.30',
      '-1',
      '-0',
      '+1',
      '007',
      '1.',
      '.5',
      '1e5',
      '1,200',
      '9999999999999999.99',
      '99999999999999999',
      '٣',
    ],
    currency: ['JPY', '', 'jpy', 'EURO', ' EU ', 'ＪＰＹ', 'J'],
  };
  const base = { source_key: 'K-1', customer_id: '10', order_date: '2026-11-01', amount: '1200', currency: 'JPY' };
  const cases = Object.entries(values).flatMap(([column, list]) => list.map((value) => ({ ...base, [column]: value })));
  it.each(cases)('%j', (record) => {
    const fast = parseOrderRecord(record);
    expect(fast).toEqual(parseOrderRecordWithSchema(record));
    if (fast.ok) {
      const rules = describeProblems(orderProblems(fast.order).map(({ code, message }) => ({ code, message })));
      expect(validateOrder(fast.order)).toEqual(rules);
    }
  });
});
