/**
 * guess: which column holds each of the five fields. Pure. A header name like a
 * field's (English, German and Japanese names a file of orders uses) decides first; then the
 * values: dates by mask, amounts by their number style, ISO currency codes; what is left, the
 * first column of distinct values is the order's key and the first of digits the customer.
 */
import { chooseAmountColumn, chooseDateColumn, runTogether } from './choices.js';
import { FIELDS, nameSimilarity, type Field } from './names.js';
import { currencyEvidence, dateEvidence, numberEvidence, type DateEvidence, type NumberEvidence } from './values.js';

export { FIELDS, nameSimilarity, normalizeName, type Field } from './names.js';

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
  /** Other columns that fit the field, listed beside the choice (Net and Tax beside Total). */
  others?: GuessColumn[];
  /** What is not decided (several columns fit and nothing tells them apart): an open choice of the draft. */
  open?: string;
}

const pct = (n: number, of: number) => `${n} of ${of}`;

/** Each column whose header name is like one of the fields' names, with that field: best first, then in column order. */
function nameMatches(
  columns: readonly GuessColumn[],
  fields: readonly Field[],
): Array<{ field: Field; column: GuessColumn; score: number; like: string }> {
  const pairs: Array<{ field: Field; column: GuessColumn; score: number; like: string }> = [];
  for (const column of columns)
    for (const field of fields) {
      if (column.name === null) continue;
      const { score, like } = nameSimilarity(column.name, field);
      if (score > 0 && like !== null) pairs.push({ field, column, score, like });
    }
  pairs.sort((a, b) => b.score - a.score || a.column.index - b.column.index);
  return pairs;
}

/** The proposals for the five fields, in FIELDS order. */
export function proposeFields(
  columns: readonly GuessColumn[],
  options: { skip?: readonly number[]; wholeCurrency?: boolean } = {},
): FieldProposal[] {
  const free = new Set(columns.filter((c) => !(options.skip ?? []).includes(c.index)).map((c) => c.index));
  const byIndex = new Map(columns.map((c) => [c.index, c]));
  const out = new Map<Field, FieldProposal>();
  const take = (field: Field, column: GuessColumn, why: string[], others: GuessColumn[] = []) => {
    free.delete(column.index);
    out.set(field, { field, column, why, ...(others.length > 0 ? { others } : {}) });
  };
  const left = () => [...free].map((i) => byIndex.get(i) as GuessColumn);
  const numberOf = (c: GuessColumn) => numberEvidence(c.values, { wholeCurrency: options.wholeCurrency === true });
  // 1. the order date and the amount first: several columns may fit them, and the evidence decides
  const date = chooseDateColumn(left());
  // an open choice keeps its candidates: no other field takes them
  const leaveOpen = (field: Field, open: string, others: GuessColumn[]) => {
    for (const g of others) free.delete(g.index);
    out.set(field, { field, column: null, why: [], open, others });
  };
  if ('column' in date) take('order_date', date.column, date.why, date.others);
  else if (date.open !== null) leaveOpen('order_date', date.open, date.others);
  const amount = chooseAmountColumn(left(), numberOf);
  if ('column' in amount) take('amount', amount.column, amount.why, amount.others);
  else if (amount.open !== null) leaveOpen('amount', amount.open, amount.others);
  // 2. names, best first
  for (const p of nameMatches(left(), ['source_key', 'customer_id', 'currency'])) {
    if (out.has(p.field) || !free.has(p.column.index)) continue;
    take(p.field, p.column, [`name ${JSON.stringify(p.column.name)} ${p.score === 1 ? 'is' : 'is like'} "${p.like}"`]);
  }
  const filled = (c: GuessColumn) => c.values.filter((v) => v !== '');
  // 3. values: currency codes; the key: the first column of distinct values; the customer: the first of digits
  if (!out.has('currency')) {
    const coded = left()
      .map((c) => ({ c, e: currencyEvidence(c.values) }))
      .filter(({ e }) => e.of > 0 && e.codes / e.of >= 0.8 && e.known > 0);
    const first = coded[0];
    if (first !== undefined)
      take('currency', first.c, [`${pct(first.e.codes, first.e.of)} values are currency codes (${first.e.top ?? ''})`]);
  }
  if (!out.has('source_key')) {
    // a key holds no run of blanks: a fixed-width field that does (a name and an amount run together) is no key
    // nor does a fixed-width field of more digits in a row than a field holds (fields run together there)
    const varying = left().filter(
      (c) => new Set(filled(c)).size > 1 && !filled(c).some((v) => /\s{2,}/.test(v)) && !(c.at !== null && runTogether(c)),
    );
    const distinct = varying.find((c) => filled(c).length > 0 && new Set(filled(c)).size === c.values.length);
    const pick = distinct ?? varying[0];
    if (pick !== undefined)
      take('source_key', pick, [
        distinct === undefined ? 'the first column left (its values repeat: check it)' : 'the first column whose values are all distinct',
      ]);
  }
  if (!out.has('customer_id')) {
    const digits = left().find(
      (c) =>
        filled(c).length > 0 &&
        filled(c).filter((v) => /^\d+$/.test(v)).length / filled(c).length >= 0.8 &&
        !(c.at !== null && runTogether(c)),
    );
    if (digits !== undefined) take('customer_id', digits, ['the first column left whose values are digits']);
  }
  // evidence of the value patterns for the chosen columns (also when a name chose them)
  return FIELDS.map((field) => {
    const p = out.get(field) ?? { field, column: null, why: [] };
    if (p.column === null) return p;
    const values = p.column.values;
    if (field === 'order_date') {
      p.date = dateEvidence(values);
      if (p.why[0]?.startsWith('name') === true) p.why.push(`${pct(p.date.readable, p.date.of)} values read as dates`);
    }
    if (field === 'amount') p.number = numberOf(p.column);
    if (field === 'currency') p.currency = currencyEvidence(values);
    return p;
  });
}
