/**
 * guess: what a column's values look like (issue 21 §4). Pure: the date masks that read them
 * and how many each reads, the number style of amounts (decimal and group separators, the
 * negative forms), ISO currency codes, whole numbers, full-width characters.
 */

export const DATE_MASKS = [
  'YYYY-MM-DD',
  'YYYY/MM/DD',
  'YYYY.MM.DD',
  'YYYYMMDD',
  'DD.MM.YYYY',
  'DD/MM/YYYY',
  'MM/DD/YYYY',
  'DD-MM-YYYY',
  'MM-DD-YYYY',
] as const;
export type DateMask = (typeof DATE_MASKS)[number];

function readsAs(value: string, mask: DateMask): boolean {
  const pattern = mask.replace('YYYY', '(?<y>\\d{4})').replace('MM', '(?<m>\\d{2})').replace('DD', '(?<d>\\d{2})').replaceAll('.', '\\.');
  const m = new RegExp(`^${pattern}$`).exec(value);
  if (m?.groups === undefined) return false;
  const y = Number(m.groups.y);
  const mo = Number(m.groups.m);
  const d = Number(m.groups.d);
  if (y < 1900 || y > 2199 || mo < 1 || mo > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

export interface MaskHits {
  mask: DateMask;
  hits: number;
}

export interface DateEvidence {
  /** Masks that read at least one value, most first, with how many values each reads. */
  masks: MaskHits[];
  /** Non-empty values looked at, and how many of them some mask reads. */
  of: number;
  readable: number;
  /** Values every mask of a pair reads alike day-first and month-first (01/02/2026), with the pair. */
  ambiguous: { masks: [DateMask, DateMask]; example: string } | null;
  /** The masks to propose (they read every value, one mask per value), or null when undecided. */
  chosen: DateMask[] | null;
}

const SWAPPED: Array<[DateMask, DateMask]> = [
  ['DD/MM/YYYY', 'MM/DD/YYYY'],
  ['DD-MM-YYYY', 'MM-DD-YYYY'],
];

export function dateEvidence(values: readonly string[]): DateEvidence {
  const filled = values.filter((v) => v !== '');
  const masks = DATE_MASKS.map((mask) => ({ mask, hits: filled.filter((v) => readsAs(v, mask)).length }))
    .filter((m) => m.hits > 0)
    .sort((a, b) => b.hits - a.hits);
  let ambiguous: DateEvidence['ambiguous'] = null;
  for (const [a, b] of SWAPPED) {
    const ha = masks.find((m) => m.mask === a);
    const hb = masks.find((m) => m.mask === b);
    // both read the same values: nothing in the sample tells day from month
    if (ha !== undefined && hb !== undefined && ha.hits === hb.hits) {
      const example = filled.find((v) => readsAs(v, a) && readsAs(v, b)) ?? '';
      ambiguous = { masks: [a, b], example };
    }
  }
  // the fewest masks that read every value: greedy, most hits first
  let chosen: DateMask[] | null = null;
  if (ambiguous === null && filled.length > 0) {
    const left = new Set(filled);
    chosen = [];
    for (const { mask } of masks) {
      const reads = [...left].filter((v) => readsAs(v, mask));
      if (reads.length === 0) continue;
      chosen.push(mask);
      for (const v of reads) left.delete(v);
    }
    if (left.size > 0 || chosen.length === 0) chosen = chosen.length === 0 ? null : chosen;
  }
  const readable = filled.filter((v) => DATE_MASKS.some((m) => readsAs(v, m))).length;
  return { masks, of: filled.length, readable, ambiguous, chosen };
}

/** The share of values some mask reads. */
export function dateShare(e: DateEvidence): number {
  return e.of === 0 ? 0 : e.readable / e.of;
}

export type NegativeForm = '-' | '▲' | '()' | 'trailing -';

export interface NumberEvidence {
  /** Values that read as an amount in some style. */
  numeric: number;
  of: number;
  decimal: '.' | ',' | null;
  group: '.' | ',' | ' ' | "'" | null;
  /** Why the separators were decided, or why not. */
  why: string;
  negative: NegativeForm[];
  /** Values with a fraction (a decimal separator decided or not). */
  fractions: number;
  /** Whole numbers only (digits, no sign, no separator). */
  digitsOnly: number;
}

const NEG: Array<[RegExp, NegativeForm]> = [
  [/^-(.+)$/, '-'],
  [/^▲(.+)$/, '▲'],
  [/^\((.+)\)$/, '()'],
  [/^(.+)-$/, 'trailing -'],
];

export function numberEvidence(values: readonly string[]): NumberEvidence {
  const filled = values.filter((v) => v !== '');
  const negative = new Set<NegativeForm>();
  let numeric = 0;
  let fractions = 0;
  let digitsOnly = 0;
  let commaDecimal = 0;
  let dotDecimal = 0;
  let ambiguous = '';
  const groups = new Set<string>();
  for (const raw of filled) {
    let v = raw.replaceAll(' ', '');
    for (const [re, form] of NEG) {
      const m = re.exec(v);
      if (m !== null) {
        negative.add(form);
        v = (m[1] as string).trim();
        break;
      }
    }
    if (/^\d+$/.test(v)) {
      numeric++;
      if (v === raw) digitsOnly++;
      continue;
    }
    if (!/^\d[\d.,']*$/.test(v)) continue;
    numeric++;
    const lastDot = v.lastIndexOf('.');
    const lastComma = v.lastIndexOf(',');
    if (lastDot !== -1 && lastComma !== -1) {
      if (lastComma > lastDot) {
        commaDecimal++;
        groups.add('.');
      } else {
        dotDecimal++;
        groups.add(',');
      }
      fractions++;
      continue;
    }
    const sep = lastDot !== -1 ? '.' : ',';
    const parts = v.split(sep);
    const tail = parts[parts.length - 1] as string;
    if (parts.length > 2) {
      // 1.234.567: only a group separator repeats
      groups.add(sep);
      if (sep === '.') commaDecimal++;
      else dotDecimal++;
    } else if (tail.length !== 3) {
      fractions++;
      if (sep === ',') commaDecimal++;
      else dotDecimal++;
    } else if (ambiguous === '') ambiguous = raw;
  }
  let decimal: NumberEvidence['decimal'] = null;
  let why: string;
  if (commaDecimal > 0 && dotDecimal === 0) {
    decimal = ',';
    why = `decimal comma: ${commaDecimal} value(s) such as ${example(filled, ',')}`;
  } else if (dotDecimal > 0 && commaDecimal === 0) {
    decimal = '.';
    why = `decimal point: ${dotDecimal} value(s) such as ${example(filled, '.')}`;
  } else if (commaDecimal > 0) {
    why = `values read both ways (${commaDecimal} with a decimal comma, ${dotDecimal} with a decimal point)`;
  } else if (ambiguous !== '') {
    why = `${JSON.stringify(ambiguous)} reads as a thousands separator or as a decimal with 3 digits`;
  } else {
    decimal = '.';
    why = 'no separator in the sample (whole numbers)';
  }
  const group = decimal === null ? null : (([...groups].find((g) => g !== decimal) as NumberEvidence['group']) ?? null);
  return { numeric, of: filled.length, decimal, group, why, negative: [...negative], fractions, digitsOnly };
}

function example(values: readonly string[], decimal: string): string {
  const v = values.find((x) => new RegExp(`\\${decimal}\\d{1,2}\\)?-?$`).test(x) || x.includes(decimal)) ?? values[0] ?? '';
  return JSON.stringify(v);
}

/** ISO 4217 codes seen in order files; any three capitals also count, these say more. */
const KNOWN = new Set(
  'EUR USD JPY GBP CHF CNY KRW HKD SGD AUD NZD CAD SEK NOK DKK PLN CZK HUF RON BGN TRY INR IDR THB MYR PHP VND TWD BRL MXN ZAR AED SAR ILS RUB UAH ISK'.split(
    ' ',
  ),
);

export function currencyEvidence(values: readonly string[]): { codes: number; known: number; of: number; top: string | null } {
  const filled = values.filter((v) => v !== '');
  const codes = filled.filter((v) => /^[A-Z]{3}$/.test(v));
  const counts = new Map<string, number>();
  for (const c of codes) counts.set(c, (counts.get(c) ?? 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
  return { codes: codes.length, known: codes.filter((c) => KNOWN.has(c)).length, of: filled.length, top };
}

/** Full-width digits, letters or signs (Ａ, １, －): NFKC makes them ASCII. */
export function hasFullWidth(text: string): boolean {
  return /[\uff01-\uff5e]/.test(text);
}
