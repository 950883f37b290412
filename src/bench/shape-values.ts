/**
 * `bench --profile`: one synthetic order's date and amount written as the profile reads them —
 * a date mask with its time, AM/PM, fraction of a second, offset (in the profile's `timezone`, so
 * that the date read back is the order's date) and Japanese era; an amount with the profile's
 * decimal and group separators and the currency sign of the order's currency. Each writer reads
 * its options once; run-bench.ts reads the file back through the profile before any case.
 */
import { eraOf, maskParts, type Token } from '../input/profile/date-mask.js';
import type { SyntheticOrder } from './synthetic-orders.js';

const two = (n: number): string => (n < 10 ? `0${n}` : String(n));

/** An order's time of day: 09:00–20:59, spread over the orders (office hours: no daylight-saving gap of a night). */
function timeOf(n: number): { hour: number; minute: number; second: number } {
  return { hour: 9 + (n % 12), minute: (n * 7) % 60, second: (n * 13) % 60 };
}

/** The offset of `zone` at a local date and time, as ±HH:MM ("Z" for UTC), found once per date. */
function offsetWriter(zone: string): (iso: string, hour: number) => string {
  const format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
  const byDate = new Map<string, string>();
  return (iso, hour) => {
    const key = `${iso}T${hour}`;
    const known = byDate.get(key);
    if (known !== undefined) return known;
    const local = Date.UTC(Number(iso.slice(0, 4)), Number(iso.slice(5, 7)) - 1, Number(iso.slice(8, 10)), hour);
    // the zone's offset at the local time taken as UTC, then at the instant that offset gives
    let minutes = 0;
    for (let i = 0; i < 2; i++) {
      const name = format.formatToParts(local - minutes * 60_000).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
      const m = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name);
      minutes = m === null ? 0 : (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
    }
    const text =
      minutes === 0 ? 'Z' : `${minutes < 0 ? '-' : '+'}${two(Math.trunc(Math.abs(minutes) / 60))}:${two(Math.abs(minutes) % 60)}`;
    byDate.set(key, text);
    return text;
  };
}

/**
 * A date mask as a writer of an order's date (YYYY-MM-DD) and time. An era (G) is written as its
 * name in a mask whose other text is not ASCII (GE年M月D日), else as its letter (R8.12.1).
 */
export function dateWriter(mask: string, timezone: string | undefined): (order: SyntheticOrder) => string {
  const parts = maskParts(mask);
  // eslint-disable-next-line no-control-regex -- ASCII, not control characters
  const kanjiEra = parts.some((p) => p.token === null && /[^\x00-\x7f]/.test(p.text));
  const offset = parts.some((p) => p.token === 'Z') && timezone !== undefined ? offsetWriter(timezone) : null;
  const write = (token: Token, text: string, iso: string, n: number): string => {
    const { hour, minute, second } = timeOf(n);
    const month = Number(iso.slice(5, 7));
    const day = Number(iso.slice(8, 10));
    switch (token) {
      case 'YYYY':
        return iso.slice(0, 4);
      case 'MM':
        return two(month);
      case 'DD':
        return two(day);
      case 'M':
        return String(month);
      case 'D':
        return String(day);
      case 'HH':
        return two(hour);
      case 'H':
        return String(hour);
      case 'hh':
        return two(hour % 12 === 0 ? 12 : hour % 12);
      case 'h':
        return String(hour % 12 === 0 ? 12 : hour % 12);
      case 'A':
        return hour < 12 ? 'AM' : 'PM';
      case 'mm':
        return two(minute);
      case 'ss':
        return two(second);
      case 'S':
        return '0'.repeat(text.length);
      case 'Z':
        return offset === null ? 'Z' : offset(iso, hour);
      case 'G': {
        const era = eraOf(iso);
        return era === undefined ? '' : kanjiEra ? era.name : era.letter;
      }
      case 'E':
        return String(eraOf(iso)?.year ?? '');
      case 'EE':
        return two(eraOf(iso)?.year ?? 0);
    }
  };
  return (order) => {
    let out = '';
    for (const p of parts) out += p.token === null ? p.text : write(p.token, p.text, order.orderDate, order.n);
    return out;
  };
}

/** Where a currency sign stands: a code after the number and a blank (12.00 USD), 円/元 right after it, any other sign before it. */
function signed(number: string, sign: string): string {
  if (/^[A-Z]{3}$/.test(sign)) return `${number} ${sign}`;
  if (sign === '円' || sign === '元') return `${number}${sign}`;
  return `${sign}${number}`;
}

/**
 * An amount written as `1234.56` written with the profile's decimal and group separators, and
 * the sign `signOf` gives the order's currency (none: the number alone).
 */
export function amountWriter(
  decimal: string,
  group: string | undefined,
  signOf: (currency: string) => string | undefined = () => undefined,
): (amount: string, currency: string) => string {
  return (amount, currency) => {
    if (amount === '') return '';
    const [integer = '', fraction = ''] = amount.split('.');
    const grouped = group === undefined ? integer : integer.replace(/\B(?=(\d{3})+$)/g, group);
    const number = fraction === '' ? grouped : `${grouped}${decimal}${fraction}`;
    const sign = signOf(currency);
    return sign === undefined ? number : signed(number, sign);
  };
}

/** The first sign of `signs` that stands for each currency code. */
export function signsByCurrency(signs: Record<string, string | null> | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const [sign, code] of Object.entries(signs ?? {})) if (code !== null && !out.has(code)) out.set(code, sign);
  return out;
}
