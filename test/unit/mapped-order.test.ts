/**
 * The order a profile's mapping hands over (Mapping.lastOrder) is taken as it is by staging and the
 * dry run, its fields never parsed or judged again: it must be exactly the order parseOrderRecord
 * reads from the mapped fields, and one validateOrder accepts. Checked over profiles whose date and
 * amount are made by a mask and a form, and over profiles where a prefix, a const or a default
 * stands in their place, with values at the edges of every rule. (Profiles are built inside the
 * tests: this file is in the profile group's mutation list, test/mutation/profile/vitest.config.ts.)
 */
import { describe, expect, test } from 'vitest';
import { ORDER_COLUMNS, parseOrderRecord, validateOrder, type OrderColumn } from '../../src/input/order-record.js';
import { parseProfileText, type LoadProfile } from '../../src/input/profile/load-profile.js';
import { compileMapping } from '../../src/input/profile/mapping.js';

/** A deterministic pseudo-random sequence (the same cases on every run). */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

const profile = (columns: string[], extra: string[] = []) =>
  parseProfileText(
    ['version: 1', 'header: false', "delimiter: ';'", ...extra, 'columns:', ...columns.map((c) => `  ${c}`)].join('\n'),
    'p.yaml',
    'p',
  );

const KEYS = ['K1', ' K2 ', '', 'k'.repeat(100), 'k'.repeat(101), '="000123"', 'n/a', 'Ｋ３', '\u00a0K4'];
const CUSTOMERS = ['7', '0', '007', '-7', '+7', ' 8 ', '', '123456789012345678', '1234567890123456789', '9'.repeat(20), 'x', '１２'];
const CURRENCIES = ['EUR', 'eur', 'EURO', 'E', ' EUR ', '', 'USD', 'ＥＵＲ', '€'];
const PLAIN_DATES = ['2026-12-01', ' 2026-12-01 ', '2026-02-29', '1899-12-31', '1900-01-01', '2026-12-1', '', '01.12.2026'];
const PLAIN_AMOUNTS = ['12', '12.5', '12.50', '12.00', '0', '0.0', '-1', '+1', '007', '1.234', '1' + '0'.repeat(16), '1'.repeat(16), ''];

const PROFILES = {
  // the established bench's shape: a mask and a grouped decimal comma
  european: () =>
    profile([
      "source_key: { column: 1, prefix: 'EU-' }",
      'customer_id: { column: 2 }',
      "order_date: { column: 3, date: ['DD.MM.YYYY', 'YYYY/MM/DD'] }",
      "amount: { column: 4, decimal: ',', group: '.', negative: ['-', '()'] }",
      "currency: { column: 5, default: 'EUR' }",
    ]),
  // currency signs: a sign that names the currency, or contradicts the column's
  signs: () =>
    profile(
      [
        'source_key: { column: 1 }',
        'customer_id: { column: 2 }',
        "order_date: { column: 3, date: 'YYYY-MM-DDTHH:mm:ssZ' }",
        "amount: { column: 4, group: ',', negative: ['-', '()'], currency_signs: { '$': USD, '€': EUR } }",
        'currency: { column: 5 }',
      ],
      ['timezone: Asia/Tokyo'],
    ),
  // the date and amount as plain text (no mask, no form), trim off, NFKC
  plain: () =>
    profile(
      [
        'source_key: { column: 1, trim: false }',
        'customer_id: { column: 2, trim: false }',
        'order_date: { column: 3, trim: false }',
        'amount: { column: 4, trim: false }',
        'currency: { column: 5, trim: false }',
      ],
      ['normalize: nfkc', "null_if: ['n/a']"],
    ),
  // a mask and a form, with defaults and prefixes that are not in their form
  standIns: () =>
    profile([
      'source_key: { column: 1 }',
      "customer_id: { column: 2, default: '42' }",
      "order_date: { column: 3, date: 'DD.MM.YYYY', default: '2026/01/01' }",
      "amount: { column: 4, decimal: ',', prefix: '1' }",
      "currency: { column: 5, default: 'eur' }",
    ]),
  // a const in the place of a formed date and amount (a date that is none: no line is valid)
  consts: () =>
    profile([
      'source_key: { column: 1 }',
      'customer_id: { column: 2 }',
      "order_date: { const: '2026-02-30', date: 'DD.MM.YYYY' }",
      "amount: { const: '12.50', decimal: ',' }",
      'currency: { column: 5 }',
    ]),
  // defaults in the form: taken as they are
  formedDefaults: () =>
    profile([
      'source_key: { column: 1 }',
      'customer_id: { column: 2 }',
      "order_date: { column: 3, date: 'YYYYMMDD', default: '2026-01-01' }",
      "amount: { column: 4, decimal: ',', default: '0' }",
      'currency: { column: 5 }',
    ]),
} as const;

const DATES: Record<keyof typeof PROFILES, string[]> = {
  european: ['01.12.2026', '2026/12/01', '31.02.2026', '29.02.2024', '01.12.1899', '', ' 01.12.2026 ', 'x'],
  signs: ['2026-12-01T00:15:00+09:00', '2026-12-01T00:15:00Z', '2026-11-30T23:59:59-12:00', '9999-12-31T23:00:00-12:00', '', 'x'],
  plain: PLAIN_DATES,
  standIns: ['01.12.2026', '', '31.02.2026'],
  consts: [''],
  formedDefaults: ['20261201', '', '20261301'],
};

const AMOUNTS: Record<keyof typeof PROFILES, string[]> = {
  european: ['1.234,50', '1.234,00', '(1,00)', '-0,00', '-5', '0,005', '1.23,4', '12', '1' + '0'.repeat(16), '9'.repeat(16) + ',99', ''],
  signs: ['$1,234.50', '($45.00)', '-$5.00', '€12', '¥1,200', '12.345', '1' + '0'.repeat(16) + '.5', '0.00', ''],
  plain: PLAIN_AMOUNTS,
  standIns: ['12,5', '', '-1'],
  consts: [''],
  formedDefaults: ['12,50', '', 'x'],
};

describe('the order a mapping hands over', () => {
  for (const [name, p] of Object.entries(PROFILES) as Array<[keyof typeof PROFILES, () => LoadProfile]>) {
    test(`${name}: what parseOrderRecord reads from the mapped fields and validateOrder accepts, whenever one is handed over`, () => {
      const next = random(name.length * 7919);
      const pick = (values: readonly string[]) => values[Math.floor(next() * values.length)] ?? '';
      const mapping = compileMapping(p());
      let handed = 0;
      const lines = 3000;
      for (let i = 0; i < lines; i++) {
        const record = [pick(KEYS), pick(CUSTOMERS), pick(DATES[name]), pick(AMOUNTS[name]), pick(CURRENCIES)];
        const text = (c: OrderColumn) => record[ORDER_COLUMNS.indexOf(c)] ?? '';
        for (const mapped of [mapping.map(text), mapping.mapRecord(record, [0, 1, 2, 3, 4])]) {
          const order = mapping.lastOrder();
          if (order === null) continue;
          handed++;
          const what = `${name}: ${JSON.stringify(record)}`;
          expect(mapped.problem, what).toBeNull();
          expect(parseOrderRecord(mapped.fields), what).toEqual({ ok: true, order });
          expect(validateOrder(order), what).toBeNull();
        }
      }
      // valid lines are handed over (every profile but the one whose const date is none)
      if (name === 'consts') expect(handed).toBe(0);
      else expect(handed).toBeGreaterThan(0);
    });
  }

  test('a plainly valid line is handed over; a line with a problem, or an invalid one, is not', () => {
    const mapping = compileMapping(PROFILES.european());
    const at = (record: string[]) => {
      mapping.mapRecord(record, [0, 1, 2, 3, 4]);
      return mapping.lastOrder();
    };
    expect(at(['1', '7', '01.12.2026', '1.234,50', ''])).toEqual({
      sourceKey: 'EU-1',
      customerId: '7',
      orderDate: '2026-12-01',
      amount: '1234.5',
      currency: 'EUR',
    });
    expect(at(['1', '7', '31.02.2026', '1.234,50', ''])).toBeNull(); // PARSE_ORDER_DATE
    expect(at(['1', '7', '01.12.2026', '-5', ''])).toBeNull(); // INVALID_AMOUNT: negative
    expect(at(['1', '7', '01.12.2026', '1' + '0'.repeat(16), ''])).toBeNull(); // too large for the stage
    expect(at(['1', '7', '', '1,00', ''])).toBeNull(); // INVALID_ORDER_DATE: missing
    expect(at(['1', '', '01.12.2026', '1,00', ''])).toBeNull(); // INVALID_CUSTOMER_ID: missing
    // the last line's order only: one with a problem after a handed-over one leaves none
    expect(at(['1', '7', '01.12.2026', '1,00', ''])).not.toBeNull();
    expect(at(['1', '7', '01.12.2026', 'x', ''])).toBeNull();
  });
});
