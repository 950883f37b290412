/**
 * A profile's default stands in for an empty value as it is written, not through the column's
 * date mask or number form: the order the mapping hands over (Mapping.lastOrder) may trust the
 * form's output only where the default is in that form too. A default out of canonical form must
 * still come out as parseOrderRecord reads it. (Profiles are built inside the tests: this file is
 * in the profile group's mutation list, test/mutation/profile/vitest.config.ts.)
 */
import { describe, expect, test } from 'vitest';
import { parseOrderRecord, validateOrder } from '../../src/input/order-record.js';
import { parseProfileText } from '../../src/input/profile/load-profile.js';
import { compileMapping } from '../../src/input/profile/mapping.js';

const profile = (date: string, amount: string) =>
  parseProfileText(
    [
      'version: 1',
      'header: false',
      "delimiter: ';'",
      'columns:',
      '  source_key: { column: 1 }',
      '  customer_id: { column: 2 }',
      `  order_date: { column: 3, ${date} }`,
      `  amount: { column: 4, ${amount} }`,
      '  currency: { column: 5 }',
    ].join('\n'),
    'p.yaml',
    'p',
  );

/** The order handed over for a record, checked against what parseOrderRecord and validateOrder make of the mapped fields. */
function handed(mapping: ReturnType<typeof compileMapping>, record: string[]) {
  const mapped = mapping.mapRecord(record, [0, 1, 2, 3, 4]);
  const order = mapping.lastOrder();
  if (order !== null) {
    expect(mapped.problem).toBeNull();
    expect(parseOrderRecord(mapped.fields)).toEqual({ ok: true, order });
    expect(validateOrder(order)).toBeNull();
  }
  return { order, parsed: parseOrderRecord(mapped.fields) };
}

describe('a default out of the form of a formed column', () => {
  test('an amount default not canonical (12.50, 007) comes out canonical, as parseOrderRecord reads it', () => {
    for (const fallback of ['12.50', '007', '1.0']) {
      const mapping = compileMapping(profile("date: 'DD.MM.YYYY'", `decimal: ',', default: '${fallback}'`));
      // a formed amount is handed over
      expect(handed(mapping, ['K', '7', '01.12.2026', '1234,50', 'EUR']).order?.amount).toBe('1234.5');
      // the default, written out of form, is not taken as it is
      const { order, parsed } = handed(mapping, ['K', '7', '01.12.2026', '', 'EUR']);
      expect(parsed.ok && parsed.order.amount, fallback).toBe(String(Number(fallback)));
      if (order !== null) expect(order.amount, fallback).toBe(String(Number(fallback)));
    }
  });

  test('a date default out of ISO form, or none, is refused as parseOrderRecord refuses it', () => {
    for (const fallback of ['2026/01/01', '2026-02-30', '1899-12-31']) {
      const mapping = compileMapping(profile(`date: 'DD.MM.YYYY', default: '${fallback}'`, "decimal: ','"));
      expect(handed(mapping, ['K', '7', '01.12.2026', '1', 'EUR']).order?.orderDate).toBe('2026-12-01');
      expect(handed(mapping, ['K', '7', '', '1', 'EUR']).order, fallback).toBeNull();
    }
  });
});
