/**
 * guess: the order date and the amount, where several columns fit. Pure. A header name decides
 * the date (`Order Date` over `Shipped Date`); values decide the amount: the order's amount is its
 * total, so a column that is the sum of two others on every record (Total = Net + Tax) is it, else
 * the one column whose name says total. What nothing decides is an open choice naming the
 * candidates, never the first column that fits.
 */
import type { GuessColumn } from './fields.js';
import { nameSimilarity } from './names.js';
import { strip, type NumberEvidence } from './amounts.js';
import { dateEvidence, dateShare } from './dates.js';

export type ColumnChoice = { column: GuessColumn; why: string[]; others: GuessColumn[] } | { open: string | null; others: GuessColumn[] };

export const label = (g: GuessColumn): string =>
  g.at !== null ? `at [${g.at[0]}, ${g.at[1]}]` : g.name !== null && g.name !== '' ? JSON.stringify(g.name) : `column ${g.index}`;

const listed = (gs: readonly GuessColumn[]): string => gs.map(label).join(', ');

/** The date column: by name (the best-named of the columns of dates), else the one column of dates. */
export function chooseDateColumn(columns: readonly GuessColumn[]): ColumnChoice {
  const dated = columns
    .map((c) => ({ c, e: dateEvidence(c.values), name: c.name === null ? 0 : nameSimilarity(c.name, 'order_date').score }))
    .filter(({ e }) => e.of > 0 && dateShare(e) >= 0.8);
  const allNamed = columns
    .map((c) => ({ c, ...(c.name === null ? { score: 0, like: null } : nameSimilarity(c.name, 'order_date')) }))
    .filter((n) => n.score > 0)
    .sort((a, b) => b.score - a.score || a.c.index - b.c.index);
  // the best name decides; of names alike, the one column that holds dates (`ordered` before `order`)
  const top = allNamed.filter((n) => n.score === allNamed[0]?.score);
  const topDated = top.filter((n) => dated.some((d) => d.c === n.c));
  const named = topDated.length === 1 ? topDated : allNamed;
  const best = named[0];
  const others = (c: GuessColumn) => dated.map((d) => d.c).filter((d) => d !== c);
  if (best !== undefined && (named[1] === undefined || named[1].score < best.score)) {
    return {
      column: best.c,
      why: [`name ${JSON.stringify(best.c.name)} ${best.score === 1 ? 'is' : 'is like'} "${best.like ?? ''}"`],
      others: others(best.c),
    };
  }
  if (best !== undefined) {
    const tied = named.filter((n) => n.score === best.score).map((n) => n.c);
    return { open: `order_date: ${listed(tied)} are named alike: which one is the order's date?`, others: tied };
  }
  const [first, second] = dated;
  if (first === undefined) return { open: null, others: [] };
  const same = (a: GuessColumn, b: GuessColumn) => a.values.every((v, i) => v === b.values[i]);
  if (second !== undefined && dated.some((d) => !same(d.c, first.c)))
    return {
      open: `order_date: ${listed(dated.map((d) => d.c))} all hold dates, and no header says which is the order's`,
      others: dated.map((d) => d.c),
    };
  const { readable, of } = first.e;
  return { column: first.c, why: [`${readable} of ${of} values read as dates`], others: others(first.c) };
}

/** An amount as cents, read with the column's separators; null when it is no number. */
function cents(value: string, e: NumberEvidence): number | null {
  const { body, negative } = strip(value);
  if (e.decimal === null) return null;
  const plain = body
    .replace(/[ \u00a0\u202f']/g, '')
    .replaceAll(e.decimal === ',' ? '.' : ',', '')
    .replace(',', '.');
  if (!/^\d+(\.\d+)?$/.test(plain)) return null;
  return Math.round(Number(plain) * 100) * (negative === null ? 1 : -1);
}

/** A column that is the sum of two others on every record, with the two. */
function sumOf(
  candidates: ReadonlyArray<{ c: GuessColumn; e: NumberEvidence }>,
  numbers: ReadonlyArray<{ c: GuessColumn; e: NumberEvidence }>,
): { total: GuessColumn; parts: [GuessColumn, GuessColumn]; rows: number } | null {
  const read = new Map(numbers.map(({ c, e }) => [c.index, c.values.map((v) => (v === '' ? null : cents(v, e)))]));
  for (const t of candidates) {
    const tv = read.get(t.c.index) ?? [];
    for (const a of numbers)
      for (const b of numbers) {
        if (a.c.index >= b.c.index || a.c === t.c || b.c === t.c) continue;
        const av = read.get(a.c.index) ?? [];
        const bv = read.get(b.c.index) ?? [];
        const rows = tv.filter((x, i) => x !== null && av[i] != null && bv[i] != null && x === (av[i] ?? 0) + (bv[i] ?? 0)).length;
        if (rows > 0 && rows === tv.filter((x) => x !== null).length && tv.some((x, i) => x !== 0 && x !== av[i] && x !== bv[i]))
          return { total: t.c, parts: [a.c, b.c], rows };
      }
  }
  return null;
}

const TOTAL_WORDS = /total|gross|grand|brutto|gesamt|ttc|税込|合計|総額/i;

/** The amount column: the one named like an amount; of several, the total (by the sums, else by the name); else by the values. */
/**
 * More digits in a row than an amount holds (order_stage.amount: 16 before the point) on every
 * value: fields whose digits run together in a fixed-width record (K0000001|100101|20261201), no
 * amount.
 */
export function runTogether(c: GuessColumn): boolean {
  const filled = c.values.filter((v) => v !== '');
  return filled.length > 0 && filled.every((v) => /\d{17}/.test(v));
}

export function chooseAmountColumn(columns: readonly GuessColumn[], numberOf: (c: GuessColumn) => NumberEvidence): ColumnChoice {
  const numbers = columns
    .filter((c) => !runTogether(c))
    .map((c) => ({ c, e: numberOf(c) }))
    .filter(({ e }) => e.of > 0 && e.numeric / e.of >= 0.8);
  // a column named like an amount is the amount's candidate whatever its values (the draft says when they do not read)
  const named = columns.filter((c) => c.name !== null && nameSimilarity(c.name, 'amount').score > 0).map((c) => ({ c, e: numberOf(c) }));
  const only = named.length === 1 ? named[0] : undefined;
  if (only !== undefined) {
    const { c } = only;
    const { like, score } = nameSimilarity(c.name ?? '', 'amount');
    return { column: c, why: [`name ${JSON.stringify(c.name)} ${score === 1 ? 'is' : 'is like'} "${like ?? ''}"`], others: [] };
  }
  if (named.length > 1) {
    const others = (t: GuessColumn) => named.map((n) => n.c).filter((c) => c !== t);
    const sum = sumOf(
      named.filter((n) => numbers.some((m) => m.c === n.c)),
      numbers,
    );
    if (sum !== null)
      return {
        column: sum.total,
        why: [
          `${label(sum.total)} = ${label(sum.parts[0])} + ${label(sum.parts[1])} on every record (${sum.rows}): an order's amount is its total`,
        ],
        others: others(sum.total),
      };
    const totals = named.filter(({ c }) => TOTAL_WORDS.test(c.name ?? ''));
    if (totals.length === 1) {
      const t = (totals[0] as { c: GuessColumn }).c;
      return {
        column: t,
        why: [`of the amounts ${listed(named.map((n) => n.c))}, the name ${JSON.stringify(t.name)} says total`],
        others: others(t),
      };
    }
    return {
      open: `amount: ${listed(named.map((n) => n.c))} all hold amounts and nothing tells which is the order's total`,
      others: named.map((n) => n.c),
    };
  }
  // no name: a fraction, a negative form, a sign or a group separator says amount; else the one column of numbers
  const signed = numbers.filter(({ e }) => e.fractions > 0 || e.negative.length > 0 || e.group !== null || e.signed > 0);
  const pick = signed[0] ?? (numbers.length === 1 ? numbers[0] : undefined);
  if (pick === undefined && numbers.length > 1) {
    const whole = numbers.map((n) => n.c);
    return { open: `amount: ${listed(whole)} all hold whole numbers and no header says which is the amount`, others: whole };
  }
  if (pick === undefined) return { open: null, others: [] };
  const what = signed.length > 0 ? 'amounts (fractions, signs or separators)' : 'numbers (the only column of numbers)';
  return { column: pick.c, why: [`${pick.e.numeric} of ${pick.e.of} values read as ${what}`], others: [] };
}
