/**
 * The mapping's fast paths (for speed) against the plain readings they replace: the
 * amount scanner against the regular expression it replaced, the fixed-width date masks against
 * a regular expression and isValidIsoDate, the membership tests of null_if and `when` against a
 * Set, NFKC skipped only where it changes nothing.
 */
import { describe, expect, test } from 'vitest';
import { isValidIsoDate, ORDER_COLUMNS, type OrderColumn } from '../../src/input/order-record.js';
import { parseProfileText } from '../../src/input/profile/load-profile.js';
import { canonicalAmount, compileMapping, exclusiveMasks } from '../../src/input/profile/mapping.js';

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** The reading before the scanner (mapping.ts before its speed work), word for word. */
function regexAmount(s: string, decimal: string, group: string | undefined): string | null {
  const d = escapeRegex(decimal);
  const body =
    group === undefined
      ? new RegExp(`^(\\d+)(?:${d}(\\d+))?$`)
      : new RegExp(`^(\\d{1,3}(?:${escapeRegex(group)}\\d{3})+|\\d+)(?:${d}(\\d+))?$`);
  const m = body.exec(s);
  if (m === null) return null;
  let integer = m[1] ?? '';
  if (group !== undefined && integer.includes(group)) integer = integer.replaceAll(group, '');
  if (integer.length > 1 && integer.charCodeAt(0) === 48) integer = integer.replace(/^0+(?=\d)/, '');
  let fraction = m[2] ?? '';
  if (fraction.charCodeAt(fraction.length - 1) === 48) fraction = fraction.replace(/0+$/, '');
  return `${integer}${fraction === '' ? '' : `.${fraction}`}`;
}

/** A deterministic pseudo-random sequence (the same cases on every run). */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

const AMOUNT_EDGES = [
  '',
  '0',
  '00',
  '000',
  '0.0',
  '0,00',
  '007',
  '0100',
  '1',
  '1.',
  '.5',
  ',5',
  '1.5',
  '1,5',
  '1.50',
  '1,500',
  '1.500',
  '1.234,50',
  '1,234.50',
  '12.345.678,9',
  '12,345,678.90',
  '1.23,4',
  '1.2345',
  '1234.567,8',
  '0.001,5',
  '000.001',
  '1 234,5',
  "1'234.5",
  '1\u00a0234,00',
  '1..234',
  '1.234.',
  '1.234,',
  '1.234,5,6',
  '12a',
  '١٢٣',
  '１２３',
  '+1',
  '-1',
  ' 1',
  '1 ',
];

describe('canonicalAmount reads as the regular expression it replaced', () => {
  const styles: Array<[string, string | undefined]> = [];
  for (const decimal of ['.', ','])
    for (const group of [undefined, ',', '.', ' ', "'", '\u00a0']) if (group !== decimal) styles.push([decimal, group]);
  const next = random(21);
  const alphabet = ['0', '0', '1', '5', '9', '.', ',', ' ', "'", '\u00a0', 'a', '-'];
  const generated = Array.from({ length: 20_000 }, () => {
    const length = Math.floor(next() * 13);
    let s = '';
    for (let i = 0; i < length; i++) s += alphabet[Math.floor(next() * alphabet.length)] ?? '';
    return s;
  });
  // amounts as written, most of them readable: digits or groups of (mostly) three, a fraction with zeros
  const digits = (n: number) => Array.from({ length: n }, () => (next() < 0.3 ? '0' : String(Math.floor(next() * 10)))).join('');
  const written = (decimal: string, group: string | undefined) =>
    Array.from({ length: 5000 }, () => {
      const separator = () => (next() < 0.9 ? (group ?? '.') : decimal);
      let integer = digits(1 + Math.floor(next() * 3));
      if (next() < 0.5)
        for (let g = Math.floor(next() * 3); g >= 0; g--) integer += separator() + digits(next() < 0.9 ? 3 : 2 + Math.floor(next() * 3));
      else integer += digits(Math.floor(next() * 5));
      return next() < 0.6 ? `${integer}${decimal}${digits(Math.floor(next() * 4))}` : integer;
    });
  test.each(styles)('decimal %j, group %j: every edge case, 20,000 random texts and 5,000 amounts as written', (decimal, group) => {
    const readable = written(decimal, group);
    expect(readable.filter((s) => regexAmount(s, decimal, group) !== null).length).toBeGreaterThan(2000);
    for (const s of [...AMOUNT_EDGES, ...generated, ...readable]) {
      expect(canonicalAmount(s, decimal, group), `${JSON.stringify(s)} decimal ${decimal} group ${String(group)}`).toBe(
        regexAmount(s, decimal, group),
      );
    }
  });
});

describe('canonicalAmount builds its text from character codes as the regular expression reads it', () => {
  // the canonical text is made by one String.fromCharCode of 1–16 characters, longer ones another
  // way: every length on both sides of that, grouped and not, with leading zeros, before a
  // separator too, and fractions with trailing zeros
  const next = random(39);
  const digit = () => String(Math.floor(next() * 10));
  const amounts: string[] = [];
  for (let digits = 1; digits <= 22; digits++)
    for (let k = 0; k < 40; k++) {
      let integer = Array.from({ length: digits }, () => (next() < 0.2 ? '0' : digit())).join('');
      if (k % 4 === 0) integer = `0${integer.slice(1)}`;
      if (k % 8 === 1) integer = `00${integer.slice(2)}`.slice(0, digits);
      const fraction = ['', '0', '00', '5', '50', '05', digit() + digit(), '000', '123'][k % 9] ?? '';
      amounts.push(integer, `${integer}#${fraction}`);
    }
  test.each([
    [',', '.'],
    ['.', ','],
    [',', ' '],
    ['.', "'"],
    [',', undefined],
    ['.', undefined],
  ] as Array<[string, string | undefined]>)(
    'decimal %j, group %j: 1 to 22 digits, grouped by threes when a group is named',
    (decimal, group) => {
      const texts = amounts.map((a) => {
        const [integer = '', fraction] = a.split('#');
        const grouped = group === undefined ? integer : integer.replace(/\B(?=(\d{3})+(?!\d))/g, group);
        return fraction === undefined ? grouped : `${grouped}${decimal}${fraction}`;
      });
      expect(texts.filter((t) => (canonicalAmount(t, decimal, group)?.length ?? 0) > 16).length).toBeGreaterThan(100);
      expect(texts.filter((t) => (canonicalAmount(t, decimal, group)?.length ?? 99) <= 16).length).toBeGreaterThan(500);
      for (const t of [...texts, '0.000,00', '000.000', '0.001', '00.010,10', '1.000.000.000.000.000,00']) {
        expect(canonicalAmount(t, decimal, group), `${JSON.stringify(t)} decimal ${decimal} group ${String(group)}`).toBe(
          regexAmount(t, decimal, group),
        );
      }
    },
  );
});

const profileWith = (lines: string) =>
  parseProfileText(
    `version: 1
delimiter: ";"
${lines}
columns:
  source_key: { column: "k" }
  customer_id: { column: "c" }
  order_date: { column: "d", date: ["DD.MM.YYYY", "YYYYMMDD"] }
  amount: { column: "a", decimal: ",", group: ".", negative: ["-", "()"] }
  currency: { column: "x", default: "EUR" }
`,
    'p.yaml',
    'p',
  );

describe('the mapping of one record', () => {
  // compiled within each test, not when the file is collected (StrykerJS: per-test coverage)
  const row = (values: Partial<Record<OrderColumn, string>>) =>
    compileMapping(profileWith('')).map(
      (c) => ({ source_key: 'K', customer_id: '1', order_date: '01.12.2026', amount: '1', currency: '', ...values })[c],
    );

  test('fixed-width date masks read a date exactly when the mask and isValidIsoDate do', () => {
    const next = random(6);
    const cases = [
      '29.02.1900',
      '29.02.2000',
      '29.02.2024',
      '29.02.2026',
      '31.04.2026',
      '30.04.2026',
      '00.01.2026',
      '01.00.2026',
      '01.13.2026',
      '01.01.1899',
      '31.12.9999',
      '1.12.2026',
      '01-12-2026',
      '01.12.20２6',
      '20261201',
      '20260229',
      '20240229',
      '2026120',
      '202612011',
    ];
    for (let i = 0; i < 5000; i++) {
      const d = String(Math.floor(next() * 34)).padStart(2, '0');
      const m = String(Math.floor(next() * 14)).padStart(2, '0');
      const y = String(1890 + Math.floor(next() * 200));
      cases.push(next() < 0.5 ? `${d}.${m}.${y}` : `${y}${m}${d}`);
    }
    for (const text of cases) {
      const dotted = /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(text);
      const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(text);
      const [y, m, d] = dotted !== null ? [dotted[3], dotted[2], dotted[1]] : compact !== null ? [compact[1], compact[2], compact[3]] : [];
      const iso = y === undefined ? '' : [y, m, d].join('-');
      const out = row({ order_date: text });
      if (isValidIsoDate(iso)) expect(out, text).toMatchObject({ fields: { order_date: iso }, problem: null });
      else expect(out.problem?.code, text).toBe('PARSE_ORDER_DATE');
    }
  });

  test('amounts: signs, parentheses, zero, the text itself when already canonical', () => {
    expect(row({ amount: '-1.234,50' }).fields.amount).toBe('-1234.5');
    expect(row({ amount: '(0,00)' }).fields.amount).toBe('0');
    expect(row({ amount: '+7' }).fields.amount).toBe('7');
    expect(row({ amount: '- 7' }).fields.amount).toBe('-7');
    expect(row({ amount: '1.23,4' }).problem?.code).toBe('PARSE_AMOUNT');
    expect(canonicalAmount('12.5', '.', undefined)).toBe('12.5');
  });

  test('null_if and when compare as a Set would: empty, long, many members', () => {
    const long = 'x'.repeat(40);
    const many = Array.from({ length: 12 }, (_, i) => `N${i}`);
    for (const nulls of [[''], ['NULL'], ['', 'NULL', 'n/a'], ['', long], many, []]) {
      const m = compileMapping(
        profileWith(`null_if: ${JSON.stringify(nulls)}\nwhen: { column: "s", in: ${JSON.stringify(['ok', long])} }`),
      );
      for (const v of ['', 'NULL', 'n/a', 'N3', 'N11', 'x', long, `${long}y`, 'ok', 'okay', 'NULLX']) {
        const out = m.map((c) => ({ source_key: 'K', customer_id: v, order_date: '01.12.2026', amount: '1', currency: '' })[c]);
        expect(out.fields.customer_id === '', `${JSON.stringify(nulls)} ${v}`).toBe(v === '' || nulls.includes(v));
        expect(m.keep(v), `when ${v}`).toBe(!nulls.includes(v) && (v === 'ok' || v === long));
      }
    }
  });

  test('NFKC: full-width text normalised, ASCII passed as it is, source_key never', () => {
    const m = compileMapping(profileWith('normalize: nfkc\nnull_if: ["", "n/a"]'));
    const out = m.map(
      (c) => ({ source_key: 'Ｋ１', customer_id: '１２', order_date: '０１.１２.２０２６', amount: '１.２３４,５', currency: 'ｎ/ａ' })[c],
    );
    expect(out).toEqual({
      fields: { source_key: 'Ｋ１', customer_id: '12', order_date: '2026-12-01', amount: '1234.5', currency: 'EUR' },
      problem: null,
    });
  });

  test('mapRecord reads a record by indexes as map does by column', () => {
    const record = ['x', ' 7 ', 'K-1', '01.12.2026', '1.000,00', 'CHF'];
    const indexes = [2, 1, 3, 4, 5];
    const columns: OrderColumn[] = ['source_key', 'customer_id', 'order_date', 'amount', 'currency'];
    const mapping = compileMapping(profileWith(''));
    expect(mapping.mapRecord(record, indexes)).toEqual(mapping.map((c) => record[indexes[columns.indexOf(c)] ?? -1] ?? ''));
    expect(mapping.mapRecord(record, indexes).fields).toEqual({
      source_key: 'K-1',
      customer_id: '7',
      order_date: '2026-12-01',
      amount: '1000',
      currency: 'CHF',
    });
  });

  test('mapRecord, counted or not, maps every record as map does, the first problem in column order', () => {
    const profile = parseProfileText(
      `version: 1
format: csv
header: true
null_if: ["", "n/a"]
normalize: nfkc
columns:
  source_key: { column: "k", prefix: "EU-", trim: false }
  customer_id: { column: "c", default: "42" }
  order_date: { column: "d", date: ["DD.MM.YYYY", "YYYYMMDD"] }
  amount: { column: "a", decimal: ",", group: ".", negative: ["-", "()"] }
  currency: { const: "EUR" }
`,
      'q.yaml',
      'q',
    );
    const next = random(11);
    const pick = (values: string[]) => values[Math.floor(next() * values.length)] ?? '';
    const records: string[][] = [];
    for (let i = 0; i < 3000; i++) {
      records.push([
        pick(['K1', ' K2 ', 'Ｋ３', '', 'n/a']),
        pick(['7', ' 8 ', '', 'n/a', '１２', 'x']),
        pick(['01.12.2026', '20261201', '2026-12-01', '', '31.02.2026', ' 01.12.2026 ']),
        pick(['1.234,50', '(1,00)', '-0,00', '1.23,4', '', 'n/a', '１.２３４,５', 'abc']),
        pick(['CHF', '', 'x']),
      ]);
    }
    const indexes = [0, 1, 2, 3, -1];
    const plain = compileMapping(profile);
    const warnings: string[] = [];
    const counted = compileMapping(profile, {}, (message) => warnings.push(message));
    let problems = 0;
    for (const record of records) {
      const expected = plain.map((c) => record[ORDER_COLUMNS.indexOf(c)] ?? '');
      if (expected.problem !== null) problems++;
      expect(plain.mapRecord(record, indexes), record.join('|')).toEqual(expected);
      expect(counted.mapRecord(record, indexes), record.join('|')).toEqual(expected);
    }
    // a date and an amount that fit no form: the date's problem is the line's (column order)
    for (const m of [plain, counted]) {
      expect(m.mapRecord(['K1', '7', '31.02.2026', 'abc', ''], indexes)).toEqual({
        fields: { source_key: 'EU-K1', customer_id: '7', order_date: '31.02.2026', amount: 'abc', currency: 'EUR' },
        problem: {
          column: 'order_date',
          code: 'PARSE_ORDER_DATE',
          message: 'order_date: "31.02.2026" matches none of DD.MM.YYYY, YYYYMMDD (column "d")',
        },
      });
    }
    // the cases hold lines with a problem in one column, in two, and none
    expect(problems).toBeGreaterThan(500);
    expect(problems).toBeLessThan(2900);
  });
});

describe('date masks that no text can fit two of', () => {
  test('exclusiveMasks: masks of fixed-width tokens whose separators or lengths differ', () => {
    expect(exclusiveMasks(['DD.MM.YYYY', 'YYYY/MM/DD'])).toBe(true);
    expect(exclusiveMasks(['DD/MM/YYYY', 'YYYY-MM-DD'])).toBe(true);
    expect(exclusiveMasks(['DD.MM.YYYY', 'YYYYMMDD'])).toBe(true);
    expect(exclusiveMasks(['DD.MM.YYYY'])).toBe(true);
    // the same separators at the same places: 01.02.2026 fits both
    expect(exclusiveMasks(['DD.MM.YYYY', 'MM.DD.YYYY'])).toBe(false);
    expect(exclusiveMasks(['YYYYMMDD', 'YYYYDDMM'])).toBe(false);
    expect(exclusiveMasks(['DD.MM.YYYY', 'YYYY/MM/DD', 'MM.DD.YYYY'])).toBe(false);
    // a token of one or two digits: not of fixed width
    expect(exclusiveMasks(['D.M.YYYY', 'YYYY/MM/DD'])).toBe(false);
  });

  test('a date the first of several exclusive masks reads, one the second reads, one none reads', () => {
    const mapping = compileMapping(
      parseProfileText(
        [
          'version: 1',
          'columns:',
          '  source_key: { column: 1 }',
          '  customer_id: { column: 2 }',
          "  order_date: { column: 3, date: ['DD.MM.YYYY', 'YYYY/MM/DD'] }",
          '  amount: { column: 4 }',
          '  currency: { column: 5 }',
          'header: false',
        ].join('\n'),
        'p.yaml',
        'p',
      ),
    );
    const date = (v: string) => mapping.map((c) => ({ source_key: 'K', customer_id: '1', order_date: v, amount: '1', currency: 'EUR' })[c]);
    for (const v of ['01.12.2026', '2026/12/01']) {
      expect(date(v).fields.order_date).toBe('2026-12-01');
      expect(date(v).problem).toBeNull();
    }
    expect(date('2026-12-01').problem).toEqual({
      column: 'order_date',
      code: 'PARSE_ORDER_DATE',
      message: 'order_date: "2026-12-01" matches none of DD.MM.YYYY, YYYY/MM/DD (column 3)',
    });
  });
});
