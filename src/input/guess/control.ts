/**
 * guess: a `control:` section when the file's last line (a trailer) or first line (a header
 * record, before header-less records) states the file's own totals: a field that equals the
 * number of data lines, a field that equals the sum of the amounts (read with the amount
 * column's separators). Said with its evidence; proposed only when the sample is the whole file
 * (otherwise the figures cannot be compared) and column 1 tells the record apart from the data.
 */
import { addDecimal, decimalEquals, formatDecimal, parseDecimal, ZERO_SUM, type DecimalSum } from '../control/decimal-sum.js';
import { canonicalAmount, groupCodes } from '../profile/amount-form.js';
import { c, q } from './draft.js';
import type { FieldProposal } from './fields.js';
import { splitFields } from './layout.js';
import type { Layout } from './sample-layout.js';

/** A number written with these separators (a leading minus), exact; null when it is none. */
function readNumber(text: string, decimal: string, group: string | undefined): DecimalSum | null {
  const t = text.trim();
  const negative = t.startsWith('-');
  const plain = canonicalAmount(negative ? t.slice(1) : t, decimal, group, groupCodes(group));
  return plain === null ? null : parseDecimal(`${negative ? '-' : ''}${plain}`);
}

/** The control record proposed from one candidate line, or why not (null: it states nothing found). */
function fromRecord(
  fields: string[],
  records: number,
  sum: DecimalSum | null,
  number: { decimal: string; group: string | undefined },
): { count: number | null; sum: number | null; evidence: string[] } | null {
  const evidence: string[] = [];
  const count = fields.findIndex((f, i) => i > 0 && /^\d+$/.test(f.trim()) && Number(f.trim()) === records);
  if (count > 0) evidence.push(`field ${count + 1} (${q(fields[count]?.trim() ?? '')}) equals the number of data lines (${records})`);
  const total =
    sum === null
      ? -1
      : fields.findIndex((f, i) => {
          if (i === 0 || i === count) return false;
          const v = readNumber(f, number.decimal, number.group);
          return v !== null && decimalEquals(v, sum);
        });
  if (total > 0 && sum !== null)
    evidence.push(`field ${total + 1} (${q(fields[total]?.trim() ?? '')}) equals the sum of the amounts (${formatDecimal(sum)})`);
  if (count <= 0 && total <= 0) return null;
  return { count: count > 0 ? count + 1 : null, sum: total > 0 ? total + 1 : null, evidence };
}

/** The `control:` lines of the draft (comments only when a line looks like one but cannot be proposed). */
export function controlLines(layout: Layout, amount: FieldProposal, complete: boolean): string[] {
  if (layout.format !== 'csv' || layout.delimiter === null) return [];
  const first = layout.columns[0];
  if (first === undefined) return [];
  const records = first.values.length;
  const number = { decimal: amount.number?.decimal ?? '.', group: amount.number?.group ?? undefined };
  let sum: DecimalSum | null = amount.column === null ? null : ZERO_SUM;
  for (const v of amount.column?.values ?? []) {
    const n = v === '' ? null : readNumber(v, number.decimal, number.group);
    if (n === null) sum = null;
    if (n !== null && sum !== null) sum = addDecimal(sum, n);
  }
  const candidates: Array<{ kind: 'trailer' | 'header'; fields: string[] }> = [];
  if (layout.trailer.length === 1 && layout.trailer[0] !== undefined) candidates.push({ kind: 'trailer', fields: layout.trailer[0] });
  // a header record before header-less records (a header record before column names is not read as one)
  const top = layout.lines.find((l) => l.trim() !== '');
  if (layout.header === false && layout.skipLines > 0 && top !== undefined)
    candidates.push({ kind: 'header', fields: splitFields(top, layout.delimiter) });
  for (const { kind, fields } of candidates) {
    const found = fromRecord(fields, records, sum, number);
    if (found === null) continue;
    const line = fields.join(layout.delimiter);
    const word = (fields[0] ?? '').trim();
    const said = `# control: the ${kind === 'trailer' ? 'last' : 'first'} line (${c(line)}) looks like a ${kind} record: ${found.evidence.join('; ')}`;
    if (!complete) return [said, '#   not proposed: the sample is not the whole file, so its figures could not be compared'];
    if (word === '' || first.values.includes(word))
      return [said, `#   not proposed: its field 1 (${q(word)}) does not tell it apart from the data records`];
    return [
      said,
      '#   (nothing of a file whose figures disagree is merged: its rows stay HELD until `order-loader accept`)',
      'control:',
      `  ${kind}: { column: 1, equals: ${q(word)} }`,
      ...(found.count === null ? [] : [`  count: { column: ${found.count} }`]),
      ...(found.sum === null ? [] : [`  sum: { column: ${found.sum} }`]),
    ];
  }
  return [];
}
