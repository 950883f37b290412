/**
 * guess: how a column's amounts are written. Pure. The currency signs or codes around the number
 * (`$1,234.50`, `1,200円`, `€ 12,50`, `12.00 USD`), the negative forms (`-`, `▲`, `△`, `(…)`,
 * combined with a sign either way), the decimal and group separators (`1.234,50`, `1 234,50`
 * with a no-break space, `1'234.50`). `1,234` alone reads as a group or as three decimals: it is
 * decided only by evidence (another value, or a currency without minor units), else left open.
 */

export type NegativeForm = '-' | '▲' | '△' | '()' | 'trailing -';
export type GroupSeparator = '.' | ',' | ' ' | "'";

export interface NumberEvidence {
  /** Values that read as an amount in some style. */
  numeric: number;
  of: number;
  decimal: '.' | ',' | null;
  group: GroupSeparator | null;
  /** Why the separators were decided, or why not. */
  why: string;
  negative: NegativeForm[];
  /** Values with a fraction (a decimal separator decided or not). */
  fractions: number;
  /** Whole numbers only (digits, no sign, no separator). */
  digitsOnly: number;
  /** The currency signs or codes around the numbers, with how many values carry each. */
  signs: Record<string, number>;
  /** Values that carry a sign. */
  signed: number;
}

/**
 * What may stand around an amount: a currency symbol (`$`, `C$`, `US$`), 円 and its kin, three
 * capitals (an ISO code), or a backslash: the yen sign of JIS X 0201, byte 0x5C, which Shift_JIS decoders read as
 * `\` (Japanese Excel writes `\1,200` for ¥1,200).
 */
const CURRENCY_SIGN = /^(?:\p{Sc}|[A-Z]{1,2}\p{Sc}|円|元|원|[A-Z]{3}|\\)$/u;
/** Characters that are part of a number as written: digits, separators, negative marks. */
const NUMBERISH = /[\d.,'\u00a0\u202f ()\-+▲△]/;
const BLANKS = /[ \u00a0\u202f]/g;

/** A value without its currency sign and negative form: the number's text, the sign, the form. */
export function strip(raw: string): { body: string; sign: string | null; negative: NegativeForm | null } {
  let v = raw.trim();
  let sign: string | null = null;
  let negative: NegativeForm | null = null;
  for (let round = 0; round < 3; round++) {
    const before = v;
    const lead = /^([^\d.,'\s()\-+▲△]+)\s*/.exec(v);
    const trail = /\s*([^\d.,'\s()\-+▲△]+)$/.exec(v);
    if (sign === null && lead !== null) {
      sign = lead[1] as string;
      v = v.slice(lead[0].length);
    } else if (sign === null && trail !== null) {
      sign = trail[1] as string;
      v = v.slice(0, v.length - trail[0].length);
    }
    if (negative === null) {
      const paren = /^\((.*)\)$/.exec(v);
      const mark = /^([-▲△])\s*(.*)$/.exec(v);
      const after = /^(.*\d)-$/.exec(v);
      if (paren !== null) [negative, v] = ['()', (paren[1] as string).trim()];
      else if (mark !== null) [negative, v] = [mark[1] as NegativeForm, mark[2] as string];
      else if (after !== null) [negative, v] = ['trailing -', after[1] as string];
    }
    if (v === before) break;
  }
  return { body: v, sign, negative };
}

interface Tally {
  commaDecimal: number;
  dotDecimal: number;
  fractions: number;
  groups: Set<GroupSeparator>;
  /** A value whose one separator has three digits after it (group or three decimals). */
  ambiguous: string;
}

/** What one number's separators say (the number without sign and negative form). */
function tallySeparators(raw: string, body: string, t: Tally): boolean {
  if (/^\d+$/.test(body)) return true;
  if (/^\d{1,3}([ \u00a0\u202f]\d{3})+([.,]\d+)?$/.test(body)) {
    t.groups.add(' ');
    body = body.replace(BLANKS, '');
    if (/^\d+$/.test(body)) return true;
  }
  if (/^\d{1,3}('\d{3})+(\.\d+)?$/.test(body)) {
    t.groups.add("'");
    t.dotDecimal += body.includes('.') ? 1 : 0;
    t.fractions += body.includes('.') ? 1 : 0;
    return true;
  }
  if (!/^\d[\d.,]*$/.test(body)) return false;
  const lastDot = body.lastIndexOf('.');
  const lastComma = body.lastIndexOf(',');
  if (lastDot !== -1 && lastComma !== -1) {
    if (lastComma > lastDot) t.commaDecimal++;
    else t.dotDecimal++;
    t.groups.add(lastComma > lastDot ? '.' : ',');
    t.fractions++;
    return true;
  }
  const sep = lastDot !== -1 ? '.' : ',';
  const parts = body.split(sep);
  const tail = parts[parts.length - 1] as string;
  if (parts.length > 2) {
    // 1.234.567: only a group separator repeats
    t.groups.add(sep);
    if (sep === '.') t.commaDecimal++;
    else t.dotDecimal++;
  } else if (tail.length !== 3) {
    t.fractions++;
    if (sep === ',') t.commaDecimal++;
    else t.dotDecimal++;
  } else if (t.ambiguous === '') t.ambiguous = raw;
  return true;
}

function example(values: readonly string[], decimal: string): string {
  const v = values.find((x) => new RegExp(`\\${decimal}\\d{1,2}\\)?-?$`).test(x) || x.includes(decimal)) ?? values[0] ?? '';
  return JSON.stringify(v);
}

/**
 * The number style of `values`. `wholeCurrency`: the currency of these amounts has no minor unit
 * (JPY, KRW: said by a sign or a currency column), so `1,200` can only be twelve hundred.
 */
export function numberEvidence(values: readonly string[], options: { wholeCurrency?: boolean } = {}): NumberEvidence {
  const filled = values.filter((v) => v !== '');
  const negative = new Set<NegativeForm>();
  const signs: Record<string, number> = {};
  const t: Tally = { commaDecimal: 0, dotDecimal: 0, fractions: 0, groups: new Set(), ambiguous: '' };
  let numeric = 0;
  let digitsOnly = 0;
  let signed = 0;
  for (const raw of filled) {
    const { body, sign, negative: form } = strip(raw);
    if (body === '' || !NUMBERISH.test(body) || (sign !== null && !CURRENCY_SIGN.test(sign))) continue;
    if (!tallySeparators(raw, body, t)) continue;
    numeric++;
    if (form !== null) negative.add(form);
    if (sign !== null) {
      signs[sign] = (signs[sign] ?? 0) + 1;
      signed++;
    }
    if (/^\d+$/.test(raw.trim())) digitsOnly++;
  }
  let decimal: NumberEvidence['decimal'] = null;
  let why: string;
  const { commaDecimal, dotDecimal, ambiguous } = t;
  if (commaDecimal > 0 && dotDecimal === 0) {
    decimal = ',';
    why = `decimal comma: ${commaDecimal} value(s) such as ${example(filled, ',')}`;
  } else if (dotDecimal > 0 && commaDecimal === 0) {
    decimal = '.';
    why = `decimal point: ${dotDecimal} value(s) such as ${example(filled, '.')}`;
  } else if (commaDecimal > 0) {
    why = `values read both ways (${commaDecimal} with a decimal comma, ${dotDecimal} with a decimal point)`;
  } else if (ambiguous !== '' && options.wholeCurrency === true) {
    // 1,200 in a currency without minor units: a group separator, the decimal the other one
    const sep = /\d([.,])\d{3}\D*$/.exec(ambiguous)?.[1] ?? ',';
    decimal = sep === ',' ? '.' : ',';
    t.groups.add(sep as GroupSeparator);
    why = `${JSON.stringify(ambiguous)}: a group separator, as the currency (no minor unit) says`;
  } else if (ambiguous !== '') {
    why = `${JSON.stringify(ambiguous)} reads as a thousands separator or as a decimal with 3 digits`;
  } else {
    decimal = '.';
    why = t.groups.size > 0 ? 'whole numbers with a group separator' : 'no separator in the sample (whole numbers)';
  }
  const group = decimal === null ? null : ([...t.groups].find((g) => g !== decimal) ?? null);
  return { numeric, of: filled.length, decimal, group, why, negative: [...negative], fractions: t.fractions, digitsOnly, signs, signed };
}

/** The currency a sign or code stands for without doubt; null for a sign several currencies write ($, kr). */
export function currencyOfSign(sign: string, known: ReadonlySet<string>): string | null {
  if (known.has(sign)) return sign;
  const table: Record<string, string> = {
    '¥': 'JPY',
    '￥': 'JPY',
    円: 'JPY',
    '\\': 'JPY',
    '€': 'EUR',
    '£': 'GBP',
    '₩': 'KRW',
    원: 'KRW',
    US$: 'USD',
    C$: 'CAD',
    A$: 'AUD',
    NZ$: 'NZD',
    HK$: 'HKD',
    S$: 'SGD',
    R$: 'BRL',
  };
  return table[sign] ?? null;
}

/** Currencies whose amounts have no minor unit. */
export const WHOLE_CURRENCIES = new Set(['JPY', 'KRW', 'ISK', 'VND', 'CLP', 'PYG', 'UGX']);
