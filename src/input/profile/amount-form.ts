/**
 * Amounts as a profile says they are written: decimal and group separators, negative marks and
 * the currency signs or words around the number (`$1,234.50`, `1,200円`, `12.00 USD`,
 * `($45.00)`). Strict: a sign the profile does not name, a group in the wrong place, or more
 * decimals than orders.amount holds is a problem of the line, never stripped or rounded.
 */
import { quoteValue } from '../order-record.js';
import type { ColumnSpec } from './schema.js';

/** Decimals orders.amount holds (numeric(18,2)); a third written decimal is refused, zeros or not. */
export const AMOUNT_DECIMALS = 2;

/**
 * The characters each `group` value accepts. The three blanks are one class: exports write a
 * plain space, a no-break space (U+00A0) or a narrow one (U+202F) and they look alike. The
 * apostrophe also accepts U+2019 (a typographic apostrophe, as some Swiss exports write).
 */
export function groupCodes(group: string | undefined): number[] {
  if (group === undefined) return [];
  if (group === ' ' || group === '\u00a0' || group === '\u202f') return [0x20, 0xa0, 0x202f];
  if (group === "'") return [0x27, 0x2019];
  return [group.charCodeAt(0)];
}

/**
 * An amount as written with the profile's decimal and group separators, in canonical form (no
 * group separators, no leading zeros, no trailing zeros of the fraction, "." for the point), or
 * null when it is not one: digits, optionally grouped by threes (`1.234.567`: the first group of
 * one to three digits, the others of three), then optionally the decimal separator and digits.
 * One pass over the text instead of a regular expression and replaceAll (measured the largest
 * part of the mapping); test/unit/profile-mapping-fast.test.ts compares it with the regular
 * expression. `alsoGroup`: other characters read as the group separator (groupCodes).
 */
export function canonicalAmount(s: string, decimal: string, group: string | undefined, alsoGroup: readonly number[] = []): string | null {
  const groupCode = group === undefined ? -1 : group.charCodeAt(0);
  return readAmount(s, decimal.charCodeAt(0), groupCode, groupCode < 0 ? -1 : (alsoGroup[0] ?? -1), alsoGroup[1] ?? -1, alsoGroup[2] ?? -1);
}

/** Digits canonicalAmount's last call read after the decimal separator (trailing zeros included). */
let lastDecimals = 0;

/**
 * canonicalAmount with its separators as character codes (-1: none), read once per column: no
 * closure or lookup per value. A group separator is `group` or one of `alt1`–`alt3`.
 */
function readAmount(s: string, decimalCode: number, groupCode: number, alt1: number, alt2: number, alt3: number): string | null {
  const n = s.length;
  let i = 0;
  // the integer part: digits, or digits grouped by threes
  let digits = 0; // digits since the last group separator (or the start)
  let groups = 0;
  let leadingZeros = 0;
  let significant = false;
  lastDecimals = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      digits++;
      if (!significant) {
        if (c === 48) leadingZeros++;
        else significant = true;
      }
    } else if (groupCode >= 0 && (c === groupCode || c === alt1 || c === alt2 || c === alt3)) {
      // a group separator follows one to three digits at first, exactly three after that
      if (digits === 0 || (groups === 0 ? digits > 3 : digits !== 3)) return null;
      groups++;
      digits = 0;
    } else break;
  }
  if (digits === 0 || (groups > 0 && digits !== 3)) return null;
  const integerEnd = i;
  let fractionEnd = n;
  if (i < n) {
    if (s.charCodeAt(i) !== decimalCode || i + 1 === n) return null;
    for (let j = i + 1; j < n; j++) {
      const c = s.charCodeAt(j);
      if (c < 48 || c > 57) return null;
    }
    lastDecimals = n - i - 1;
    // trailing zeros of the fraction dropped
    while (fractionEnd > i + 1 && s.charCodeAt(fractionEnd - 1) === 48) fractionEnd--;
  }
  const hasFraction = fractionEnd > integerEnd + 1;
  // leading zeros dropped, one digit kept ("0", "0.5")
  let integerStart = leadingZeros;
  if (!significant) integerStart = leadingZeros - 1;
  if (groups === 0) {
    if (!hasFraction) return integerStart === 0 && integerEnd === n ? s : s.slice(integerStart, integerEnd);
    // already canonical as written (a "." point, nothing to drop): the text itself, no copy
    if (decimalCode === 46 && integerStart === 0 && fractionEnd === n) return s;
  }
  // The canonical characters, then one string of them: slices joined by "+" and a template
  // made three to five strings of a grouped amount ("85", "246", "85246", "58", "85246.58")
  let count = 0;
  if (groups > 0) {
    // the digits without their separators, leading zeros (which may stand before a separator) left out
    let zeros = true;
    for (let k = 0; k < integerEnd; k++) {
      const c = s.charCodeAt(k);
      if (c < 48 || c > 57 || (zeros && c === 48 && k < integerEnd - 1)) continue;
      zeros = false;
      CODES[count++] = c;
    }
  } else for (let k = integerStart; k < integerEnd; k++) CODES[count++] = s.charCodeAt(k);
  if (hasFraction) {
    CODES[count++] = 46;
    for (let k = integerEnd + 1; k < fractionEnd; k++) CODES[count++] = s.charCodeAt(k);
  }
  return textOfCodes(count);
}

/** The characters readAmount writes an amount with (grown when a longer text needs it), textOfCodes' input. */
const CODES: number[] = new Array<number>(32).fill(0);

type Codes<N extends number, T extends number[] = []> = T['length'] extends N ? T : Codes<N, [...T, number]>;

/**
 * CODES[0…count) as one string: String.fromCharCode with its arguments written out makes the
 * string in one allocation (measured on the grouped amounts of the European bench file: a third
 * of the time of the slices and concatenations it replaced; `apply` on an array, about twice
 * the time of this). A text of more than 16 characters (an amount of 14 digits or more with two
 * decimals: none of the bench's) is made the general way.
 */
function textOfCodes(count: number): string {
  const c = CODES as Codes<16>;
  switch (count) {
    case 1:
      return String.fromCharCode(c[0]);
    case 2:
      return String.fromCharCode(c[0], c[1]);
    case 3:
      return String.fromCharCode(c[0], c[1], c[2]);
    case 4:
      return String.fromCharCode(c[0], c[1], c[2], c[3]);
    case 5:
      return String.fromCharCode(c[0], c[1], c[2], c[3], c[4]);
    case 6:
      return String.fromCharCode(c[0], c[1], c[2], c[3], c[4], c[5]);
    case 7:
      return String.fromCharCode(c[0], c[1], c[2], c[3], c[4], c[5], c[6]);
    case 8:
      return String.fromCharCode(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]);
    case 9:
      return String.fromCharCode(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]);
    case 10:
      return String.fromCharCode(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9]);
    case 11:
      return String.fromCharCode(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10]);
    case 12:
      return String.fromCharCode(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11]);
    case 13:
      return String.fromCharCode(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[12]);
    case 14:
      return String.fromCharCode(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[12], c[13]);
    case 15:
      return String.fromCharCode(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[12], c[13], c[14]);
    case 16:
      return String.fromCharCode(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[12], c[13], c[14], c[15]);
    default:
      return String.fromCharCode(...CODES.slice(0, count));
  }
}

/** The currency the amount just read carried by its sign: undefined without one, null for a sign that says none. */
export interface SignCurrency {
  code: string | null | undefined;
  /** The sign as written (for messages). */
  sign: string;
}

/**
 * An amount column's converter. `carried` is set to the sign's currency of each value read (the
 * mapping compares it with, or takes it as, the line's currency).
 */
export function amountConverter(spec: ColumnSpec, where: string, carried: SignCurrency): (v: string) => string | { error: string } {
  const decimal = spec.decimal ?? '.';
  const group = spec.group;
  const alsoGroup = groupCodes(group);
  const [decimalCode, groupCode] = [decimal.charCodeAt(0), group === undefined ? -1 : group.charCodeAt(0)];
  const [alt1, alt2, alt3] = [alsoGroup[0] ?? -1, alsoGroup[1] ?? -1, alsoGroup[2] ?? -1];
  const negatives = spec.negative ?? ['-'];
  const signs = Object.entries(spec.currency_signs ?? {}).sort(([a], [b]) => b.length - a.length);
  const form = `decimal ${JSON.stringify(decimal)}${group === undefined ? '' : `, group ${JSON.stringify(group)}`}`;
  // the usual sign alone ("-") and no currency signs: the text needs no search for the others
  const minusOnly = negatives.length === 1 && negatives[0] === '-' && signs.length === 0;
  /** What to add to the message of a text that is not a number: a sign or word around it the profile does not name. */
  const noSign = (s: string): string =>
    !/^[\p{Sc}\p{L}]|[\p{Sc}\p{L}]$/u.test(s)
      ? ''
      : signs.length === 0
        ? ' (a currency sign or word around the number: name it in currency_signs)'
        : ` (a currency sign or word the profile does not name: currency_signs has ${signs.map(([x]) => JSON.stringify(x)).join(', ')})`;
  return (v) => {
    carried.code = undefined;
    let s = v;
    let negative = false;
    let sign: string | null = null;
    const first = v.charCodeAt(0);
    const last = v.charCodeAt(v.length - 1);
    // a text that starts with a digit has no sign: with "-" alone, no search for one; nor, with
    // any marks and signs, one that starts and ends with a digit (every mark and sign stands at an end)
    const digitFirst = first >= 48 && first <= 57;
    if (!(digitFirst && (minusOnly || (last >= 48 && last <= 57)))) {
      // a negative mark and a currency sign, each at most once, in either order: -$5, $-5, ($5), $(5), 5 USD
      for (let round = 0; round < 3; round++) {
        let changed = false;
        if (!negative)
          for (const n of negatives) {
            if (n === '()') {
              if (s.length > 2 && s.startsWith('(') && s.endsWith(')')) {
                s = s.slice(1, -1).trim();
                negative = changed = true;
                break;
              }
            } else if (s.startsWith(n)) {
              s = s.slice(n.length).trim();
              negative = changed = true;
              break;
            }
          }
        if (sign === null)
          for (const [text, code] of signs) {
            // only the signs that begin with the text's first character or end with its last
            if (text.charCodeAt(0) === s.charCodeAt(0) && s.startsWith(text)) s = s.slice(text.length).trim();
            else if (text.charCodeAt(text.length - 1) === s.charCodeAt(s.length - 1) && s.endsWith(text))
              s = s.slice(0, -text.length).trim();
            else continue;
            sign = text;
            carried.code = code;
            carried.sign = text;
            changed = true;
            break;
          }
        if (!changed) break;
      }
    }
    if (!negative && s.charCodeAt(0) === 43) s = s.slice(1); // "+"
    const amount = readAmount(s, decimalCode, groupCode, alt1, alt2, alt3);
    if (amount === null) return { error: `amount: ${quoteValue(v)} is not a number with ${form}${noSign(s)} (${where})` };
    if (lastDecimals > AMOUNT_DECIMALS)
      return {
        error: `amount: ${quoteValue(v)} has more than ${AMOUNT_DECIMALS} decimals (orders.amount holds ${AMOUNT_DECIMALS}) (${where})`,
      };
    return negative && amount !== '0' ? '-' + amount : amount;
  };
}
