/**
 * The profile vocabulary real exports need: currency signs and words around amounts, dates inside
 * timestamps (an offset taken to the profile's timezone), Japanese era dates with their spans,
 * Excel's ="…" guard, values from the file name, header names with blanks folded. Each reading
 * asserted through compileMapping as a line would be read; refusals by their code and message.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { unwrapExcelGuard } from '../../src/input/excel-guard.js';
import { openOrderFile } from '../../src/input/order-file.js';
import { parseOrderRecord, type OrderColumn } from '../../src/input/order-record.js';
import { dateMaskProblem } from '../../src/input/profile/date-mask.js';
import { parseProfileText, type LoadProfile } from '../../src/input/profile/load-profile.js';
import { compileMapping, headerKey, parseMappedRecord, type Mapping } from '../../src/input/profile/mapping.js';
import { tempDir } from '../support/files.js';

function profile(top = '', columns: Partial<Record<OrderColumn, string>> = {}): LoadProfile {
  const c: Record<OrderColumn, string> = {
    source_key: '{ column: "k" }',
    customer_id: '{ column: "c" }',
    order_date: '{ column: "d" }',
    amount: '{ column: "a" }',
    currency: '{ column: "cur" }',
    ...columns,
  };
  const lines = Object.entries(c).map(([name, spec]) => `  ${name}: ${spec}`);
  return parseProfileText(`version: 1\ndelimiter: ";"\n${top}columns:\n${lines.join('\n')}\n`, 'p.yaml', 'p');
}

const refusal = (top: string, columns: Partial<Record<OrderColumn, string>> = {}): string => {
  try {
    profile(top, columns);
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
};

const ROW: Record<OrderColumn, string> = { source_key: 'K-1', customer_id: '7', order_date: '2026-12-01', amount: '10', currency: '' };

/** The field as read, or `CODE: message` of the line's problem. */
function read(m: Mapping, column: OrderColumn, value: string, row: Partial<Record<OrderColumn, string>> = {}): string {
  const out = m.map((c) => ({ ...ROW, ...row, [column]: value })[c]);
  return out.problem === null ? out.fields[column] : `${out.problem.code}: ${out.problem.message}`;
}

describe('amounts with currency signs and words', () => {
  const signs = '{ "$": USD, "¥": JPY, "￥": JPY, "円": JPY, "€": EUR, "USD": USD }';
  const amounts = (extra = '') =>
    compileMapping(
      profile('', { amount: `{ column: "a", group: ",", negative: ["-", "()", "△", "▲"], currency_signs: ${signs}${extra} }` }),
    );

  test('a named sign before or after the number, blanks between, with a negative mark in either order', () => {
    const m = amounts();
    for (const [text, want] of [
      ['$1,234.50', '1234.5'],
      ['-$5.00', '-5'],
      ['$-5.00', '-5'],
      ['¥1,200', '1200'],
      ['￥1,200', '1200'],
      ['1,200円', '1200'],
      ['12.00 USD', '12'],
      ['(45.00)', '-45'],
      ['($45.00)', '-45'],
      ['$(45.00)', '-45'],
      ['△1,200', '-1200'],
      ['▲1,200円', '-1200'],
      ['1234.5', '1234.5'],
    ] as const)
      expect(read(m, 'amount', text), text).toBe(want);
  });

  test('€ 12,50 with a decimal comma', () => {
    const m = compileMapping(profile('', { amount: '{ column: "a", decimal: ",", currency_signs: { "€": EUR } }' }));
    expect(read(m, 'amount', '€ 12,50')).toBe('12.5');
    expect(read(m, 'amount', '12,50 €')).toBe('12.5');
  });

  test('a sign the profile does not name is a rejection naming currency_signs, never stripped', () => {
    const m = compileMapping(profile('', { amount: '{ column: "a", group: ",", currency_signs: { "$": USD } }' }));
    expect(read(m, 'amount', '£1,200.00')).toBe(
      'PARSE_AMOUNT: amount: "£1,200.00" is not a number with decimal ".", group "," (a currency sign or word the profile does not name: currency_signs has "$") (column "a")',
    );
    expect(read(m, 'amount', '$$5')).toMatch(/^PARSE_AMOUNT: /);
    const none = compileMapping(profile('', { amount: '{ column: "a", group: "," }' }));
    expect(read(none, 'amount', '$1,234.50')).toBe(
      'PARSE_AMOUNT: amount: "$1,234.50" is not a number with decimal ".", group "," (a currency sign or word around the number: name it in currency_signs) (column "a")',
    );
  });

  test('the sign gives the currency (amount_sign); a sign with null gives none and the default applies', () => {
    const m = compileMapping(
      profile('', {
        amount: '{ column: "a", group: ",", currency_signs: { "$": USD, "¥": JPY, "*": null } }',
        currency: '{ amount_sign: true, default: "EUR" }',
      }),
    );
    const line = (amount: string) => m.map((c) => ({ ...ROW, amount })[c]);
    expect(line('$5').fields.currency).toBe('USD');
    expect(line('¥1,200').fields.currency).toBe('JPY');
    expect(line('*5').fields.currency).toBe('EUR');
    expect(line('5').fields.currency).toBe('EUR');
    // each line its own sign: nothing carried over from the line before
    expect(line('$5').fields.currency).toBe('USD');
    expect(line('7').fields.currency).toBe('EUR');
  });

  test('a sign that contradicts the currency column is a rejection of the line', () => {
    const m = compileMapping(profile('', { amount: '{ column: "a", currency_signs: { "$": USD, "€": EUR } }' }));
    expect(read(m, 'amount', '$5', { currency: 'USD' })).toBe('5');
    expect(read(m, 'amount', '$5', { currency: 'EUR' })).toBe(
      `PARSE_AMOUNT: amount: its sign "$" stands for USD, but the line's currency is "EUR" (column "cur")`,
    );
    const constant = compileMapping(profile('', { amount: '{ column: "a", currency_signs: { "$": USD } }', currency: '{ const: "JPY" }' }));
    expect(read(constant, 'amount', '$5')).toMatch(/^PARSE_AMOUNT: amount: its sign "\$" stands for USD, but the line's currency is "JPY"/);
  });

  test('more decimals than orders.amount holds are refused, zeros or not', () => {
    const m = compileMapping(profile('', { amount: '{ column: "a", decimal: "." }' }));
    expect(read(m, 'amount', '1.200')).toBe('PARSE_AMOUNT: amount: "1.200" has more than 2 decimals (orders.amount holds 2) (column "a")');
    expect(read(m, 'amount', '5.000000')).toMatch(/^PARSE_AMOUNT: amount: "5.000000" has more than 2 decimals/);
    expect(read(m, 'amount', '1.20')).toBe('1.2');
  });

  test('group separators as exports write them: the blanks one class, the apostrophe with U+2019', () => {
    for (const group of ['" "', '"\\u00a0"', '"\\u202f"']) {
      const m = compileMapping(profile('', { amount: `{ column: "a", decimal: ",", group: ${group} }` }));
      for (const text of ['1 234,50', '1\u00a0234,50', '1\u202f234,50']) expect(read(m, 'amount', text), `${group} ${text}`).toBe('1234.5');
      expect(read(m, 'amount', '1 23,50')).toMatch(/^PARSE_AMOUNT/);
    }
    const swiss = compileMapping(profile('', { amount: `{ column: "a", group: "'" }` }));
    expect(read(swiss, 'amount', "1'234.50")).toBe('1234.5');
    expect(read(swiss, 'amount', '1\u2019234.50')).toBe('1234.5');
  });

  test('the schema: signs map to three capital letters or null; amount_sign needs currency_signs', () => {
    expect(refusal('', { amount: '{ column: "a", currency_signs: { "$": usd } }' })).toMatch(
      /columns\.amount\.currency_signs\.\$: a currency code of three capital letters/,
    );
    expect(refusal('', { currency: '{ amount_sign: true }' })).toMatch(
      /columns\.currency\.amount_sign: amount_sign needs columns\.amount\.currency_signs/,
    );
    expect(refusal('', { customer_id: '{ column: "c", currency_signs: { "$": USD } }' })).toMatch(/currency_signs is for amount/);
  });
});

describe('dates inside timestamps', () => {
  const dates = (masks: string, top = '') => compileMapping(profile(top, { order_date: `{ column: "d", date: ${masks} }` }));

  test('time parts are read, range-checked and dropped', () => {
    const m = dates('["YYYY-MM-DD HH:mm:ss.SSS", "MM/DD/YYYY h:mm A", "YYYYMMDDHHmmss"]');
    expect(read(m, 'order_date', '2026-12-01 14:03:22.000')).toBe('2026-12-01');
    expect(read(m, 'order_date', '12/01/2026 9:15 PM')).toBe('2026-12-01');
    expect(read(m, 'order_date', '12/01/2026 12:05 am')).toBe('2026-12-01');
    expect(read(m, 'order_date', '20261201091500')).toBe('2026-12-01');
    for (const bad of [
      '2026-12-01 24:00:00.000',
      '2026-12-01 14:60:00.000',
      '12/01/2026 13:15 PM',
      '12/01/2026 0:15 AM',
      '20261201096000',
      '2026-12-01 14:03:22',
    ])
      expect(read(m, 'order_date', bad), bad).toMatch(/^PARSE_ORDER_DATE: order_date: .* matches none of/);
  });

  test('an offset: the calendar date in the profile timezone', () => {
    const tokyo = dates('"YYYY-MM-DDTHH:mm:ssZ"', 'timezone: Asia/Tokyo\n');
    const utc = dates('"YYYY-MM-DDTHH:mm:ssZ"', 'timezone: UTC\n');
    expect(read(tokyo, 'order_date', '2026-12-01T00:15:00+09:00')).toBe('2026-12-01');
    expect(read(utc, 'order_date', '2026-12-01T00:15:00+09:00')).toBe('2026-11-30');
    expect(read(tokyo, 'order_date', '2026-12-01T00:15:00Z')).toBe('2026-12-01');
    expect(read(tokyo, 'order_date', '2026-11-30T20:00:00Z')).toBe('2026-12-01');
    expect(read(utc, 'order_date', '2026-12-01T09:15:00+0900')).toBe('2026-12-01');
    expect(read(tokyo, 'order_date', '2026-11-30T10:30:00-05:00')).toBe('2026-12-01');
    const ny = dates('"YYYY-MM-DDTHH:mm:ssZ"', 'timezone: America/New_York\n');
    expect(read(ny, 'order_date', '2026-12-01T03:00:00Z')).toBe('2026-11-30');
    // UTC and GMT written for the zero offset (BigQuery's 2026-12-01 21:34:02 UTC)
    const spaced = dates('"YYYY-MM-DD HH:mm:ss Z"', 'timezone: Asia/Tokyo\n');
    expect(read(spaced, 'order_date', '2026-12-01 21:34:02 UTC')).toBe('2026-12-02');
    expect(read(spaced, 'order_date', '2026-12-01 14:59:59 GMT')).toBe('2026-12-01');
    expect(read(spaced, 'order_date', '2026-12-01 21:34:02 CET')).toMatch(/^PARSE_ORDER_DATE: order_date: .* matches none of/);
  });

  test('an offset without a stated zone, or an unknown zone, is a profile error said at start', () => {
    expect(refusal('', { order_date: '{ column: "d", date: "YYYY-MM-DDTHH:mm:ssZ" }' })).toBe(
      'profile p.yaml: columns.order_date.date: mask "YYYY-MM-DDTHH:mm:ssZ" reads an offset (Z): set timezone (an IANA name such as Asia/Tokyo): the order date is the calendar date there (line 6)',
    );
    expect(refusal('timezone: Mars/Olympus\n', { order_date: '{ column: "d", date: "YYYY-MM-DDTHH:mm:ssZ" }' })).toMatch(
      /^profile p\.yaml: timezone: unknown time zone "Mars\/Olympus"/,
    );
  });

  test('mask checks: a 12-hour clock needs A, minutes need an hour, Z needs the time', () => {
    expect(dateMaskProblem('YYYY-MM-DD hh:mm')).toMatch(/go with A/);
    expect(dateMaskProblem('YYYY-MM-DD mm')).toMatch(/minutes \(mm\) need an hour/);
    expect(dateMaskProblem('YYYY-MM-DDZ')).toMatch(/an offset \(Z\) needs the time/);
    expect(dateMaskProblem('YYYY-MM-DDTHH:mm:ss.SSSZ')).toBeNull();
    expect(dateMaskProblem('YYYY年M月D日')).toBeNull();
    expect(dateMaskProblem('GE年M月D日')).toBeNull();
    expect(dateMaskProblem('GE.M.D YYYY')).toMatch(/needs one year/);
  });
});

describe('Japanese era dates', () => {
  // built inside each test: a mapping compiled while the file is collected made every mutant of the mapping's code static (run for every test)
  const era = () => compileMapping(profile('', { order_date: '{ column: "d", date: ["GE年M月D日", "GE.M.D", "GEE/MM/DD"] }' }));

  test('each era written in kanji or by its letter, 元 for the first year', () => {
    for (const [text, want] of [
      ['令和8年12月1日', '2026-12-01'],
      ['R8.12.1', '2026-12-01'],
      ['R08/12/01', '2026-12-01'],
      ['H31.4.30', '2019-04-30'],
      ['平成31年4月30日', '2019-04-30'],
      ['令和元年5月1日', '2019-05-01'],
      ['R1.5.1', '2019-05-01'],
      ['S64.1.7', '1989-01-07'],
      ['H1.1.8', '1989-01-08'],
      ['平成元年1月8日', '1989-01-08'],
    ] as const)
      expect(read(era(), 'order_date', text), text).toBe(want);
  });

  test('a date outside its era is a rejection', () => {
    for (const text of ['R1.4.30', '平成31年5月1日', 'S64.1.8', 'H1.1.7', 'R0.5.1', 'H31.2.29'])
      expect(read(era(), 'order_date', text), text).toMatch(
        /^PARSE_ORDER_DATE: order_date: .* matches none of GE年M月D日, GE.M.D, GEE\/MM\/DD/,
      );
  });

  test('literal text and unpadded parts', () => {
    const m = compileMapping(profile('', { order_date: '{ column: "d", date: ["YYYY年M月D日", "YYYY/M/D"] }' }));
    expect(read(m, 'order_date', '2026年12月1日')).toBe('2026-12-01');
    expect(read(m, 'order_date', '2026/12/1')).toBe('2026-12-01');
    expect(read(m, 'order_date', '2026/1/01')).toBe('2026-01-01');
  });
});

describe('Excel text guards', () => {
  test('="…" unwrapped, doubled quotes inside undone; another formula kept as written', () => {
    expect(unwrapExcelGuard('="000123"')).toBe('000123');
    expect(unwrapExcelGuard(' ="000123" ')).toBe('000123');
    expect(unwrapExcelGuard('="a""b"')).toBe('a"b');
    expect(unwrapExcelGuard('=""')).toBe('');
    expect(unwrapExcelGuard('="a"&"b"')).toBe('="a"&"b"');
    expect(unwrapExcelGuard('=SUM(A1)')).toBe('=SUM(A1)');
    expect(unwrapExcelGuard('000123')).toBe('000123');
  });

  test('in every field through a profile', () => {
    const m = compileMapping(profile('', { order_date: '{ column: "d", date: "YYYY/MM/DD" }', amount: '{ column: "a", group: "," }' }));
    const out = m.map(
      (c) => ({ source_key: '="000123"', customer_id: '="42"', order_date: '="2026/12/01"', amount: '="1,200"', currency: '="JPY"' })[c],
    );
    expect(out).toEqual({
      fields: { source_key: '000123', customer_id: '42', order_date: '2026-12-01', amount: '1200', currency: 'JPY' },
      problem: null,
    });
  });
});

describe('values from the file name', () => {
  const named = () => profile("file_pattern: 'orders_(?<currency>[A-Z]{3})_\\d{8}\\.csv'\n", { currency: '{ file_group: currency }' });

  test('a field from a named group of the base name', () => {
    const m = compileMapping(named(), {}, undefined, '/in/orders_USD_20261201.csv');
    expect(m.map((c) => ROW[c]).fields.currency).toBe('USD');
  });

  test('a name the pattern does not match refuses the file, naming the pattern', () => {
    expect(() => compileMapping(named(), {}, undefined, '/in/orders_usd_20261201.csv')).toThrow(
      String.raw`does not match file_pattern /orders_(?<currency>[A-Z]{3})_\d{8}\.csv/ of profile p`,
    );
    expect(() => compileMapping(named(), {}, undefined, '/in/x_orders_USD_20261201.csv')).toThrow(/does not match file_pattern/);
  });

  test('the schema: a group the pattern lacks, no pattern, a pattern that is no regular expression', () => {
    expect(refusal("file_pattern: 'orders_(?<cur>[A-Z]{3})'\n", { currency: '{ file_group: currency }' })).toMatch(
      /columns\.currency\.file_group: file_pattern has no group \(\?<currency>…\)/,
    );
    expect(refusal('', { currency: '{ file_group: currency }' })).toMatch(/file_group needs file_pattern/);
    expect(refusal("file_pattern: 'orders_(?<currency>[A-Z]{3}'\n", { currency: '{ file_group: currency }' })).toMatch(
      /file_pattern: not a regular expression/,
    );
  });
});

describe('header names', () => {
  test('case, full-width forms and every run of blanks ignored; blanks are folded, not removed', () => {
    expect(headerKey('Order Ref')).toBe('order ref');
    expect(headerKey('order  ref')).toBe('order ref');
    expect(headerKey('ＯＲＤＥＲ\u3000ＲＥＦ')).toBe('order ref');
    expect(headerKey(' Order\u00a0\tRef ')).toBe('order ref');
    expect(headerKey('OrderRef')).not.toBe(headerKey('Order Ref'));
  });
});

describe('the error code a line keeps: parse problems first, in column order, on both paths', () => {
  test('a bad customer and a bad date: the customer’s code through a profile as in the built-in format', () => {
    const m = compileMapping(profile('', { order_date: '{ column: "d", date: "DD.MM.YYYY" }' }));
    const mapped = m.map((c) => ({ ...ROW, customer_id: 'x', order_date: '2026-13-45', currency: 'EUR' })[c]);
    expect(mapped.problem?.code).toBe('PARSE_ORDER_DATE');
    const viaProfile = parseMappedRecord(mapped.fields, mapped.problem!);
    const builtIn = parseOrderRecord({ ...ROW, customer_id: 'x', order_date: '2026-13-45', currency: 'EUR' });
    expect(viaProfile.ok || builtIn.ok).toBe(false);
    if (viaProfile.ok || builtIn.ok) return;
    expect(viaProfile.error.code).toBe('PARSE_CUSTOMER_ID');
    expect(builtIn.error.code).toBe('PARSE_CUSTOMER_ID');
    expect(viaProfile.error.message).toMatch(
      /^PARSE_CUSTOMER_ID: .*; PARSE_ORDER_DATE: order_date: "2026-13-45" matches none of DD\.MM\.YYYY/,
    );
  });
});

describe('the CSV reader and the fixed-width reader alike', () => {
  async function records(path: string, profile: LoadProfile): Promise<Array<Record<OrderColumn, string> | string>> {
    const file = await openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile });
    const out: Array<Record<OrderColumn, string> | string> = [];
    for await (const item of file.items) out.push(item.kind === 'record' ? (item.problem?.code ?? item.fields) : item.code);
    return out;
  }
  const columns = (at: boolean) => ({
    source_key: at ? '{ at: [1, 10] }' : '{ column: "Key" }',
    customer_id: at ? '{ at: [11, 3] }' : '{ column: "Customer" }',
    order_date: `{ ${at ? 'at: [14, 25]' : 'column: "Date"'}, date: ["YYYY-MM-DDTHH:mm:ssZ", "GE年M月D日"] }`,
    amount: `{ ${at ? 'at: [39, 12]' : 'column: "Amount"'}, decimal: ",", group: " ", negative: ["()"], currency_signs: { "€": EUR, "$": USD } }`,
    currency: '{ file_group: cur }',
  });
  const top = "file_pattern: 'orders_(?<cur>[A-Z]{3})\\.(csv|dat)'\ntimezone: Asia/Tokyo\n";
  const rows: Array<[string, string, string, string]> = [
    ['="000123"', '7', '2026-11-30T20:00:00Z', '1\u00a0234,50 €'],
    ['K-2', '8', '令和元年5月1日', '(1\u202f000,00)'],
    ['K-3', '9', 'R1.4.30', '5,00'],
    ['K-4', '10', '2026-12-01T00:00:00Z', '$5,00'],
  ];
  const want = [
    { source_key: '000123', customer_id: '7', order_date: '2026-12-01', amount: '1234.5', currency: 'EUR' },
    { source_key: 'K-2', customer_id: '8', order_date: '2019-05-01', amount: '-1000', currency: 'EUR' },
    'PARSE_ORDER_DATE',
    'PARSE_AMOUNT',
  ];

  test('CSV', async () => {
    const dir = tempDir();
    const path = join(dir, 'orders_EUR.csv');
    writeFileSync(path, `Key;Customer;Date;Amount\n${rows.map((r) => r.join(';')).join('\n')}\n`);
    const p = parseProfileText(
      `version: 1\ndelimiter: ";"\n${top}columns:\n${Object.entries(columns(false))
        .map(([k, v]) => `  ${k}: ${v}`)
        .join('\n')}\n`,
      'p.yaml',
      'p',
    );
    expect(await records(path, p)).toEqual(want);
    const stray = join(dir, 'orders.csv');
    writeFileSync(stray, `Key;Customer;Date;Amount\n`);
    await expect(openOrderFile(stray, { encoding: 'utf-8', delimiter: ',', profile: p })).rejects.toThrow(/does not match file_pattern/);
  });

  test('fixed width', async () => {
    const dir = tempDir();
    const path = join(dir, 'orders_EUR.dat');
    const chars = (s: string, n: number) => s + ' '.repeat(n - Array.from(s).length);
    writeFileSync(path, rows.map(([k, c, d, a]) => `${chars(k, 10)}${chars(c, 3)}${chars(d, 25)}${chars(a, 12)}\n`).join(''));
    const p = parseProfileText(
      `version: 1\nformat: fixed\nunits: chars\n${top}columns:\n${Object.entries(columns(true))
        .map(([k, v]) => `  ${k}: ${v}`)
        .join('\n')}\n`,
      'p.yaml',
      'p',
    );
    expect(await records(path, p)).toEqual(want);
    const stray = join(dir, 'orders.dat');
    writeFileSync(stray, 'K-1       1  2026-12-01T00:00:00Z     5,00        \n');
    await expect(openOrderFile(stray, { encoding: 'utf-8', delimiter: ',', profile: p })).rejects.toThrow(/does not match file_pattern/);
  });
});
