/**
 * guess: a `control:` section when a record the sample sets apart states the file's own totals:
 * a field that equals the number of data records, a field that equals the sum of the amounts
 * (read with the amount column's separators). The records looked at: a CSV file's last line (a
 * trailer) or first line (a header record, before header-less records or before the column
 * names), a workbook's last row (a totals row), a JSON Lines file's last object when it is no
 * order (json-sample.ts). Said with its evidence; proposed only when the sample is the whole file
 * (otherwise the figures cannot be compared) and a field tells the record apart from the data.
 */
import { addDecimal, decimalEquals, formatDecimal, parseDecimal, ZERO_SUM, type DecimalSum } from '../control/decimal-sum.js';
import { columnLetters } from '../formats/xlsx-cells.js';
import { canonicalAmount, groupCodes } from '../profile/amount-form.js';
import { c, q } from './draft.js';
import type { FieldProposal, GuessColumn } from './fields.js';
import { splitFields } from './layout.js';
import type { Layout } from './sample-layout.js';

/** A number written with these separators (a leading minus), exact; null when it is none. */
function readNumber(text: string, decimal: string, group: string | undefined): DecimalSum | null {
  const t = text.trim();
  const negative = t.startsWith('-');
  const plain = canonicalAmount(negative ? t.slice(1) : t, decimal, group, groupCodes(group));
  return plain === null ? null : parseDecimal(`${negative ? '-' : ''}${plain}`);
}

/** A field of a candidate record: how the profile names it (a number, a letter, a path), how a comment does, its text. */
interface Cell {
  ref: number | string;
  label: string;
  value: string;
}

/** A record that may state the file's totals, and the fields whose value may tell it apart from the data records. */
interface Candidate {
  kind: 'trailer' | 'header';
  /** What its count counts: `data lines`, `data rows`. */
  records: string;
  /** `the last line (T|3|5380.50)` */
  said: string;
  cells: Cell[];
  /** The fields a rule may test, each with the values the data records have there; the first that tells it apart is taken. */
  rule: Array<{ cell: Cell; data: readonly string[] }>;
}

interface Found {
  count: Cell | null;
  sum: Cell | null;
  evidence: string[];
}

/** What one candidate states: the field of the count and of the sum (null: it states nothing found). */
function fromRecord(
  candidate: Candidate,
  records: number,
  sum: DecimalSum | null,
  number: { decimal: string; group?: string },
): Found | null {
  const ruled = candidate.rule.length === 1 ? candidate.rule[0]?.cell : undefined;
  const cells = candidate.cells.filter((cell) => cell !== ruled);
  const count = cells.find((f) => /^\d+$/.test(f.value.trim()) && Number(f.value.trim()) === records) ?? null;
  const total =
    sum === null
      ? null
      : (cells.find((f) => {
          if (f === count) return false;
          const v = readNumber(f.value, number.decimal, number.group);
          return v !== null && decimalEquals(v, sum);
        }) ?? null);
  if (count === null && total === null) return null;
  const evidence: string[] = [];
  if (count !== null) evidence.push(`${count.label} (${q(count.value.trim())}) equals the number of ${candidate.records} (${records})`);
  if (total !== null && sum !== null)
    evidence.push(`${total.label} (${q(total.value.trim())}) equals the sum of the amounts (${formatDecimal(sum)})`);
  return { count, sum: total, evidence };
}

/** The sum of a column's values (the amounts), or null when one cannot be read. */
function valuesSum(values: readonly string[] | undefined, number: { decimal: string; group?: string }): DecimalSum | null {
  if (values === undefined) return null;
  let sum: DecimalSum = ZERO_SUM;
  for (const v of values) {
    const n = v === '' ? null : readNumber(v, number.decimal, number.group);
    if (n === null) return null;
    sum = addDecimal(sum, n);
  }
  return sum;
}

/** The records of the sample that may state its totals, by its format. */
function candidates(layout: Layout): Candidate[] {
  const first = layout.columns[0];
  if (first === undefined) return [];
  const data = first.values;
  const out: Candidate[] = [];
  const fields = (values: string[], name: (i: number) => string, ref: (i: number) => number | string): Cell[] =>
    values.map((value, i) => ({ ref: ref(i), label: name(i), value }));
  const trailer = layout.trailer.length === 1 ? layout.trailer[0] : undefined;
  if (layout.format === 'csv' && layout.delimiter !== null) {
    const byNumber = (values: string[]) =>
      fields(
        values,
        (i) => `field ${i + 1}`,
        (i) => i + 1,
      );
    if (trailer !== undefined) {
      const cells = byNumber(trailer);
      out.push({
        kind: 'trailer',
        records: 'data lines',
        said: `the last line (${trailer.join(layout.delimiter)})`,
        cells,
        rule: cells.slice(0, 1).map((cell) => ({ cell, data })),
      });
    }
    // a header record before header-less records, or before the column names (then a banner line to the layout)
    const top = layout.lines.find((l) => l.trim() !== '');
    if (layout.skipLines > 0 && top !== undefined) {
      const cells = byNumber(splitFields(top, layout.delimiter));
      const names = layout.header === true ? ', before the column names' : '';
      out.push({
        kind: 'header',
        records: 'data lines',
        said: `the first line (${top}${names})`,
        cells,
        rule: cells.slice(0, 1).map((cell) => ({ cell, data })),
      });
    }
  }
  if (layout.format === 'xlsx' && trailer !== undefined) {
    const cells = fields(
      trailer,
      (i) => `column ${columnLetters(i + 1)}`,
      (i) => columnLetters(i + 1),
    );
    out.push({
      kind: 'trailer',
      records: 'data rows',
      said: `the last row (${trailer.join(',')})`,
      cells,
      rule: cells.slice(0, 1).map((cell) => ({ cell, data })),
    });
  }
  const json = layout.jsonTrailer;
  if (layout.format === 'jsonl' && json !== undefined && json !== null) {
    const cells = json.values.map(([path, value]) => ({ ref: path, label: `path ${q(path)}`, value }));
    const column = (path: string): GuessColumn | undefined => layout.columns.find((g) => g.name === path);
    out.push({
      kind: 'trailer',
      records: 'orders before it',
      said: `the last object (${json.text})`,
      cells,
      rule: cells.map((cell) => ({ cell, data: column(cell.ref)?.values ?? [] })),
    });
  }
  return out;
}

/** The `control:` lines of the draft (comments only when a record looks like one but cannot be proposed). */
export function controlLines(layout: Layout, amount: FieldProposal, complete: boolean): string[] {
  const records = layout.columns[0]?.values.length ?? 0;
  const number = { decimal: amount.number?.decimal ?? '.', ...(amount.number?.group ? { group: amount.number.group } : {}) };
  const sum = valuesSum(amount.column?.values, number);
  for (const candidate of candidates(layout)) {
    const found = fromRecord(candidate, records, sum, number);
    if (found === null) continue;
    const said = `# control: ${c(candidate.said)} looks like a ${candidate.kind} record: ${found.evidence.join('; ')}`;
    if (!complete) return [said, '#   not proposed: the sample is not the whole file, so its figures could not be compared'];
    const rule = candidate.rule.find(
      ({ cell, data }) => cell !== found.count && cell !== found.sum && cell.value.trim() !== '' && !data.includes(cell.value.trim()),
    )?.cell;
    if (rule === undefined) {
      const cell = candidate.rule[0]?.cell;
      const why =
        cell === undefined || candidate.rule.length > 1 ? 'no field tells' : `its ${cell.label} (${q(cell.value.trim())}) does not tell`;
      return [said, `#   not proposed: ${why} it apart from the data records`];
    }
    const ref = (cell: Cell) => (typeof cell.ref === 'number' ? String(cell.ref) : q(cell.ref));
    return [
      said,
      '#   (nothing of a file whose figures disagree is merged: its rows stay HELD until `order-loader accept`)',
      'control:',
      `  ${candidate.kind}: { column: ${ref(rule)}, equals: ${q(rule.value.trim())} }`,
      ...(found.count === null ? [] : [`  count: { column: ${ref(found.count)} }`]),
      ...(found.sum === null ? [] : [`  sum: { column: ${ref(found.sum)} }`]),
    ];
  }
  return [];
}

/**
 * A workbook's last row set apart as a totals row (into `layout.trailer`) when it is no order: its
 * column A holds a word no other row has there, and a cell states the number of rows above it or
 * the sum of its own column above it (the row under the orders a spreadsheet adds up). Only for a
 * sample that is the whole sheet; a short totals row is a trailer already (its cell count differs).
 */
export function splitTotalsRow(layout: Layout): void {
  const first = layout.columns[0];
  const n = (first?.values.length ?? 0) - 1;
  if (first === undefined || layout.trailer.length > 0 || n < 2) return;
  const word = (first.values[n] ?? '').trim();
  if (word === '' || first.values.slice(0, n).includes(word)) return;
  const states = layout.columns.slice(1).some((g) => {
    const last = (g.values[n] ?? '').trim();
    if (/^\d+$/.test(last) && Number(last) === n) return true;
    const total = readNumber(last, '.', undefined);
    const sum = valuesSum(g.values.slice(0, n), { decimal: '.' });
    return total !== null && sum !== null && decimalEquals(total, sum);
  });
  if (!states) return;
  layout.trailer.push(layout.columns.map((g) => g.values[n] ?? ''));
  for (const g of layout.columns) g.values = g.values.slice(0, n);
}
