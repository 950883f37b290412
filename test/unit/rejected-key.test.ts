import { describe, expect, it } from 'vitest';
import { rejectedLineKey } from '../../src/input/rejected-key.js';
import type { OrderColumn } from '../../src/input/order-record.js';

/**
 * The key logged with a rejected line (src/input/rejected-key.ts), with which `errors` drops the
 * line once a later load made that key DONE. A key told wrongly hides a line nobody fixed, so
 * every doubt answers null.
 */
function header(names: string[]): { names: string[]; positions: Map<OrderColumn, number> } {
  const positions = new Map<OrderColumn, number>();
  names.forEach((n, i) => {
    const name = n.trim().toLowerCase();
    if (['source_key', 'customer_id', 'order_date', 'amount', 'currency'].includes(name)) positions.set(name as OrderColumn, i);
  });
  return { names, positions };
}

const PLAIN = header(['source_key', 'customer_id', 'order_date', 'amount', 'currency']);
/** The key third: a raw text cut at the log's limit may have lost it. */
const KEY_THIRD = header(['customer_id', 'order_date', 'source_key', 'amount', 'currency']);

describe('rejectedLineKey: the key of a line whose field count was right', () => {
  it('PARSE_ENCODING and PARSE_NUL_BYTE lines: the key where the header says, trimmed', () => {
    expect(rejectedLineKey({ code: 'PARSE_ENCODING', raw: ' K-1 ,7,2026-01-05,1\uFFFD0,JPY' }, PLAIN, ',')).toBe('K-1');
    expect(rejectedLineKey({ code: 'PARSE_NUL_BYTE', raw: '7;2026-01-05;K-2;10;JP\u2400' }, KEY_THIRD, ';')).toBe('K-2');
    // the header as written in the file: its case and blanks
    const written = header([' Amount', 'SOURCE_KEY ', 'customer_id', 'order_date', 'currency']);
    expect(rejectedLineKey({ code: 'PARSE_ENCODING', raw: '1\uFFFD,"K,3",7,2026-01-05,JPY' }, written, ',')).toBe('K,3');
  });

  it('any other rejection: no key (a field missing or split anywhere moves the others)', () => {
    for (const code of ['PARSE_FIELD_COUNT', 'PARSE_CSV', 'PARSE_TOO_LONG', 'PARSE_ENCODINGS', 'parse_encoding', ''])
      expect(rejectedLineKey({ code, raw: 'K-1,7,2026-01-05,10,JPY' }, PLAIN, ',')).toBeNull();
  });

  it('a header without source_key (a profile reading it from no column): no key', () => {
    const noKey = header(['key', 'customer_id', 'order_date', 'amount', 'currency']);
    expect(rejectedLineKey({ code: 'PARSE_ENCODING', raw: 'K-1,7,2026-01-05,1\uFFFD,JPY' }, noKey, ',')).toBeNull();
  });

  it('a raw text cut at the log limit (4000 characters): no key unless the key is the first field', () => {
    // the key third: the text up to 4000 characters was not cut, a longer one may have been
    const line4000 = `7,2026-01-05,K-9,${'1'.repeat(4000 - 19)},\uFFFD`;
    expect(line4000).toHaveLength(4000);
    expect(rejectedLineKey({ code: 'PARSE_ENCODING', raw: line4000 }, KEY_THIRD, ',')).toBe('K-9');
    expect(rejectedLineKey({ code: 'PARSE_ENCODING', raw: `${line4000}1` }, KEY_THIRD, ',')).toBeNull();
    // the key first is before any cut
    const first = `K-1,7,2026-01-05,${'1'.repeat(5000)}\uFFFD,JPY`;
    expect(rejectedLineKey({ code: 'PARSE_NUL_BYTE', raw: first }, PLAIN, ',')).toBe('K-1');
  });

  it('an empty key, a key longer than a key may be, a key holding a replaced byte: no key', () => {
    const raw = (key: string) => `${key},7,2026-01-05,1\uFFFD,JPY`;
    const key = (k: string) => rejectedLineKey({ code: 'PARSE_ENCODING', raw: raw(k) }, PLAIN, ',');
    expect(key('')).toBeNull();
    expect(key('   ')).toBeNull();
    // 100 characters is a key, 101 is not; counted in code points, not UTF-16 units
    expect(key('k'.repeat(100))).toBe('k'.repeat(100));
    expect(key('k'.repeat(101))).toBeNull();
    expect(key('\u{1F600}'.repeat(100))).toBe('\u{1F600}'.repeat(100));
    expect(key('\u{1F600}'.repeat(101))).toBeNull();
    expect(key('K\uFFFD1')).toBeNull();
    expect(key('K\u24001')).toBeNull();
    expect(key('K\u24011')).toBe('K\u24011');
  });
});
