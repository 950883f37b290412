/**
 * Date masks of a profile's order_date: the tokens, the check of a mask when the profile is read,
 * and the matchers that turn a field into YYYY-MM-DD. A mask may hold a time (checked, then
 * dropped), an offset (the date is then the calendar date of that instant in the profile's
 * `timezone`) and a Japanese era with its year (checked against the era's span). Strict: text a
 * mask does not read, or a value out of range, is no date.
 */
import { isValidIsoDate, quoteValue } from '../order-record.js';

/** The tokens, longest first where one is the start of another. */
const TOKEN = /^(YYYY|MM|DD|HH|hh|mm|ss|EE|S{1,9}|M|D|H|h|A|Z|G|E)/;

export type Token = 'YYYY' | 'MM' | 'DD' | 'HH' | 'hh' | 'mm' | 'ss' | 'EE' | 'S' | 'M' | 'D' | 'H' | 'h' | 'A' | 'Z' | 'G' | 'E';

interface Part {
  token: Token | null;
  /** The literal text (token null) or the token as written (S…: its digits). */
  text: string;
}

/** A mask as its tokens and literal characters; the one literal ASCII letter is T (ISO's date/time separator). */
function partsOf(mask: string): Part[] | string {
  const parts: Part[] = [];
  let rest = mask;
  while (rest.length > 0) {
    const token = TOKEN.exec(rest)?.[1];
    if (token !== undefined) {
      parts.push({ token: (token.startsWith('S') ? 'S' : token) as Token, text: token });
      rest = rest.slice(token.length);
      continue;
    }
    const ch = String.fromCodePoint(rest.codePointAt(0) ?? 0);
    if (/[A-Za-z]/.test(ch) && ch !== 'T')
      return `unknown letters in date mask ${JSON.stringify(mask)} (use YYYY, MM, DD, M, D; HH, H, hh, h, A, mm, ss, S…, Z; G, EE, E; T)`;
    if (/\d/.test(ch)) return `date mask ${JSON.stringify(mask)} holds a digit`;
    parts.push({ token: null, text: ch });
    rest = rest.slice(ch.length);
  }
  return parts;
}

/** What is wrong with a date mask, or null. */
export function dateMaskProblem(mask: string): string | null {
  const parts = partsOf(mask);
  if (typeof parts === 'string') return parts;
  const count = (...tokens: Token[]) => parts.filter((p) => p.token !== null && tokens.includes(p.token)).length;
  const m = JSON.stringify(mask);
  const years = count('YYYY') + count('G');
  if (years !== 1 || count('M', 'MM') !== 1 || count('D', 'DD') !== 1)
    return `date mask ${m} needs one year (YYYY, or an era G with its year E), one month and one day`;
  if (count('G') !== count('E', 'EE') || count('E', 'EE') > 1) return `date mask ${m}: an era G goes with its year (E or EE), once`;
  const hours24 = count('HH', 'H');
  const hours12 = count('hh', 'h');
  if (hours24 + hours12 > 1 || count('mm') > 1 || count('ss') > 1 || count('S') > 1 || count('A') > 1 || count('Z') > 1)
    return `date mask ${m} holds a time part twice`;
  if ((hours12 === 1) !== (count('A') === 1)) return `date mask ${m}: hh and h (a 12-hour clock) go with A (AM/PM), and A with them`;
  if (count('mm') === 1 && hours24 + hours12 === 0) return `date mask ${m}: minutes (mm) need an hour (HH, H, hh or h)`;
  if ((count('ss') === 1 || count('S') === 1) && count('mm') === 0) return `date mask ${m}: seconds need minutes (mm)`;
  if (count('S') === 1 && count('ss') === 0) return `date mask ${m}: a fraction of a second (S…) needs seconds (ss)`;
  if (count('Z') === 1 && count('mm') === 0) return `date mask ${m}: an offset (Z) needs the time (an hour and mm)`;
  return null;
}

/** A mask's parts in order: each token (S… as `S`, its digits in `text`) or literal character (token null); a mask with unknown letters or digits throws. */
export function maskParts(mask: string): ReadonlyArray<{ token: Token | null; text: string }> {
  const parts = partsOf(mask);
  if (typeof parts === 'string') throw new Error(parts);
  return parts;
}

/** Whether a mask reads an offset (Z): the profile must state its timezone. */
export function maskHasOffset(mask: string): boolean {
  const parts = partsOf(mask);
  return typeof parts !== 'string' && parts.some((p) => p.token === 'Z');
}

/** Whether an IANA zone name is one this runtime knows. */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The Japanese eras from 1900 on (the dates every engine stores alike): name, letter, first and last day. */
const ERAS = [
  { name: '明治', letter: 'M', first: '1868-01-25', last: '1912-07-29' },
  { name: '大正', letter: 'T', first: '1912-07-30', last: '1926-12-24' },
  { name: '昭和', letter: 'S', first: '1926-12-25', last: '1989-01-07' },
  { name: '平成', letter: 'H', first: '1989-01-08', last: '2019-04-30' },
  { name: '令和', letter: 'R', first: '2019-05-01', last: '9999-12-31' },
] as const;
type Era = (typeof ERAS)[number];

/** The Japanese era of a date YYYY-MM-DD (1868-01-25 on), or undefined. */
export function eraOf(iso: string): { name: string; letter: string; year: number } | undefined {
  const era = ERAS.find((e) => iso >= e.first && iso <= e.last);
  return era === undefined
    ? undefined
    : { name: era.name, letter: era.letter, year: Number(iso.slice(0, 4)) - Number(era.first.slice(0, 4)) + 1 };
}
const ERA_BY_TEXT = new Map<string, Era>(ERAS.flatMap((e) => [[e.name, e] as const, [e.letter, e] as const]));

/** Days in each month of a common year. */
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The number of the `count` ASCII digits at `at` of `v`, or -1. */
function digitsAt(v: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const d = v.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * A mask of fixed-width tokens only (YYYY, MM, DD and separators: DD.MM.YYYY, YYYYMMDD) read by
 * position, without a regular expression (the common case; measured a third of the mapping).
 * The date is checked from its numbers as isValidIsoDate checks it (from 1900 on; a unit test
 * compares the two), and the ISO text built only for a date that is one.
 */
function fixedDateMatcher(mask: string): ((v: string) => string | null) | null {
  if (!/^(YYYY|MM|DD|[^A-Za-z])+$/.test(mask)) return null;
  const y = mask.indexOf('YYYY');
  const m = mask.indexOf('MM');
  const d = mask.indexOf('DD');
  if (y < 0 || m < 0 || d < 0) return null;
  const separatorAt: number[] = [];
  const separatorCode: number[] = [];
  for (let i = 0; i < mask.length; i++) {
    const inToken = (i >= y && i < y + 4) || (i >= m && i < m + 2) || (i >= d && i < d + 2);
    if (!inToken) {
      separatorAt.push(i);
      separatorCode.push(mask.charCodeAt(i));
    }
  }
  const length = mask.length;
  const separators = separatorAt.length;
  return (v) => {
    if (v.length !== length) return null;
    for (let i = 0; i < separators; i++) if (v.charCodeAt(separatorAt[i] as number) !== separatorCode[i]) return null;
    const year = digitsAt(v, y, 4);
    const month = digitsAt(v, m, 2);
    const day = digitsAt(v, d, 2);
    if (year < 1900 || month < 1 || month > 12 || day < 1) return null;
    const leap = month === 2 && ((year % 4 === 0 && year % 100 !== 0) || year % 400 === 0);
    if (day > (leap ? 29 : (DAYS_IN_MONTH[month - 1] as number))) return null;
    // one string made from its ten characters (slices and "+" made four intermediate strings)
    return String.fromCharCode(
      v.charCodeAt(y),
      v.charCodeAt(y + 1),
      v.charCodeAt(y + 2),
      v.charCodeAt(y + 3),
      45,
      v.charCodeAt(m),
      v.charCodeAt(m + 1),
      45,
      v.charCodeAt(d),
      v.charCodeAt(d + 1),
    );
  };
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

const TOKEN_PATTERN: Record<Token, string> = {
  YYYY: '(\\d{4})',
  MM: '(\\d{2})',
  DD: '(\\d{2})',
  HH: '(\\d{2})',
  hh: '(\\d{2})',
  mm: '(\\d{2})',
  ss: '(\\d{2})',
  EE: '(\\d{2}|元)',
  S: '',
  M: '(\\d{1,2})',
  D: '(\\d{1,2})',
  H: '(\\d{1,2})',
  h: '(\\d{1,2})',
  A: '(AM|PM|am|pm)',
  // UTC and GMT as some exports write the zero offset (BigQuery: 2026-12-01 21:34:02 UTC)
  Z: '(Z|UTC|GMT|[+-]\\d{2}(?::?\\d{2})?)',
  G: '(令和|平成|昭和|大正|明治|R|H|S|T|M)',
  E: '(\\d{1,2}|元)',
};

/** An offset as written (Z, UTC, GMT, +09:00, +0900, +09) in minutes east of UTC. */
function offsetMinutes(text: string): number {
  if (text === 'Z' || text === 'UTC' || text === 'GMT') return 0;
  const sign = text.startsWith('-') ? -1 : 1;
  const digits = text.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + (digits.length > 2 ? Number(digits.slice(2, 4)) : 0));
}

/** The calendar date (YYYY-MM-DD) of an instant in a zone. */
function zoneDate(format: Intl.DateTimeFormat, instant: number): string {
  let y = '';
  let m = '';
  let d = '';
  for (const p of format.formatToParts(instant)) {
    if (p.type === 'year') y = p.value;
    else if (p.type === 'month') m = p.value;
    else if (p.type === 'day') d = p.value;
  }
  return `${y.padStart(4, '0')}-${m}-${d}`;
}

/** A date mask as a matcher: the date YYYY-MM-DD it reads, or null. `timezone` is needed by a mask with Z. */
export function dateMatcher(mask: string, timezone?: string): (v: string) => string | null {
  const fixed = fixedDateMatcher(mask);
  if (fixed !== null) return fixed;
  const parts = partsOf(mask);
  if (typeof parts === 'string') throw new Error(parts);
  const order: Token[] = [];
  let pattern = '^';
  for (const p of parts) {
    if (p.token === null) pattern += escapeRegex(p.text);
    else {
      order.push(p.token);
      pattern += p.token === 'S' ? `(\\d{${p.text.length}})` : TOKEN_PATTERN[p.token];
    }
  }
  const re = new RegExp(`${pattern}$`);
  const zone =
    timezone === undefined
      ? null
      : new Intl.DateTimeFormat('en-US', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' });
  // each part's group number in a match (0: not in the mask), found once: a value is read without a lookup
  const group = (...tokens: Token[]): number => {
    const i = order.findIndex((t) => tokens.includes(t));
    return i < 0 ? 0 : i + 1;
  };
  const [gYear, gMonth, gDay, gEra, gEraYear] = [group('YYYY'), group('MM', 'M'), group('DD', 'D'), group('G'), group('E', 'EE')];
  const [g24, g12, gAmPm, gMinute, gSecond, gOffset] = [
    group('HH', 'H'),
    group('hh', 'h'),
    group('A'),
    group('mm'),
    group('ss'),
    group('Z'),
  ];
  const number = (text: string | undefined): number => (text === undefined ? 0 : Number(text));
  return (v) => {
    const match = re.exec(v);
    if (match === null) return null;
    let year: number;
    const era = gEra === 0 ? undefined : ERA_BY_TEXT.get(match[gEra] ?? '');
    if (era !== undefined) {
      const e = match[gEraYear] ?? '';
      const n = e === '元' ? 1 : Number(e);
      if (n < 1) return null;
      year = Number(era.first.slice(0, 4)) + n - 1;
    } else year = number(match[gYear]);
    const month = number(match[gMonth]);
    const day = number(match[gDay]);
    const iso = `${String(year).padStart(4, '0')}-${month < 10 ? '0' : ''}${month}-${day < 10 ? '0' : ''}${day}`;
    if (!isValidIsoDate(iso)) return null;
    if (era !== undefined && (iso < era.first || iso > era.last)) return null;
    let hour = 0;
    if (g24 !== 0) {
      hour = number(match[g24]);
      if (hour > 23) return null;
    } else if (g12 !== 0) {
      hour = number(match[g12]);
      if (hour < 1 || hour > 12) return null;
      const pm = (match[gAmPm] ?? '').toUpperCase() === 'PM';
      hour = (hour % 12) + (pm ? 12 : 0);
    }
    const minute = gMinute === 0 ? 0 : number(match[gMinute]);
    const second = gSecond === 0 ? 0 : number(match[gSecond]);
    if (minute > 59 || second > 59) return null;
    if (gOffset === 0) return iso;
    const offset = match[gOffset] ?? 'Z';
    if (zone === null) return null;
    const instant = Date.UTC(year, month - 1, day, hour, minute, second) - offsetMinutes(offset) * 60_000;
    const local = zoneDate(zone, instant);
    return isValidIsoDate(local) ? local : null;
  };
}

/**
 * Whether no text can fit two of the masks: each is of fixed-width tokens and every two differ in
 * length or have a separator at a place where the other has another separator or a digit. Then
 * the first mask that reads a value is the only one (the others need not be tried for ambiguity).
 */
export function exclusiveMasks(masks: readonly string[]): boolean {
  const fixed = /^(YYYY|MM|DD|[^A-Za-z])+$/;
  if (!masks.every((m) => fixed.test(m))) return false;
  const separators = (m: string): Map<number, string> => {
    const at = new Map<number, string>();
    for (let i = 0; i < m.length; i++) if (!'YMD'.includes(m[i] as string)) at.set(i, m[i] as string);
    return at;
  };
  for (let a = 0; a < masks.length; a++)
    for (let b = a + 1; b < masks.length; b++) {
      const [x, y] = [masks[a] as string, masks[b] as string];
      if (x.length !== y.length) continue;
      const sx = separators(x);
      const sy = separators(y);
      const differ = [...sx].some(([i, c]) => sy.get(i) !== c) || [...sy].some(([i, c]) => sx.get(i) !== c);
      if (!differ) return false;
    }
  return true;
}

/** A field's text to YYYY-MM-DD by the first of the masks that reads it, or the problem. */
export function dateConverter(masks: string[], where: string, timezone?: string): (v: string) => string | { error: string } {
  const matchers = masks.map((m) => dateMatcher(m, timezone));
  const list = masks.join(', ');
  if (exclusiveMasks(masks)) {
    // at most one mask reads any text: the first that does is the date
    return (v) => {
      for (let i = 0; i < matchers.length; i++) {
        const d = (matchers[i] as (v: string) => string | null)(v);
        if (d !== null) return d;
      }
      return { error: `order_date: ${quoteValue(v)} matches none of ${list} (${where})` };
    };
  }
  return (v) => {
    let found: string | null = null;
    let foundMask = '';
    for (let i = 0; i < matchers.length; i++) {
      const d = (matchers[i] as (v: string) => string | null)(v);
      if (d === null) continue;
      if (found === null) {
        found = d;
        foundMask = masks[i] ?? '';
      } else if (d !== found) {
        return { error: `order_date: ${quoteValue(v)} is ambiguous: ${foundMask} reads ${found}, ${masks[i] ?? ''} reads ${d} (${where})` };
      }
    }
    return found ?? { error: `order_date: ${quoteValue(v)} matches none of ${list} (${where})` };
  };
}
