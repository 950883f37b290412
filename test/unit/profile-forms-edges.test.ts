/**
 * The survivors of the profile-forms group's first measured run that change what a value reads
 * (docs/mutation.md, "Scores of the `profile-forms` group"), asserted through the two modules'
 * exported functions. Not yet in the group's test list: a file added to it stales the group's
 * scores, measured again with `npm run test:mutation:profile-forms`. No database, no file.
 */
import { describe, expect, test } from 'vitest';
import { amountConverter, canonicalAmount, groupCodes, type SignCurrency } from '../../src/input/profile/amount-form.js';
import { dateMatcher, exclusiveMasks } from '../../src/input/profile/date-mask.js';
import type { ColumnSpec } from '../../src/input/profile/schema.js';

function amounts(spec: ColumnSpec): (v: string) => string {
  const carried: SignCurrency = { code: undefined, sign: '' };
  const convert = amountConverter(spec, 'column "a"', carried);
  return (v) => {
    const out = convert(v);
    return typeof out === 'string' ? out : out.error;
  };
}

describe('amounts', () => {
  test('a control character is no group separator, whatever the group', () => {
    expect(canonicalAmount('1\u0001234', ',', '.')).toBeNull();
    expect(canonicalAmount('1\u0001234', '.', undefined)).toBeNull();
    expect(canonicalAmount('1\u0001234', ',', '.', groupCodes('.'))).toBeNull();
    expect(amounts({ decimal: ',', group: '.' })('1\u0001234')).toMatch(/^amount: .* is not a number with decimal ",", group "."/);
  });

  test('canonicalAmount: each other group character of the class, and none without a group', () => {
    expect(canonicalAmount('1 234', ',', '\u00a0', groupCodes('\u00a0'))).toBe('1234');
    expect(canonicalAmount('1\u00a0234', ',', ' ', groupCodes(' '))).toBe('1234');
    expect(canonicalAmount('1\u202f234', ',', ' ', groupCodes(' '))).toBe('1234');
    expect(canonicalAmount('1\u00a0234', ',', undefined, [0x20, 0xa0, 0x202f])).toBeNull();
    expect(canonicalAmount('1\u202f234', ',', undefined, [0x20, 0xa0, 0x202f])).toBeNull();
  });

  test('a sign is all of its text, not its first or last character; a mark once', () => {
    const read = amounts({ currency_signs: { $: 'USD', C$: 'CAD', 'US $': 'USD' } });
    expect(read('C55')).toMatch(/^amount: "C55" is not a number/);
    expect(read('55 X$')).toMatch(/^amount: "55 X\$" is not a number/);
    expect(read('C$55')).toBe('55');
    expect(amounts({})('--5')).toMatch(/^amount: "--5" is not a number/);
  });
});

describe('date masks', () => {
  test('a mask with a time before its date is read by its tokens, not by position', () => {
    expect(dateMatcher('HH YYYY-MM-DD')('14 2026-12-01')).toBe('2026-12-01');
    expect(exclusiveMasks(['YYYY-MM-DD', 'HH YYYY-MM-DD'])).toBe(false);
  });

  test('the month and the day 10 of a one-or-two-digit mask', () => {
    const read = dateMatcher('D.M.YYYY');
    expect(read('10.10.2026')).toBe('2026-10-10');
    expect(read('9.9.2026')).toBe('2026-09-09');
    expect(read('10.1.2026')).toBe('2026-01-10');
    expect(read('1.10.2026')).toBe('2026-10-01');
  });
});
