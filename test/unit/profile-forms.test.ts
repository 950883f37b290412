/**
 * The value forms of a load profile, through the exported functions of their modules: amounts as
 * written (src/input/profile/amount-form.ts: group classes, every length of canonical text, signs
 * and negative marks around the number, the messages of a refusal) and date masks
 * (src/input/profile/date-mask.ts: a mask's tokens and its checks, the eras, time parts read
 * through an offset, the fixed-width reading against the calendar, one date read by two masks).
 * Written for the survivors of the profile-forms mutation group (docs/mutation.md); no database,
 * no file, everything built inside its test (StrykerJS's per-test coverage).
 */
import { describe, expect, test } from 'vitest';
import { amountConverter, canonicalAmount, groupCodes, type SignCurrency } from '../../src/input/profile/amount-form.js';
import {
  dateConverter,
  dateMaskProblem,
  dateMatcher,
  eraOf,
  exclusiveMasks,
  isTimeZone,
  maskHasOffset,
  maskParts,
} from '../../src/input/profile/date-mask.js';
import type { ColumnSpec } from '../../src/input/profile/schema.js';

/** An amount column's reading of each value: the canonical text, or the refusal's message. */
function amounts(spec: ColumnSpec): { read: (v: string) => string; carried: SignCurrency } {
  const carried: SignCurrency = { code: undefined, sign: '' };
  const convert = amountConverter(spec, 'column "a"', carried);
  return {
    carried,
    read: (v) => {
      const out = convert(v);
      return typeof out === 'string' ? out : out.error;
    },
  };
}

const DIGITS = '12345678901234567890123456789012345678901234567890';

/** `digits` grouped by threes from the right with `sep`. */
const grouped = (digits: string, sep: string): string => digits.replace(/\B(?=(\d{3})+$)/g, sep);

describe('amount forms', () => {
  test('groupCodes: the three blanks one class, the apostrophe with U+2019, any other separator alone, none without a group', () => {
    expect(groupCodes(undefined)).toEqual([]);
    for (const blank of [' ', '\u00a0', '\u202f']) expect(groupCodes(blank), JSON.stringify(blank)).toEqual([0x20, 0xa0, 0x202f]);
    expect(groupCodes("'")).toEqual([0x27, 0x2019]);
    expect(groupCodes('.')).toEqual([0x2e]);
    expect(groupCodes(',')).toEqual([0x2c]);
  });

  test('canonical text of every length, grouped, with a decimal comma, and longer than any buffer', () => {
    for (let n = 1; n <= DIGITS.length; n++) {
      const digits = DIGITS.slice(0, n);
      expect(canonicalAmount(grouped(digits, '.'), ',', '.'), `${n} grouped`).toBe(digits);
      expect(canonicalAmount(`${grouped(digits, '.')},5`, ',', '.'), `${n} grouped ,5`).toBe(`${digits}.5`);
      expect(canonicalAmount(`${digits},25`, ',', undefined), `${n} ,25`).toBe(`${digits}.25`);
      const padded = '0'.repeat((3 - (n % 3)) % 3) + digits;
      expect(canonicalAmount(`000.${grouped(padded, '.')}`, ',', '.'), `${n} leading zeros`).toBe(digits);
      expect(canonicalAmount(`0${digits}.50`, '.', undefined), `${n} 0….50`).toBe(`${digits}.5`);
    }
    // one or two digits left of a grouped text's leading zeros
    expect(canonicalAmount('000.001', ',', '.')).toBe('1');
    expect(canonicalAmount('000.012', ',', '.')).toBe('12');
    // a long text, then a short one: nothing of the first is left in the second
    expect(canonicalAmount(`${grouped(DIGITS, ',')}.75`, '.', ',')).toBe(`${DIGITS}.75`);
    expect(canonicalAmount('1,234,567,890,123,456,789', '.', ',')).toBe('1234567890123456789');
    expect(canonicalAmount('9,876', '.', ',')).toBe('9876');
  });

  test('canonicalAmount: the other group characters only beside a group separator', () => {
    expect(canonicalAmount('1\u00a0234', ',', ' ', groupCodes(' '))).toBe('1234');
    expect(canonicalAmount('1\u202f234\u00a0567', ',', '\u00a0', groupCodes('\u00a0'))).toBe('1234567');
    expect(canonicalAmount('1\u2019234', '.', "'", groupCodes("'"))).toBe('1234');
    expect(canonicalAmount('1\u00a0234', ',', ' ')).toBeNull();
    expect(canonicalAmount('1\u00a0234', ',', undefined, [0xa0])).toBeNull();
    expect(canonicalAmount('1 234', ',', undefined, [0x20, 0xa0, 0x202f])).toBeNull();
  });

  test('the decimal point: "." by default, the profile’s "," instead', () => {
    const point = amounts({});
    expect(point.read('1.5')).toBe('1.5');
    expect(point.read('1,5')).toBe('amount: "1,5" is not a number with decimal "." (column "a")');
    const comma = amounts({ decimal: ',', group: '.' });
    expect(comma.read('1.234,5')).toBe('1234.5');
    expect(comma.read('1,5.0')).toBe('amount: "1,5.0" is not a number with decimal ",", group "." (column "a")');
  });

  test('a decimal past the second is refused, the count taken afresh for each value', () => {
    const { read } = amounts({ decimal: ',' });
    expect(read('1,123')).toBe('amount: "1,123" has more than 2 decimals (orders.amount holds 2) (column "a")');
    expect(read('7')).toBe('7');
    expect(read('1,12')).toBe('1.12');
    expect(read('1,1')).toBe('1.1');
  });

  test('the negative marks: "-" by default, the profile’s list replaces it; "()" around the whole text only', () => {
    const minus = amounts({});
    expect(minus.read('-5')).toBe('-5');
    expect(minus.read('(5)')).toMatch(/^amount: "\(5\)" is not a number/);
    const marks = amounts({ negative: ['()', '△', 'CR'] });
    expect(marks.read('(5)')).toBe('-5');
    expect(marks.read('( 5 )')).toBe('-5');
    expect(marks.read('△5')).toBe('-5');
    expect(marks.read('△ 5')).toBe('-5');
    expect(marks.read('CR5')).toBe('-5');
    expect(marks.read('-5')).toMatch(/^amount: "-5" is not a number/);
    expect(marks.read('(5')).toMatch(/^amount: "\(5" is not a number/);
    expect(marks.read('5)')).toMatch(/^amount: "5\)" is not a number/);
    expect(marks.read('()')).toMatch(/^amount: "\(\)" is not a number/);
    // a mark once only
    expect(marks.read('△△5')).toMatch(/^amount: "△△5" is not a number/);
    expect(marks.read('(△5)')).toMatch(/^amount: "\(△5\)" is not a number/);
    expect(marks.read('(0)')).toBe('0');
  });

  test('"+" before the number, once, and not after a negative mark', () => {
    const { read } = amounts({});
    expect(read('+5')).toBe('5');
    expect(read('++5')).toMatch(/^amount: "\+\+5" is not a number/);
    expect(read('-+5')).toMatch(/^amount: "-\+5" is not a number/);
    expect(read('+-5')).toMatch(/^amount: "\+-5" is not a number/);
  });

  test('currency signs: the longest that fits first, before or after, with or without blanks, in any order with a mark', () => {
    const { read, carried } = amounts({
      group: ',',
      negative: ['-', '()'],
      currency_signs: { $: 'USD', C$: 'CAD', 'US $': 'USD', '¥': null },
    });
    const sign = (v: string) => {
      const amount = read(v);
      return `${amount} ${String(carried.code)} ${carried.sign}`;
    };
    expect(sign('C$5')).toBe('5 CAD C$');
    expect(sign('5C$')).toBe('5 CAD C$');
    expect(sign('5 C$')).toBe('5 CAD C$');
    expect(sign('$5')).toBe('5 USD $');
    expect(sign('5$')).toBe('5 USD $');
    expect(sign('US $ 5')).toBe('5 USD US $');
    expect(sign('-C$1,234.50')).toBe('-1234.5 CAD C$');
    expect(sign('C$-5')).toBe('-5 CAD C$');
    expect(sign('(C$5)')).toBe('-5 CAD C$');
    expect(sign('C$(5)')).toBe('-5 CAD C$');
    expect(sign('(5) C$')).toBe('-5 CAD C$');
    expect(sign('¥5')).toBe('5 null ¥');
    // no sign: no currency, whatever the value before carried
    expect(read('5')).toBe('5');
    expect(carried.code).toBeUndefined();
    expect(read('-5')).toBe('-5');
    expect(carried.code).toBeUndefined();
    // one sign only
    expect(read('$5$')).toMatch(/^amount: "\$5\$" is not a number/);
    expect(read('C$5$')).toMatch(/^amount: "C\$5\$" is not a number/);
  });

  test('a sign at either end with a digit at the other, and signs that start or end alike', () => {
    const { read, carried } = amounts({ decimal: ',', currency_signs: { '€': 'EUR', EUR: 'EUR', 'Fr.': 'CHF', kr: 'SEK' } });
    expect(read('12,50 €')).toBe('12.5');
    expect(read('€12,50')).toBe('12.5');
    expect(read('EUR 3')).toBe('3');
    expect(read('3 kr')).toBe('3');
    expect(carried.code).toBe('SEK');
    expect(read('Fr. 3')).toBe('3');
    expect(carried.code).toBe('CHF');
    expect(read('3 Fr.')).toBe('3');
  });

  test('what a refusal adds: a sign or word at an end the profile does not name, nothing for other text', () => {
    const none = amounts({ group: ',' });
    const hint = ' (a currency sign or word around the number: name it in currency_signs)';
    expect(none.read('€5')).toBe(`amount: "€5" is not a number with decimal ".", group ","${hint} (column "a")`);
    expect(none.read('5€')).toBe(`amount: "5€" is not a number with decimal ".", group ","${hint} (column "a")`);
    expect(none.read('EUR 5')).toBe(`amount: "EUR 5" is not a number with decimal ".", group ","${hint} (column "a")`);
    expect(none.read('5 EUR')).toBe(`amount: "5 EUR" is not a number with decimal ".", group ","${hint} (column "a")`);
    expect(none.read('1a5')).toBe('amount: "1a5" is not a number with decimal ".", group "," (column "a")');
    expect(none.read('#5')).toBe('amount: "#5" is not a number with decimal ".", group "," (column "a")');
    expect(none.read('5%')).toBe('amount: "5%" is not a number with decimal ".", group "," (column "a")');
    const named = amounts({ currency_signs: { $: 'USD', '€': 'EUR' } });
    expect(named.read('£5')).toBe(
      'amount: "£5" is not a number with decimal "." (a currency sign or word the profile does not name: currency_signs has "$", "€") (column "a")',
    );
    // the sign it named is taken off first: the rest is what is refused
    expect(named.read('$5x')).toBe(
      'amount: "$5x" is not a number with decimal "." (a currency sign or word the profile does not name: currency_signs has "$", "€") (column "a")',
    );
    expect(named.read('$5.')).toBe('amount: "$5." is not a number with decimal "." (column "a")');
  });
});

describe('date masks: tokens and checks', () => {
  test('maskParts: each token, S… with its digits, literal characters (T the one letter), a non-BMP character whole', () => {
    const parts = (mask: string) => maskParts(mask).map((p) => (p.token === null ? `'${p.text}'` : p.token === 'S' ? p.text : p.token));
    expect(parts('YYYY-MM-DDTHH:mm:ss.SSSZ')).toEqual([
      'YYYY',
      "'-'",
      'MM',
      "'-'",
      'DD',
      "'T'",
      'HH',
      "':'",
      'mm',
      "':'",
      'ss',
      "'.'",
      'SSS',
      'Z',
    ]);
    expect(parts('GEE年M月D日 h:mm A')).toEqual(['G', 'EE', "'年'", 'M', "'月'", 'D', "'日'", "' '", 'h', "':'", 'mm', "' '", 'A']);
    expect(parts('GE.M.D H')).toEqual(['G', 'E', "'.'", 'M', "'.'", 'D', "' '", 'H']);
    expect(parts('hhSSSSSSSSSSS')).toEqual(['hh', 'SSSSSSSSS', 'SS']);
    expect(parts('S')).toEqual(['S']);
    expect(parts('YYYY😀MM😀DD')).toEqual(['YYYY', "'😀'", 'MM', "'😀'", 'DD']);
    expect(maskParts('ss.SS').map((p) => p.token)).toEqual(['ss', null, 'S']);
  });

  test('maskParts and dateMaskProblem: unknown letters (lower case too) and digits', () => {
    const letters = (m: string) =>
      `unknown letters in date mask ${JSON.stringify(m)} (use YYYY, MM, DD, M, D; HH, H, hh, h, A, mm, ss, S…, Z; G, EE, E; T)`;
    for (const mask of ['YYYY-MM-DD x', 'YYYY-MM-DDX', 'yyyy-MM-DD', 'YYYY-MM-DD t']) {
      expect(() => maskParts(mask), mask).toThrow(letters(mask));
      expect(dateMaskProblem(mask), mask).toBe(letters(mask));
    }
    expect(() => maskParts('YYYY1MM-DD')).toThrow('date mask "YYYY1MM-DD" holds a digit');
    expect(dateMaskProblem('YYYY-MM-DD 0')).toBe('date mask "YYYY-MM-DD 0" holds a digit');
    expect(() => dateMatcher('YYYY-M-D x')).toThrow(letters('YYYY-M-D x'));
  });

  test('dateMaskProblem: one year, month and day', () => {
    const need = (m: string) => `date mask ${JSON.stringify(m)} needs one year (YYYY, or an era G with its year E), one month and one day`;
    for (const mask of [
      'MM-DD',
      'YYYY-DD',
      'YYYY-MM',
      'YYYY-MM-DD-DD',
      'YYYY-M-MM-DD',
      'YYYY-MM-D-D',
      'YYYY-MM-DD YYYY',
      'GE YYYY-MM-DD',
      'GE G-MM-DD',
    ])
      expect(dateMaskProblem(mask), mask).toBe(need(mask));
    expect(dateMaskProblem('YYYY-M-D')).toBeNull();
    expect(dateMaskProblem('GE.M.D')).toBeNull();
    expect(dateMaskProblem('GEE.MM.DD')).toBeNull();
  });

  test('dateMaskProblem: an era with its year, once', () => {
    const era = (m: string) => `date mask ${JSON.stringify(m)}: an era G goes with its year (E or EE), once`;
    for (const mask of ['YYYY-MM-DD E', 'YYYY-MM-DD EE', 'G.M.D', 'GE.M.D E', 'GEE.M.D EE', 'GE.M.D EE'])
      expect(dateMaskProblem(mask), mask).toBe(era(mask));
  });

  test('dateMaskProblem: each time part once, and each with what it needs', () => {
    const m = (mask: string) => JSON.stringify(mask);
    const twice = (mask: string) => `date mask ${m(mask)} holds a time part twice`;
    for (const mask of [
      'YYYY-MM-DD HH H:mm',
      'YYYY-MM-DD HH:mm HH',
      'YYYY-MM-DD HH hh:mm A',
      'YYYY-MM-DD h h:mm A',
      'YYYY-MM-DD HH:mm:mm',
      'YYYY-MM-DD HH:mm:ss:ss',
      'YYYY-MM-DD HH:mm:ss.S.S',
      'YYYY-MM-DD hh:mm A A',
      'YYYY-MM-DD HH:mm Z Z',
    ])
      expect(dateMaskProblem(mask), mask).toBe(twice(mask));
    const clock = (mask: string) => `date mask ${m(mask)}: hh and h (a 12-hour clock) go with A (AM/PM), and A with them`;
    expect(dateMaskProblem('YYYY-MM-DD hh:mm')).toBe(clock('YYYY-MM-DD hh:mm'));
    expect(dateMaskProblem('YYYY-MM-DD h:mm')).toBe(clock('YYYY-MM-DD h:mm'));
    expect(dateMaskProblem('YYYY-MM-DD HH:mm A')).toBe(clock('YYYY-MM-DD HH:mm A'));
    expect(dateMaskProblem('YYYY-MM-DD A')).toBe(clock('YYYY-MM-DD A'));
    expect(dateMaskProblem('YYYY-MM-DD mm')).toBe(`date mask ${m('YYYY-MM-DD mm')}: minutes (mm) need an hour (HH, H, hh or h)`);
    expect(dateMaskProblem('YYYY-MM-DD HH ss')).toBe(`date mask ${m('YYYY-MM-DD HH ss')}: seconds need minutes (mm)`);
    expect(dateMaskProblem('YYYY-MM-DD HH SSS')).toBe(`date mask ${m('YYYY-MM-DD HH SSS')}: seconds need minutes (mm)`);
    expect(dateMaskProblem('YYYY-MM-DD HH:mm.SSS')).toBe(
      `date mask ${m('YYYY-MM-DD HH:mm.SSS')}: a fraction of a second (S…) needs seconds (ss)`,
    );
    expect(dateMaskProblem('YYYY-MM-DD HH Z')).toBe(`date mask ${m('YYYY-MM-DD HH Z')}: an offset (Z) needs the time (an hour and mm)`);
    expect(dateMaskProblem('YYYY-MM-DD Z')).toBe(`date mask ${m('YYYY-MM-DD Z')}: an offset (Z) needs the time (an hour and mm)`);
    for (const mask of [
      'YYYY-MM-DD HH',
      'YYYY-MM-DD H:mm',
      'YYYY-MM-DD h:mm:ss A',
      'YYYY-MM-DD hh A',
      'YYYY-MM-DD HH:mm Z',
      'YYYY-MM-DD HH:mm:ss.S',
    ])
      expect(dateMaskProblem(mask), mask).toBeNull();
  });

  test('maskHasOffset, isTimeZone', () => {
    expect(maskHasOffset('YYYY-MM-DDTHH:mmZ')).toBe(true);
    expect(maskHasOffset('YYYY-MM-DDTHH:mm')).toBe(false);
    expect(maskHasOffset('YYYY-MM-DD x Z')).toBe(false);
    expect(isTimeZone('Asia/Tokyo')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});

describe('date masks: reading', () => {
  test('eraOf: each era from its first day to its last, with its year; before Meiji none', () => {
    const era = (iso: string) => {
      const e = eraOf(iso);
      return e === undefined ? 'none' : `${e.name} ${e.letter} ${e.year}`;
    };
    expect(era('1868-01-24')).toBe('none');
    expect(era('1868-01-25')).toBe('明治 M 1');
    expect(era('1912-07-29')).toBe('明治 M 45');
    expect(era('1912-07-30')).toBe('大正 T 1');
    expect(era('1926-12-24')).toBe('大正 T 15');
    expect(era('1926-12-25')).toBe('昭和 S 1');
    expect(era('1989-01-07')).toBe('昭和 S 64');
    expect(era('1989-01-08')).toBe('平成 H 1');
    expect(era('2019-04-30')).toBe('平成 H 31');
    expect(era('2019-05-01')).toBe('令和 R 1');
    expect(era('2026-12-07')).toBe('令和 R 8');
    expect(era('9999-12-31')).toBe('令和 R 7981');
  });

  test('eras read by name and letter, each at its first and last day; 元 the first year; outside its span none', () => {
    const read = dateMatcher('GE.M.D');
    const cases: Array<[string, string | null]> = [
      ['明治45.7.29', '1912-07-29'],
      ['M45.7.29', '1912-07-29'],
      ['M45.7.30', null],
      ['大正元.7.30', '1912-07-30'],
      ['T1.7.30', '1912-07-30'],
      ['T1.7.29', null],
      ['T15.12.24', '1926-12-24'],
      ['大正15.12.25', null],
      ['昭和元.12.25', '1926-12-25'],
      ['S1.12.25', '1926-12-25'],
      ['S64.1.7', '1989-01-07'],
      ['平成元.1.8', '1989-01-08'],
      ['H31.4.30', '2019-04-30'],
      ['H31.5.1', null],
      ['令和元.5.1', '2019-05-01'],
      ['R0.5.1', null],
      ['R8.12.7', '2026-12-07'],
      ['R8.2.29', null],
      ['R6.2.29', '2024-02-29'],
      ['X8.12.7', null],
      ['R123.1.1', null],
    ];
    for (const [v, want] of cases) expect(read(v), v).toBe(want);
    const two = dateMatcher('GEE/MM/DD');
    expect(two('R08/12/07')).toBe('2026-12-07');
    expect(two('R元/05/01')).toBe('2019-05-01');
    expect(two('R8/12/07')).toBeNull();
  });

  test('the fixed-width reading: from 1900, each month to its last day, February by the leap rules', () => {
    const read = dateMatcher('YYYYMMDD');
    const last = ['31', '28', '31', '30', '31', '30', '31', '31', '30', '31', '30', '31'];
    for (let month = 1; month <= 12; month++) {
      const mm = String(month).padStart(2, '0');
      const day = last[month - 1] ?? '';
      expect(read(`2023${mm}${day}`), `2023-${mm}-${day}`).toBe(`2023-${mm}-${day}`);
      expect(read(`2023${mm}${Number(day) + 1}`), `2023-${mm} after ${day}`).toBeNull();
    }
    expect(read('20240229')).toBe('2024-02-29');
    expect(read('20000229')).toBe('2000-02-29');
    expect(read('19000229')).toBeNull();
    expect(read('21000229')).toBeNull();
    expect(read('20230229')).toBeNull();
    expect(read('19000101')).toBe('1900-01-01');
    expect(read('18991231')).toBeNull();
    expect(read('20231301')).toBeNull();
    expect(read('20230001')).toBeNull();
    expect(read('20230100')).toBeNull();
    expect(read('2023010')).toBeNull();
    expect(read('2023-101')).toBeNull();
    expect(read('20x30101')).toBeNull();
    // a mask without a year (the profile check refuses it) reads no date
    expect(dateMatcher('MM-DD')('12-01')).toBeNull();
    expect(dateMatcher('YYYY-MM')('2026-12')).toBeNull();
  });

  test('masks with one-or-two-digit tokens and literal text: each character checked, the whole text', () => {
    const read = dateMatcher('D.M.YYYY');
    expect(read('1.2.2026')).toBe('2026-02-01');
    expect(read('01.12.2026')).toBe('2026-12-01');
    expect(read('1x2.2026')).toBeNull();
    expect(read('1.2x2026')).toBeNull();
    expect(read('1.2.2026x')).toBeNull();
    expect(read('x1.2.2026')).toBeNull();
    expect(read('123.2.2026')).toBeNull();
    expect(read('1.2.19999')).toBeNull();
    expect(read('31.2.2026')).toBeNull();
    expect(read('1.2.1899')).toBeNull();
    const marks = dateMatcher('(YYYY)+M*D?[_]{|}^$\\');
    expect(marks('(2026)+1*2?[_]{|}^$\\')).toBe('2026-01-02');
    expect(marks('(2026)1*2?[_]{|}^$\\')).toBeNull();
    expect(marks('(2026)+1*2[_]{|}^$\\')).toBeNull();
    expect(marks('(2026)+1*2?_{|}^$\\')).toBeNull();
    expect(marks('(2026)+1*2?[_]{|}^$')).toBeNull();
    const slash = dateMatcher('YYYY/M/D');
    expect(slash('2026/1/5')).toBe('2026-01-05');
    expect(slash('2026-1-5')).toBeNull();
  });

  test('time parts: each range checked, a fraction of exactly its digits, AM and PM in either case', () => {
    const full = dateMatcher('YYYY-MM-DD HH:mm:ss.SSS');
    expect(full('2026-12-01 23:59:59.999')).toBe('2026-12-01');
    expect(full('2026-12-01 00:00:00.000')).toBe('2026-12-01');
    for (const bad of [
      '2026-12-01 24:00:00.000',
      '2026-12-01 23:60:00.000',
      '2026-12-01 23:59:60.000',
      '2026-12-01 23:59:59.99',
      '2026-12-01 23:59:59.9999',
      '2026-12-01 9:59:59.999',
    ])
      expect(full(bad), bad).toBeNull();
    const short = dateMatcher('YYYY-MM-DD H:mm');
    expect(short('2026-12-01 9:05')).toBe('2026-12-01');
    expect(short('2026-12-01 09:05')).toBe('2026-12-01');
    expect(short('2026-12-01 109:05')).toBeNull();
    expect(short('2026-12-01 9:5')).toBeNull();
    const clock = dateMatcher('M/D/YYYY h:mm A');
    expect(clock('12/1/2026 12:00 AM')).toBe('2026-12-01');
    expect(clock('12/1/2026 1:00 pm')).toBe('2026-12-01');
    expect(clock('12/1/2026 12:59 am')).toBe('2026-12-01');
    for (const bad of ['12/1/2026 0:00 AM', '12/1/2026 13:00 PM', '12/1/2026 1:00 Pm', '12/1/2026 1:00 XM', '12/1/2026 1:00'])
      expect(clock(bad), bad).toBeNull();
  });

  test('a 12-hour time read through an offset: 12 AM is midnight, 12 PM noon, PM adds twelve hours', () => {
    const ny = dateMatcher('MM/DD/YYYY hh:mm A Z', 'America/New_York');
    // New York is five hours behind UTC in December
    expect(ny('12/01/2026 12:30 AM Z')).toBe('2026-11-30');
    expect(ny('12/01/2026 12:30 PM Z')).toBe('2026-12-01');
    expect(ny('12/01/2026 04:59 AM Z')).toBe('2026-11-30');
    expect(ny('12/01/2026 05:00 AM Z')).toBe('2026-12-01');
    const tokyo = dateMatcher('MM/DD/YYYY hh:mm A Z', 'Asia/Tokyo');
    // Tokyo is nine hours ahead
    expect(tokyo('12/01/2026 02:59 PM Z')).toBe('2026-12-01');
    expect(tokyo('12/01/2026 03:00 PM Z')).toBe('2026-12-02');
    expect(tokyo('12/01/2026 03:00 pm Z')).toBe('2026-12-02');
    expect(tokyo('12/01/2026 03:00 AM Z')).toBe('2026-12-01');
    expect(tokyo('12/01/2026 12:00 PM Z')).toBe('2026-12-01');
  });

  test('an offset to the minute, with or without its colon or minutes, either sign; seconds count', () => {
    const utc = dateMatcher('YYYY-MM-DDTHH:mm:ssZ', 'UTC');
    expect(utc('2026-12-01T05:20:00+05:30')).toBe('2026-11-30');
    expect(utc('2026-12-01T05:40:00+05:30')).toBe('2026-12-01');
    expect(utc('2026-12-01T05:20:00+0530')).toBe('2026-11-30');
    expect(utc('2026-12-01T05:40:00+0530')).toBe('2026-12-01');
    expect(utc('2026-12-01T08:59:59+09')).toBe('2026-11-30');
    expect(utc('2026-12-01T09:00:00+09')).toBe('2026-12-01');
    expect(utc('2026-11-30T18:29:00-05:30')).toBe('2026-11-30');
    expect(utc('2026-11-30T18:30:00-05:30')).toBe('2026-12-01');
    expect(utc('2026-11-30T23:59:59Z')).toBe('2026-11-30');
    expect(utc('2026-11-30T23:59:59UTC')).toBe('2026-11-30');
    expect(utc('2026-11-30T23:59:59GMT')).toBe('2026-11-30');
    const tokyo = dateMatcher('YYYY-MM-DDTHH:mm:ssZ', 'Asia/Tokyo');
    expect(tokyo('2026-11-30T14:59:59Z')).toBe('2026-11-30');
    expect(tokyo('2026-11-30T15:00:00Z')).toBe('2026-12-01');
    expect(tokyo('2026-11-30T14:59:59+00:00')).toBe('2026-11-30');
    expect(tokyo('2026-11-30T14:59:59-00:01')).toBe('2026-12-01');
    for (const bad of [
      '2026-11-30T14:59:59+5',
      '2026-11-30T14:59:59+05:3',
      '2026-11-30T14:59:59 Z',
      '2026-11-30T14:59:59CET',
      '2026-11-30T14:59:59z',
    ])
      expect(tokyo(bad), bad).toBeNull();
    // a date that falls before 1900 in the profile's zone is none
    expect(dateMatcher('YYYY-MM-DDTHH:mmZ', 'America/New_York')('1900-01-01T01:00Z')).toBeNull();
    expect(dateMatcher('YYYY-MM-DDTHH:mmZ', 'Asia/Tokyo')('1900-01-01T01:00Z')).toBe('1900-01-01');
    // without a timezone (the profile check refuses such a mask), an offset reads no date
    expect(dateMatcher('YYYY-MM-DDTHH:mmZ')('2026-12-01T10:00Z')).toBeNull();
  });

  test('exclusiveMasks: fixed-width masks only, the same separators at the same places make two readings possible', () => {
    expect(exclusiveMasks(['YYYY-MM-DD', 'YYYY-DD-MM'])).toBe(false);
    expect(exclusiveMasks(['DD.MM.YYYY', 'DD/MM/YYYY'])).toBe(true);
    expect(exclusiveMasks(['YYYY-MM-DD', 'YYYYMMDD'])).toBe(true);
    expect(exclusiveMasks(['YYYY-MM-DD', 'DD-MM-YYYY'])).toBe(true);
    expect(exclusiveMasks(['YYYY-M-D'])).toBe(false);
    expect(exclusiveMasks(['YYYY-MM-DD', 'YYYY-MM-DD HH:mm'])).toBe(false);
    expect(exclusiveMasks(['DD.MM.YYYY', 'YYYY-MM-DD', 'YYYY-DD-MM'])).toBe(false);
    expect(exclusiveMasks([])).toBe(true);
  });

  test('dateConverter: the first mask that reads, the one date two masks agree on, the ambiguity named', () => {
    const fixed = dateConverter(['DD.MM.YYYY', 'YYYY-MM-DD'], 'column "d"');
    expect(fixed('01.02.2026')).toBe('2026-02-01');
    expect(fixed('2026-02-01')).toBe('2026-02-01');
    expect(fixed('2026/02/01')).toEqual({ error: 'order_date: "2026/02/01" matches none of DD.MM.YYYY, YYYY-MM-DD (column "d")' });
    const loose = dateConverter(['D.M.YYYY', 'M.D.YYYY', 'YYYY-MM-DD'], 'column "d"');
    expect(loose('13.2.2026')).toBe('2026-02-13');
    expect(loose('2.13.2026')).toBe('2026-02-13');
    expect(loose('2.2.2026')).toBe('2026-02-02');
    expect(loose('2026-02-01')).toBe('2026-02-01');
    expect(loose('1.2.2026')).toEqual({
      error: 'order_date: "1.2.2026" is ambiguous: D.M.YYYY reads 2026-02-01, M.D.YYYY reads 2026-01-02 (column "d")',
    });
    expect(loose('2026/02/01')).toEqual({
      error: 'order_date: "2026/02/01" matches none of D.M.YYYY, M.D.YYYY, YYYY-MM-DD (column "d")',
    });
  });
});
