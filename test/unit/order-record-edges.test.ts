/**
 * parseOrderRecord's fast path (src/input/order-record.ts parsePlainRecord, isCanonicalAmount) on
 * values it must hand to the schema: a fast answer for them would be wrong. Each case compares
 * the fast result with the schema's (parseOrderRecordWithSchema) and says what it is.
 */
import { describe, expect, it } from 'vitest';
import {
  ORDER_COLUMNS,
  parseAmount,
  parseOrderRecord,
  parseOrderRecordWithSchema,
  plainAmount,
  trimText,
  type OrderColumn,
} from '../../src/input/order-record.js';

const base: Record<OrderColumn, string> = {
  source_key: 'K-1',
  customer_id: '10',
  order_date: '2026-11-01',
  amount: '1200',
  currency: 'JPY',
};

function both(record: Record<OrderColumn, string>) {
  const fast = parseOrderRecord(record);
  expect(fast).toEqual(parseOrderRecordWithSchema(record));
  return fast;
}

describe('parseOrderRecord: what the fast path must not take', () => {
  it('a record lacking any one column (not even an empty text) is refused for that column, never thrown', () => {
    for (const column of ORDER_COLUMNS) {
      const record = Object.fromEntries(Object.entries(base).filter(([name]) => name !== column)) as Record<OrderColumn, string>;
      const result = both(record);
      expect(result.ok, column).toBe(false);
      if (!result.ok) expect(result.issues.map((i) => i.column)).toEqual([column]);
    }
  });

  it('an amount with a point and something other than digits after it is no amount', () => {
    for (const amount of ['1.x', '1.5x', '12.a', '1.-', '1.+5']) {
      const result = both({ ...base, amount });
      expect(result, amount).toMatchObject({ ok: false, error: { code: 'PARSE_AMOUNT' } });
    }
    expect(both({ ...base, amount: '1.05' })).toMatchObject({ ok: true, order: { amount: '1.05' } });
  });

  it('an amount whose fraction ends in 0 is canonicalized as the schema does, or refused as it does', () => {
    const expected: Array<[string, string | null]> = [
      ['12.50', '12.5'],
      ['12.00', '12'],
      ['12.0', '12'],
      ['0.00', '0'],
      ['0.10', '0.1'],
      ['10.00', '10'],
      ['1234567890123456.00', '1234567890123456'],
      ['12345678901234567.00', null], // 17 digits before the point
      ['012.50', '12.5'], // a leading zero: the schema's path
      ['12.500', null], // three decimals
      ['.50', null],
      ['12.', null],
      ['1e2.0', null],
      ['12.a0', null],
      ['-12.50', '-12.5'],
    ];
    for (const [amount, canonical] of expected) {
      const result = both({ ...base, amount });
      if (canonical === null) expect(result, amount).toMatchObject({ ok: false, error: { code: 'PARSE_AMOUNT' } });
      else expect(result, amount).toMatchObject({ ok: true, order: { amount: canonical } });
    }
  });

  it('a leap year has 29 days in February only: every other month keeps its length', () => {
    for (const order_date of ['2024-01-31', '2024-03-31', '2024-04-30', '2024-12-31', '2000-08-31']) {
      expect(both({ ...base, order_date }), order_date).toMatchObject({ ok: true, order: { orderDate: order_date } });
    }
    expect(both({ ...base, order_date: '2024-04-31' })).toMatchObject({ ok: false, error: { code: 'PARSE_ORDER_DATE' } });
  });

  it('a date whose separators, or whose ends, are wrong is not a date (and not "before 1900")', () => {
    for (const order_date of ['2023-01/10', '2023/01-10', '2023x01-10', '2023-01_10', '01899-01-01', '1899-01-011', 'x1899-01-01']) {
      const result = both({ ...base, order_date });
      expect(result, order_date).toMatchObject({
        ok: false,
        error: { code: 'PARSE_ORDER_DATE', message: `order_date is not a valid date (YYYY-MM-DD): ${JSON.stringify(order_date)}` },
      });
    }
  });
});

describe('trimText', () => {
  it('is String.prototype.trim for every text, the white space of Unicode at either end included', () => {
    const blanks = [
      ' ',
      '\t',
      '\n',
      '\r',
      '\v',
      '\f',
      '\u00a0',
      '\u1680',
      '\u2000',
      '\u200a',
      '\u2028',
      '\u2029',
      '\u202f',
      '\u205f',
      '\u3000',
      '\ufeff',
    ];
    const cores = ['', 'a', 'ab', 'K-1', '~', '!', '\u0000', '\u007f', 'é', '注文', 'a b'];
    for (const core of cores)
      for (const before of ['', ...blanks])
        for (const after of ['', ...blanks]) {
          const v = `${before}${core}${after}`;
          expect(trimText(v), JSON.stringify(v)).toBe(v.trim());
        }
  });
});

describe('plainAmount: the fast path’s canonical amount', () => {
  it('returns parseAmount’s canonical text for a plain amount, null for anything the schema must judge', () => {
    const table: Array<[string, string | null]> = [
      ['0', '0'],
      ['7', '7'],
      ['12', '12'],
      ['12.5', '12.5'],
      ['12.05', '12.05'],
      ['12.50', '12.5'],
      ['12.30', '12.3'],
      ['12.0', '12'],
      ['12.00', '12'],
      ['0.00', '0'],
      ['0.10', '0.1'],
      ['10.00', '10'],
      ['100', '100'],
      ['1234567890123456', '1234567890123456'],
      ['1234567890123456.50', '1234567890123456.5'],
      ['12345678901234567', null],
      ['12345678901234567.00', null],
      ['00', null],
      ['012', null],
      ['012.50', null],
      ['12.500', null],
      ['12.3.0', null],
      ['12.', null],
      ['.5', null],
      ['.50', null],
      ['', null],
      ['-1', null],
      ['+1', null],
      ['1a', null],
      ['a2.50', null],
      ['1a.50', null],
      ['12.5a', null],
      ['12.a0', null],
      ['12.a', null],
      ['１２', null],
    ];
    expect(table.map(([v]) => [v, plainAmount(v)])).toEqual(table);
    // what it returns is what the schema returns for the same text
    for (const [v, canonical] of table) if (canonical !== null) expect(parseAmount(v), v).toEqual({ value: canonical });
  });
});
