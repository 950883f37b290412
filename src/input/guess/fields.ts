/**
 * guess: which column holds each of the five fields (issue 21 §4). Pure. A header name like a
 * field's (English, German and Japanese names a file of orders uses) decides first; then the
 * values: dates by mask, amounts by their number style, ISO currency codes; what is left, the
 * first column of distinct values is the order's key and the first of digits the customer.
 */
import { currencyEvidence, dateEvidence, dateShare, numberEvidence, type DateEvidence, type NumberEvidence } from './values.js';

export const FIELDS = ['source_key', 'customer_id', 'order_date', 'amount', 'currency'] as const;
export type Field = (typeof FIELDS)[number];

export interface GuessColumn {
  /** 1-based position (a CSV field, or a fixed-width field in layout order). */
  index: number;
  /** Its header name, or null without a header. */
  name: string | null;
  /** Fixed width: [start, length], 1-based, in the layout's units. */
  at: [number, number] | null;
  /** Its values over the sample's records, trimmed (and NFKC-normalized when that is proposed). */
  values: string[];
}

export interface FieldProposal {
  field: Field;
  column: GuessColumn | null;
  /** Why this column (name similarity, value pattern), one phrase each. */
  why: string[];
  date?: DateEvidence;
  number?: NumberEvidence;
  currency?: ReturnType<typeof currencyEvidence>;
}

const SYNONYMS: Record<Field, string[]> = {
  source_key: [
    'source_key',
    'order no',
    'order number',
    'order id',
    'order',
    'order nr',
    'bestellnr',
    'bestellnummer',
    'bestellung',
    'auftragsnr',
    'auftragsnummer',
    'auftrag',
    'belegnr',
    'beleg',
    'key',
    'ref',
    'reference',
    'document no',
    '注文番号',
    '受注番号',
    '伝票番号',
    '注文no',
    'オーダー番号',
  ],
  customer_id: [
    'customer_id',
    'customer',
    'customer no',
    'customer number',
    'client',
    'account',
    'kunde',
    'kundennr',
    'kundennummer',
    'kunden nr',
    'debitor',
    '顧客',
    '顧客番号',
    '顧客コード',
    '得意先',
    '得意先コード',
    '取引先',
  ],
  order_date: [
    'order_date',
    'date',
    'order date',
    'datum',
    'bestelldatum',
    'auftragsdatum',
    'belegdatum',
    '日付',
    '注文日',
    '受注日',
    '伝票日付',
  ],
  amount: ['amount', 'total', 'sum', 'value', 'net', 'gross', 'betrag', 'summe', 'gesamt', 'wert', '金額', '合計', '合計金額', '税込金額'],
  currency: ['currency', 'cur', 'ccy', 'curr', 'währung', 'waehrung', 'whg', 'devise', '通貨', '通貨コード'],
};

/** A name as compared: NFKC, lower case, no spaces, dots, underscores, #, hyphens. */
export function normalizeName(name: string): string {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s._#\-/:()]+/g, '');
}

/** How like a field's names a header name is: 1 equal to one, 0.7 one within the other, 0. */
export function nameSimilarity(name: string, field: Field): { score: number; like: string | null } {
  const n = normalizeName(name);
  if (n === '') return { score: 0, like: null };
  let best: { score: number; like: string | null } = { score: 0, like: null };
  for (const synonym of SYNONYMS[field]) {
    const s = normalizeName(synonym);
    const score = n === s ? 1 : (s.length >= 2 && n.includes(s)) || (n.length >= 3 && s.startsWith(n)) ? 0.7 : 0;
    if (score > best.score) best = { score, like: synonym };
  }
  return best;
}

const pct = (n: number, of: number) => `${n} of ${of}`;

/** The proposals for the five fields, in FIELDS order. */
export function proposeFields(columns: readonly GuessColumn[], options: { skip?: readonly number[] } = {}): FieldProposal[] {
  const free = new Set(columns.filter((c) => !(options.skip ?? []).includes(c.index)).map((c) => c.index));
  const byIndex = new Map(columns.map((c) => [c.index, c]));
  const out = new Map<Field, FieldProposal>();
  const take = (field: Field, column: GuessColumn, why: string[]) => {
    free.delete(column.index);
    out.set(field, { field, column, why });
  };
  // 1. names, best first
  if (columns.some((c) => c.name !== null)) {
    const pairs: Array<{ field: Field; column: GuessColumn; score: number; like: string }> = [];
    for (const column of columns)
      for (const field of FIELDS) {
        if (column.name === null) continue;
        const { score, like } = nameSimilarity(column.name, field);
        if (score > 0 && like !== null) pairs.push({ field, column, score, like });
      }
    pairs.sort((a, b) => b.score - a.score || a.column.index - b.column.index);
    for (const p of pairs) {
      if (out.has(p.field) || !free.has(p.column.index)) continue;
      const how = p.score === 1 ? 'is' : 'is like';
      take(p.field, p.column, [`name ${JSON.stringify(p.column.name)} ${how} "${p.like}"`]);
    }
  }
  const left = () => [...free].map((i) => byIndex.get(i) as GuessColumn);
  const filled = (c: GuessColumn) => c.values.filter((v) => v !== '');
  // 2. values: dates, amounts, currencies
  if (!out.has('order_date')) {
    const dated = left()
      .map((c) => ({ c, e: dateEvidence(c.values) }))
      .filter(({ e }) => e.of > 0 && dateShare(e) >= 0.8)
      .sort((a, b) => dateShare(b.e) - dateShare(a.e));
    const first = dated[0];
    if (first !== undefined) take('order_date', first.c, [`${pct(first.e.readable, first.e.of)} values read as dates`]);
  }
  if (!out.has('currency')) {
    const coded = left()
      .map((c) => ({ c, e: currencyEvidence(c.values) }))
      .filter(({ e }) => e.of > 0 && e.codes / e.of >= 0.8 && e.known > 0);
    const first = coded[0];
    if (first !== undefined)
      take('currency', first.c, [`${pct(first.e.codes, first.e.of)} values are currency codes (${first.e.top ?? ''})`]);
  }
  if (!out.has('amount')) {
    const numbers = left()
      .map((c) => ({ c, e: numberEvidence(c.values) }))
      .filter(({ e }) => e.of > 0 && e.numeric / e.of >= 0.8);
    // a fraction, a negative form or a group separator says amount; else the last column of numbers
    const signed = numbers.filter(({ e }) => e.fractions > 0 || e.negative.length > 0 || e.group !== null);
    const pick = signed[0] ?? numbers[numbers.length - 1];
    if (pick !== undefined) {
      const { e } = pick;
      const what = signed.length > 0 ? 'amounts (fractions, signs or separators)' : 'numbers (the last column of numbers)';
      take('amount', pick.c, [`${pct(e.numeric, e.of)} values read as ${what}`]);
    }
  }
  // 3. the key: the first column of distinct values; the customer: the first column of digits
  if (!out.has('source_key')) {
    const varying = left().filter((c) => new Set(filled(c)).size > 1);
    const distinct = varying.find((c) => filled(c).length > 0 && new Set(filled(c)).size === c.values.length);
    const pick = distinct ?? varying[0];
    if (pick !== undefined)
      take('source_key', pick, [
        distinct === undefined ? 'the first column left (its values repeat: check it)' : 'the first column whose values are all distinct',
      ]);
  }
  if (!out.has('customer_id')) {
    const digits = left().find((c) => filled(c).length > 0 && filled(c).filter((v) => /^\d+$/.test(v)).length / filled(c).length >= 0.8);
    if (digits !== undefined) take('customer_id', digits, ['the first column left whose values are digits']);
  }
  // evidence of the value patterns for the chosen columns (also when a name chose them)
  return FIELDS.map((field) => {
    const p = out.get(field) ?? { field, column: null, why: [] };
    const values = p.column?.values ?? [];
    if (p.column === null) return p;
    if (field === 'order_date') {
      p.date = dateEvidence(values);
      if (p.why[0]?.startsWith('name') === true) p.why.push(`${pct(p.date.readable, p.date.of)} values read as dates`);
    }
    if (field === 'amount') p.number = numberEvidence(values);
    if (field === 'currency') p.currency = currencyEvidence(values);
    return p;
  });
}
