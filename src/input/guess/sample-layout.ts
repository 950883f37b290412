/**
 * guess: how the sample's lines are read: as CSV (delimiter, header, banner, comment and trailer
 * lines) or as fixed width (field boundaries, record type), and the columns with their values.
 */
import { c, pct, q, samples } from './draft.js';
import type { GuessColumn } from './fields.js';
import type { JsonTrailer } from './json-sample.js';
import { FIELDS, nameSimilarity } from './names.js';
import {
  delimiterName,
  fixedLayout,
  framing,
  hashComments,
  sliceUnits,
  splitFields,
  type DelimiterCandidate,
  type FixedLayout,
} from './layout.js';

/** Records looked at, at most. */
export const GUESS_SAMPLE_RECORDS = 500;

export function candidateLine(d: DelimiterCandidate): string {
  return `${delimiterName(d.delimiter)}: ${d.fields} fields on ${d.lines} of ${d.of} lines (${pct(d.lines, d.of)})`;
}

/** Does this row read as names (a header) above the rows below? */
function headerEvidence(first: readonly string[], rest: ReadonlyArray<readonly string[]>): { header: boolean; why: string } {
  const looksLikeData = (v: string) => /^[-+▲(]?[\d０-９][\d０-９.,/\-: ]*\)?-?$/.test(v.trim());
  const dataLike = first.filter((v) => v.trim() === '' || looksLikeData(v));
  const named = first.filter((v) => FIELDS.some((f) => nameSimilarity(v, f).score > 0));
  if (dataLike.length > 0) return { header: false, why: `the first record holds values, not names (${samples(dataLike)})` };
  const typedBelow = first.filter((_, i) => rest.length > 0 && rest.every((r) => looksLikeData(r[i] ?? '')));
  if (named.length > 0 || typedBelow.length > 0)
    return {
      header: true,
      why: `the first record holds names (${named.length} like a field's: ${samples(named)})${typedBelow.length > 0 ? `, ${typedBelow.length} of its columns hold numbers or dates below` : ''}`,
    };
  if (new Set(first).size === first.length && rest.length > 0 && !rest.every((r) => r.some((v, i) => v === first[i])))
    return { header: true, why: 'the first record holds only text, all different: read as names' };
  return { header: false, why: 'the first record looks like the others' };
}

export interface Layout {
  format: 'csv' | 'fixed' | 'xlsx' | 'jsonl';
  lines: string[];
  comments: string[];
  top: string[];
  columns: GuessColumn[];
  skip: number[];
  delimiter: string | null;
  header: boolean | null;
  skipLines: number;
  fixed: FixedLayout | null;
  /** The lines after the last record (a trailer), split as the records are. */
  trailer: string[][];
  /** JSON Lines: the last object, set apart as a trailer (json-sample.ts). */
  jsonTrailer?: JsonTrailer | null;
}

export function csvLayout(lines: string[], best: DelimiterCandidate, candidates: DelimiterCandidate[]): Layout {
  const top: string[] = [];
  const comments: string[] = [];
  top.push('format: csv');
  const frame = framing(lines, best.delimiter, best.fields, hashComments(lines));
  comments.push(`delimiter candidates: ${candidates.length === 0 ? 'none' : candidates.map(candidateLine).join('; ')}`);
  const records = frame.records.slice(0, GUESS_SAMPLE_RECORDS + 1).map((l) => splitFields(l, best.delimiter));
  const [first = [], ...rest] = records;
  const h = headerEvidence(first, rest.slice(0, 50));
  const data = h.header ? rest : records;
  const columns: GuessColumn[] = Array.from({ length: best.fields }, (_, i) => ({
    index: i + 1,
    name: h.header ? (first[i] ?? '').trim() : null,
    at: null,
    values: data.map((r) => (r[i] ?? '').trim()),
  }));
  return {
    format: 'csv',
    lines,
    comments,
    top: [
      `# delimiter: ${candidateLine(best)}`,
      `delimiter: ${q(best.delimiter)}`,
      `# header: ${c(h.why)}`,
      `header: ${String(h.header)}`,
      ...(frame.banner > 0
        ? [
            `# ${frame.banner} line(s) before the ${h.header ? 'header' : 'first record'} (a banner): ${samples(lines.slice(0, frame.banner))}`,
            `skip_lines: ${frame.banner}`,
          ]
        : []),
      ...(frame.comment ? ['# lines starting with "#" are there', 'comment: "#"'] : []),
    ],
    trailer: frame.trailer.map((l) => splitFields(l, best.delimiter)),
    columns,
    skip: [],
    delimiter: best.delimiter,
    header: h.header,
    skipLines: frame.banner,
    fixed: null,
  };
}

/** The layout of a fixed-width sample, or null when no field boundary is seen. */
export function fixedSampleLayout(lines: string[], encoding: string, candidates: DelimiterCandidate[]): Layout | null {
  const fixed = fixedLayout(lines, encoding);
  if (fixed === null) return null;
  const columns: GuessColumn[] = fixed.fields.map(([s, l], i) => ({
    index: i + 1,
    name: null,
    at: [s, l],
    values: fixed.records.slice(0, GUESS_SAMPLE_RECORDS).map((r) => sliceUnits(r, s, l, encoding, fixed.units)),
  }));
  return {
    format: 'fixed',
    lines,
    comments: [`delimiter candidates: ${candidates.length === 0 ? 'none split a line' : candidates.map(candidateLine).join('; ')}`],
    top: fixedTop(fixed, encoding),
    columns,
    // the record type column is no field
    skip: fixed.recordType !== null && fixed.fields[0]?.[1] === 1 ? [1] : [],
    delimiter: null,
    header: null,
    skipLines: 0,
    fixed,
    trailer: [],
  };
}

function fixedTop(f: FixedLayout, enc: string): string[] {
  const boundaries = f.fields.map(([s, l]) => `${s}–${s + l - 1}`).join(', ');
  return [
    `# fixed width: no delimiter splits the lines; the data records are ${f.widths[0] === f.widths[1] ? `${f.widths[0]}` : `${f.widths[0]}–${f.widths[1]}`} ${f.units} long; field boundaries seen: ${boundaries}`,
    `#   (where the kind of character — digit, letter, space, double-byte — changes alike on every record: check them against the record layout)`,
    `units: ${f.units}`,
    ...(f.units === 'bytes' ? [`# units: bytes: a double-byte character counts 2, as a record layout for ${enc} counts it`] : []),
    ...(f.recordType === null
      ? []
      : [
          `# record type in column 1: data records ${q(f.recordType.equals)}; other records (header, trailer) ${f.recordType.others.map(q).join(', ')} are left out`,
          `when: { at: [1, 1], equals: ${q(f.recordType.equals)} }`,
        ]),
  ];
}
