/**
 * The COPY text of a staging batch (src/engine/postgres/staging.ts, copyText) against the
 * concatenation it replaced, word for word: the same bytes for rows with escapes, NULLs, parse
 * errors and attributes. The integration tests (copy-staging.test.ts) compare what the database
 * holds after COPY with the function's staging.
 */
import { describe, expect, test } from 'vitest';
import { copyText, settledCopyText } from '../../src/engine/postgres/copy-text.js';
import type { StageInput } from '../../src/engine/types.js';

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
function field(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '\\N';
  const text = typeof value === 'number' ? String(value) : value;
  return text.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c] ?? c);
}

/** The text before (a `+=` per field over the batch). */
function concatenated(loadId: number, rows: readonly StageInput[]): string {
  let out = '';
  for (const r of rows) {
    out +=
      `${field(r.sourceKey)}\t${field(r.customerId)}\t${field(r.orderDate)}\t${field(r.amount)}\t${field(r.currency)}` +
      (r.parseError !== undefined ? '\tERROR\t' : '\tREADY\t') +
      `${field(r.parseError?.code)}\t${field(r.parseError?.message)}\t${String(loadId)}\t${field(r.lineNo)}\t${field(r.attributes)}\n`;
  }
  return out;
}

describe('copyText', () => {
  test('the same text as the concatenation it replaced, for every kind of row', () => {
    const rows: StageInput[] = [
      { sourceKey: 'K1', customerId: '1', orderDate: '2026-12-01', amount: '1.5', currency: 'JPY', lineNo: 2 },
      { sourceKey: 'K\\2', customerId: null, orderDate: null, amount: null, currency: null, lineNo: 3 },
      {
        sourceKey: 'K\t3',
        customerId: null,
        orderDate: null,
        amount: null,
        currency: null,
        lineNo: 4,
        parseError: { code: 'PARSE_AMOUNT', message: 'amount: "1\n2" is\r not a number\\' },
      },
      {
        sourceKey: 'K4',
        customerId: '7',
        orderDate: '2026-01-31',
        amount: '-0.01',
        currency: 'EUR',
        lineNo: 5,
        attributes: '{"a":"b\\\\c"}',
      },
      { sourceKey: '\\N', customerId: '\\N', orderDate: '2026-01-31', amount: '0', currency: 'EUR', lineNo: 6, attributes: null },
    ];
    expect(copyText(42, rows)).toBe(concatenated(42, rows));
    expect(copyText(42, rows).split('\n')).toHaveLength(rows.length + 1);
    expect(copyText(42, [])).toBe('');
    expect(copyText(1, rows.slice(2, 3))).toBe(
      'K\\t3\t\\N\t\\N\t\\N\t\\N\tERROR\tPARSE_AMOUNT\tamount: "1\\n2" is\\r not a number\\\\\t1\t4\t\\N\n',
    );
  });
});

describe('settledCopyText', () => {
  test("copyText's columns, the marked rows DONE with attempt 1, the batch id and the time, the others as copyText writes them", () => {
    const rows: StageInput[] = [
      { sourceKey: 'S1', customerId: '1', orderDate: '2026-12-01', amount: '1.50', currency: 'JPY', lineNo: 2 },
      {
        sourceKey: 'S\t2',
        customerId: null,
        orderDate: null,
        amount: null,
        currency: null,
        lineNo: 3,
        parseError: { code: 'P', message: 'm' },
      },
      { sourceKey: 'S3', customerId: '3', orderDate: '2026-12-01', amount: '3', currency: 'EUR', lineNo: 4, attributes: '{"x":"1"}' },
      { sourceKey: 'S4', customerId: '4', orderDate: '2026-12-01', amount: '4', currency: 'EUR', lineNo: 5 },
    ];
    const now = '2026-12-06 10:00:00.123+00';
    const text = settledCopyText(9, rows, [true, false, true, false], '3-s9.1', now);
    const plain = copyText(9, rows).split('\n');
    expect(text.split('\n')).toEqual([
      `${(plain[0] ?? '').replace('\tREADY\t', '\tDONE\t')}\t1\t3-s9.1\t${now}`,
      `${plain[1] ?? ''}\t0\t\\N\t\\N`,
      `${(plain[2] ?? '').replace('\tREADY\t', '\tDONE\t')}\t1\t3-s9.1\t${now}`,
      `${plain[3] ?? ''}\t0\t\\N\t\\N`,
      '',
    ]);
    expect(text.split('\n')[0]).toBe(`S1\t1\t2026-12-01\t1.50\tJPY\tDONE\t\\N\t\\N\t9\t2\t\\N\t1\t3-s9.1\t${now}`);
  });
});
