/**
 * guess: the YAML of each field of the draft, its evidence as comments. Every scalar is
 * double-quoted JSON text (YAML reads it as is). What is not decided is an `open:` line, which
 * `load` and `preview` refuse until it is decided (src/input/profile/open-choices.ts), with the
 * candidates commented below it.
 */
import { label, runTogether } from './choices.js';
import type { CurrencyDecision } from './currency.js';
import type { FieldProposal, GuessColumn } from './fields.js';

export const q = (s: string): string => JSON.stringify(s);
/** A comment's text on one line. */
export const c = (s: string): string => s.replace(/[\r\n]+/g, ' ');
export const samples = (values: readonly string[]): string =>
  [...new Set(values.filter((v) => v !== ''))]
    .slice(0, 3)
    .map((v) => q(v.length > 40 ? `${v.slice(0, 40)}…` : v))
    .join(', ') || '(all empty)';
export const pct = (n: number, of: number): string => `${of === 0 ? 0 : Math.round((n / of) * 100)}%`;

export const ref = (g: GuessColumn): string =>
  g.at !== null ? `at: [${g.at[0]}, ${g.at[1]}]` : g.name !== null && g.name !== '' ? `column: ${q(g.name)}` : `column: ${g.index}`;

/** `open:` with its texts (one key, a list when there are several), at `indent`. */
export function openLines(texts: readonly string[], indent: string): string[] {
  if (texts.length === 0) return [];
  if (texts.length === 1) return [`${indent}open: ${q(texts[0] as string)}`];
  return [`${indent}open:`, ...texts.map((t) => `${indent}  - ${q(t)}`)];
}

/** The lines of one field; `open` collects the open choices' texts (as load names them). */
export function fieldLines(p: FieldProposal, columns: GuessColumn[], currency: CurrencyDecision, open: string[]): string[] {
  const texts: string[] = [];
  const choose = (text: string) => {
    open.push(`columns.${p.field}: ${text}`);
    texts.push(text);
  };
  const lines = fieldBody(p, columns, currency, choose);
  return [`  ${p.field}:`, ...openLines(texts, '    '), ...lines];
}

function fieldBody(p: FieldProposal, columns: GuessColumn[], currency: CurrencyDecision, choose: (text: string) => void): string[] {
  const out: string[] = [];
  if (p.field === 'currency' && p.column === null) return currencyLines(currency, choose);
  const col = p.column;
  if (col === null) {
    const joined = columns.find(runTogether);
    const why =
      joined?.at == null
        ? ''
        : ` (at [${joined.at.join(', ')}] holds ${Math.max(...joined.values.map((v) => v.length))} digits on every line: fields that run together, which guess cannot split: the record layout says where each starts)`;
    choose(p.open ?? `${p.field}: no column was found for it: write column: (or at: for fixed width)${why}`);
    for (const g of p.others !== undefined && p.others.length > 0 ? p.others : columns.slice(0, 8))
      out.push(`    # ${ref(g)}   # ${c(samples(g.values))}`);
    return out;
  }
  out.push(`    # ${c(p.why.join('; '))}; samples: ${c(samples(col.values))}`);
  out.push(`    ${ref(col)}`);
  for (const g of p.others ?? []) out.push(`    # also fits: ${label(g)}: ${c(samples(g.values))}`);
  if (p.field === 'source_key')
    out.push('    # prefix: "XX-"   # optional: put before every key, when keys of several systems share the table');
  if (p.field === 'order_date') out.push(...dateLines(p, choose));
  if (p.field === 'amount') out.push(...amountLines(p, currency, choose));
  if (p.field === 'currency' && p.currency !== undefined && p.currency.codes < col.values.length && p.currency.top !== null) {
    out.push(`    # ${col.values.length - p.currency.codes} of ${col.values.length} values are empty or not a code; when empty:`);
    out.push(`    # default: ${q(p.currency.top)}`);
  }
  return out;
}

function dateLines(p: FieldProposal, choose: (text: string) => void): string[] {
  const d = p.date;
  if (d === undefined) return [];
  const out: string[] = [];
  const hits = d.masks.map((m) => `${m.mask} ${m.hits}/${d.of} (${pct(m.hits, d.of)})`).join(', ');
  out.push(`    # date masks that fit: ${hits || 'none'}`);
  if (d.ambiguous !== null) {
    const [a, b] = d.ambiguous.masks;
    out.push(`    # ambiguous: every value reads both as ${a} and as ${b} (${q(d.ambiguous.example)}: day first or month first?)`);
    choose(`date: day first or month first? every value reads as ${a} and as ${b}: write date: with the one the file is in`);
    out.push(`    # date: ${q(a)}`);
    out.push(`    # date: ${q(b)}`);
  } else if (d.chosen !== null && d.chosen.length > 0 && d.readable === d.of) {
    out.push(`    date: [${d.chosen.map(q).join(', ')}]`);
  } else if (d.chosen !== null && d.chosen.length > 0 && d.readable >= 0.8 * d.of) {
    // most values read: the masks are proposed; a line whose date none reads is rejected at load, never read another way
    out.push(
      `    # ${d.of - d.readable} of ${d.of} values no mask reads (${samples(d.unread)}): their lines will be rejected (PARSE_ORDER_DATE)`,
    );
    out.push(`    date: [${d.chosen.map(q).join(', ')}]`);
  } else {
    const unread = d.of - d.readable;
    choose(`date: ${unread} of ${d.of} values read with no mask guess knows: write date: with the mask they are in`);
    if (d.chosen !== null) out.push(`    # date: [${d.chosen.map(q).join(', ')}]   # reads the others`);
  }
  return out;
}

function amountLines(p: FieldProposal, currency: CurrencyDecision, choose: (text: string) => void): string[] {
  const n = p.number;
  if (n === undefined) return [];
  const out: string[] = [`    # number style: ${c(n.why)}`];
  if (n.numeric < n.of) {
    choose(`amount: ${n.of - n.numeric} of ${n.of} values do not read as amounts: check the column and its style`);
  } else if (n.decimal === null) {
    choose('decimal: "," or "."? the sample does not tell (see the number style above)');
    out.push('    # decimal: ","');
    out.push('    # decimal: "."');
  } else out.push(`    decimal: ${q(n.decimal)}`);
  if (n.decimal !== null && n.group !== null) out.push(`    group: ${q(n.group)}`);
  const forms = n.negative.filter((f) => f !== 'trailing -');
  if (forms.length > 0) out.push(`    negative: [${forms.map(q).join(', ')}]`);
  else out.push('    # negative: ["-", "▲", "△", "()"]   # no negative amount in the sample; "-" is read by default');
  if (n.negative.includes('trailing -')) choose('amount: a trailing minus (1234-) is in the sample: no profile form reads it');
  const signs = Object.entries(currency.signs);
  if (signs.length > 0) {
    out.push(`    # currency signs around the amounts: ${signs.map(([s]) => `${q(s)} on ${n.signs[s] ?? 0}`).join(', ')}`);
    out.push(`    currency_signs: { ${signs.map(([s, k]) => `${q(s)}: ${k === null ? 'null' : q(k)}`).join(', ')} }`);
  }
  return out;
}

function currencyLines(currency: CurrencyDecision, choose: (text: string) => void): string[] {
  const s = currency.source;
  if (s.kind === 'sign') return [`    # ${c(s.why)}`, '    amount_sign: true'];
  if (s.kind === 'name')
    return [`    # ${c(s.why)}: taken from it by file_pattern (one profile for every currency's file)`, '    file_group: "currency"'];
  if (s.kind === 'open') {
    choose(s.text);
    // no code offered: the file shows none, and "<code>" (longer than a code) loads nothing if uncommented as it is
    return ['    # const: "<code>"   # the file\'s currency (ISO 4217, such as JPY or USD): the file does not say it'];
  }
  return [];
}
