/**
 * The mapping's edges that the profile group's other tests did not reach: the warning about a
 * form no first value fits, values from the file name (a default for an empty group), a const
 * beside an amount's currency sign, the text of a column a record lacks, and a const column's text
 * never asked for. (Profiles are built inside the tests: this file is in the profile group's
 * mutation list, test/mutation/profile/vitest.config.ts.)
 */
import { describe, expect, test } from 'vitest';
import type { OrderColumn } from '../../src/input/order-record.js';
import { parseProfileText } from '../../src/input/profile/load-profile.js';
import { compileMapping } from '../../src/input/profile/mapping.js';

const profile = (columns: string[], top: string[] = []) =>
  parseProfileText(
    ['version: 1', 'header: false', "delimiter: ';'", ...top, 'columns:', ...columns.map((c) => `  ${c}`)].join('\n'),
    'p.yaml',
    'p',
  );

const PLAIN = [
  'source_key: { column: 1 }',
  'customer_id: { column: 2 }',
  "order_date: { column: 3, date: 'DD.MM.YYYY' }",
  "amount: { column: 4, decimal: ',' }",
  'currency: { column: 5 }',
];

describe('the warning about a form no value fits', () => {
  test('said once at finish when no first value fits the mask; not when one does', () => {
    const said: string[] = [];
    const none = compileMapping(profile(PLAIN), {}, (m) => said.push(m));
    for (const d of ['x', '2026-12-01', 'y']) none.mapRecord(['K', '7', d, '1', 'EUR'], [0, 1, 2, 3, 4]);
    none.finish();
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      /^profile p: columns\.order_date: no value of the first 3 line\(s\) fits date: DD\.MM\.YYYY \(.*; such as "x"\): each line is rejected$/,
    );

    const fits: string[] = [];
    const some = compileMapping(profile(PLAIN), {}, (m) => fits.push(m));
    for (const d of ['x', '01.12.2026', 'y']) some.mapRecord(['K', '7', d, '1', 'EUR'], [0, 1, 2, 3, 4]);
    some.finish();
    expect(fits).toEqual([]);
  });
  test('the number form’s warning names its decimal separator', () => {
    const said: string[] = [];
    const m = compileMapping(profile(PLAIN), {}, (x) => said.push(x));
    for (const a of ['x', 'y']) m.mapRecord(['K', '7', '01.12.2026', a, 'EUR'], [0, 1, 2, 3, 4]);
    m.finish();
    expect(said).toEqual([
      'profile p: columns.amount: no value of the first 2 line(s) fits decimal "," (column 4; such as "x"): each line is rejected',
    ]);
  });
});

describe('values from the file name', () => {
  const top = ["file_pattern: 'orders_(?<cur>[A-Z]*)\\.csv'"];
  const columns = [...PLAIN.slice(0, 4), "currency: { file_group: cur, default: 'EUR' }"];

  test('the group as read; an empty group takes the default', () => {
    const named = compileMapping(profile(columns, top), {}, undefined, '/in/orders_USD.csv');
    expect(named.mapRecord(['K', '7', '01.12.2026', '1', ''], [0, 1, 2, 3, 4]).fields.currency).toBe('USD');
    const empty = compileMapping(profile(columns, top), {}, undefined, '/in/orders_.csv');
    expect(empty.mapRecord(['K', '7', '01.12.2026', '1', ''], [0, 1, 2, 3, 4]).fields.currency).toBe('EUR');
  });

  test('the group with a prefix: the prefix before it, none before an empty group’s default', () => {
    const prefixed = [...PLAIN.slice(0, 4), "currency: { file_group: cur, prefix: 'U', default: 'EUR' }"];
    const top2 = ["file_pattern: 'orders_(?<cur>[A-Z]*)\\.csv'"];
    const named = compileMapping(profile(prefixed, top2), {}, undefined, '/in/orders_SD.csv');
    expect(named.mapRecord(['K', '7', '01.12.2026', '1', ''], [0, 1, 2, 3, 4]).fields.currency).toBe('USD');
    const empty = compileMapping(profile(prefixed, top2), {}, undefined, '/in/orders_.csv');
    expect(empty.mapRecord(['K', '7', '01.12.2026', '1', ''], [0, 1, 2, 3, 4]).fields.currency).toBe('EUR');
  });

  test('an amount sign against the file name’s currency: the rejection names the group', () => {
    const signed = [...PLAIN.slice(0, 3), "amount: { column: 4, currency_signs: { '$': USD } }", 'currency: { file_group: cur }'];
    const m = compileMapping(profile(signed, top), {}, undefined, '/in/orders_EUR.csv');
    const { problem } = m.mapRecord(['K', '7', '01.12.2026', '$5', ''], [0, 1, 2, 3, 4]);
    expect(problem?.code).toBe('PARSE_AMOUNT');
    expect(problem?.message).toContain('(file name group cur)');
  });
});

describe('const columns', () => {
  const columns = [
    'source_key: { column: 1 }',
    "customer_id: { const: '7' }",
    "order_date: { column: 3, date: 'DD.MM.YYYY' }",
    "amount: { column: 4, currency_signs: { '$': USD } }",
    'currency: { column: 5 }',
  ];

  test('a const beside an amount with a currency sign is no currency of the line', () => {
    const m = compileMapping(profile(columns));
    const { fields, problem } = m.mapRecord(['K', '', '01.12.2026', '$5', 'USD'], [0, 1, 2, 3, 4]);
    expect(problem).toBeNull();
    expect(fields).toEqual({ source_key: 'K', customer_id: '7', order_date: '2026-12-01', amount: '5', currency: 'USD' });
  });

  test('the text of a const column is never asked for; normalize gives it as no value', () => {
    const m = compileMapping(profile(columns));
    const row: Partial<Record<OrderColumn, string>> = { source_key: 'K', order_date: '01.12.2026', amount: '$5', currency: 'USD' };
    const raw = (c: OrderColumn): string => {
      const v = row[c];
      if (v === undefined) throw new Error(`${c} asked for`);
      return v;
    };
    expect(m.map(raw).fields.customer_id).toBe('7');
    expect(m.normalize((c) => (c === 'customer_id' ? '99' : (row[c] ?? '')))).toMatchObject({ source_key: 'K', customer_id: null });
  });
});

describe('a currency given by the amount’s sign (amount_sign)', () => {
  const columns = [...PLAIN.slice(0, 3), "amount: { column: 4, currency_signs: { '$': USD } }", 'currency: { amount_sign: true }'];

  test('its column’s text is never asked for; normalize gives it as no value', () => {
    const m = compileMapping(profile(columns));
    const row: Partial<Record<OrderColumn, string>> = { source_key: 'K', customer_id: '7', order_date: '01.12.2026', amount: '$5' };
    const raw = (c: OrderColumn): string => {
      const v = row[c];
      if (v === undefined) throw new Error(`${c} asked for`);
      return v;
    };
    expect(m.map(raw).fields.currency).toBe('USD');
    expect(m.normalize((c) => (c === 'currency' ? 'EUR' : (row[c] ?? '')))).toMatchObject({ amount: '$5', currency: null });
  });
});

describe('a column the record lacks', () => {
  test('reads as empty: its default, or nothing, with or without a prefix or a form', () => {
    const m = compileMapping(
      profile([
        "source_key: { column: 1, prefix: 'K-' }",
        'customer_id: { column: 2 }',
        "order_date: { column: 3, date: 'DD.MM.YYYY' }",
        "amount: { column: 4, decimal: ',', default: '0' }",
        "currency: { column: 5, default: 'EUR' }",
      ]),
    );
    const { fields } = m.mapRecord(['1', '7', '01.12.2026'], [5, 1, 2, 3, 4]);
    expect(fields).toEqual({ source_key: '', customer_id: '7', order_date: '2026-12-01', amount: '0', currency: 'EUR' });
  });
});
