/**
 * `order-loader guess FILE` (issue 21 §4): read the start of a file (the decompressed content
 * of a gzip file) and draft a load profile, each decision with its evidence as a comment, each
 * thing it could not decide a commented choice. The detectors are pure (encoding.ts,
 * layout.ts, values.ts, fields.ts); this module reads the sample and writes the YAML by hand
 * (comments are the point; every scalar is double-quoted JSON text, which YAML reads as is).
 */
import { UserError } from '../../errors.js';
import { isGzipFile } from '../gzip.js';
import { readContentSample } from '../encoding-sniff.js';
import { guessEncoding, type EncodingGuess } from './encoding.js';
import {
  delimiterCandidates,
  delimiterName,
  describeEndings,
  fixedLayout,
  framing,
  isConsistent,
  sliceUnits,
  splitFields,
  splitLines,
  type DelimiterCandidate,
  type FixedLayout,
} from './layout.js';
import { FIELDS, nameSimilarity, proposeFields, type FieldProposal, type GuessColumn } from './fields.js';
import { dateEvidence, hasFullWidth, numberEvidence } from './values.js';

/** Bytes of the content read: enough lines to judge, small enough to answer at once. */
export const GUESS_SAMPLE_BYTES = 64 * 1024;
/** Records looked at, at most. */
export const GUESS_SAMPLE_RECORDS = 500;

export interface ProfileGuess {
  file: string;
  gzip: boolean;
  sampledBytes: number;
  complete: boolean;
  encoding: EncodingGuess['encoding'];
  format: 'csv' | 'fixed';
  delimiter: string | null;
  header: boolean | null;
  skipLines: number;
  normalize: boolean;
  units: 'bytes' | 'chars' | null;
  when: { at: [number, number]; equals: string } | null;
  /** The column each field is proposed from: a header name, a 1-based number, [start, length], or null. */
  columns: Record<
    (typeof FIELDS)[number],
    {
      column: string | number | null;
      at: [number, number] | null;
      date: string[] | null;
      decimal: string | null;
      group: string | null;
      negative: string[];
    }
  >;
  /** The draft profile, YAML with its evidence as comments. */
  yaml: string;
}

const q = (s: string): string => JSON.stringify(s);
/** A comment's text on one line. */
const c = (s: string): string => s.replace(/[\r\n]+/g, ' ');
const samples = (values: readonly string[]): string =>
  [...new Set(values.filter((v) => v !== ''))]
    .slice(0, 3)
    .map((v) => q(v.length > 40 ? `${v.slice(0, 40)}…` : v))
    .join(', ') || '(all empty)';
const pct = (n: number, of: number): string => `${of === 0 ? 0 : Math.round((n / of) * 100)}%`;

function candidateLine(d: DelimiterCandidate): string {
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

interface Layout {
  format: 'csv' | 'fixed';
  lines: string[];
  comments: string[];
  top: string[];
  columns: GuessColumn[];
  skip: number[];
  delimiter: string | null;
  header: boolean | null;
  skipLines: number;
  fixed: FixedLayout | null;
}

function csvLayout(lines: string[], best: DelimiterCandidate, candidates: DelimiterCandidate[]): Layout {
  const top: string[] = [];
  const comments: string[] = [];
  top.push('format: csv');
  const frame = framing(lines, best.delimiter, best.fields);
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
      ...(frame.trailer.length > 0
        ? [
            `# ${frame.trailer.length} line(s) after the last record (a trailer: its field count differs): ${samples(frame.trailer)}`,
            '#   no profile key drops a trailer of a CSV file: it will be rejected as a line with the wrong field count',
          ]
        : []),
    ],
    columns,
    skip: [],
    delimiter: best.delimiter,
    header: h.header,
    skipLines: frame.banner,
    fixed: null,
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

function fieldLines(p: FieldProposal, columns: GuessColumn[]): string[] {
  const out: string[] = [`  ${p.field}:`];
  const col = p.column;
  const ref = (g: GuessColumn): string =>
    g.at !== null ? `at: [${g.at[0]}, ${g.at[1]}]` : g.name !== null && g.name !== '' ? `column: ${q(g.name)}` : `column: ${g.index}`;
  if (col === null) {
    if (p.field === 'currency') {
      out.push('    # no column holds currency codes: choose the currency every order of this file is in');
      out.push('    # const: "EUR"');
    } else {
      out.push('    # no column was found for it: choose one');
      for (const g of columns.slice(0, 8)) out.push(`    # ${ref(g)}   # ${samples(g.values)}`);
    }
    return out;
  }
  out.push(`    # ${c(p.why.join('; '))}; samples: ${c(samples(col.values))}`);
  out.push(`    ${ref(col)}`);
  if (p.field === 'source_key')
    out.push('    # prefix: "XX-"   # optional: put before every key, when keys of several systems share the table');
  if (p.field === 'order_date' && p.date !== undefined) {
    const d = p.date;
    const hits = d.masks.map((m) => `${m.mask} ${m.hits}/${d.of} (${pct(m.hits, d.of)})`).join(', ');
    out.push(`    # date masks that fit: ${hits || 'none'}`);
    if (d.ambiguous !== null) {
      const [a, b] = d.ambiguous.masks;
      out.push(
        `    # ambiguous: every value reads both as ${a} and as ${b} (${q(d.ambiguous.example)}: day first or month first?); not decided, choose one:`,
      );
      out.push(`    # date: ${q(a)}`);
      out.push(`    # date: ${q(b)}`);
    } else if (d.chosen !== null && d.chosen.length > 0) {
      out.push(`    date: [${d.chosen.map(q).join(', ')}]`);
    } else out.push('    # date: "YYYY-MM-DD"   # no mask read these values: write the one they are in');
  }
  if (p.field === 'amount' && p.number !== undefined) {
    const n = p.number;
    out.push(`    # number style: ${c(n.why)}`);
    if (n.decimal === null) {
      out.push('    # not decided, choose one:');
      out.push('    # decimal: ","');
      out.push('    # decimal: "."');
    } else out.push(`    decimal: ${q(n.decimal)}`);
    if (n.group !== null) out.push(`    group: ${q(n.group)}`);
    const forms = n.negative.filter((f) => f !== 'trailing -');
    if (forms.length > 0) out.push(`    negative: [${forms.map(q).join(', ')}]`);
    else out.push('    # negative: ["-", "▲", "()"]   # no negative amount in the sample; "-" is read by default');
    if (n.negative.includes('trailing -')) out.push('    # a trailing minus (1234-) is in the sample: no profile form reads it');
  }
  if (p.field === 'currency' && p.currency !== undefined && p.currency.codes < col.values.length && p.currency.top !== null) {
    out.push(`    # ${col.values.length - p.currency.codes} of ${col.values.length} values are empty or not a code; when empty:`);
    out.push(`    # default: ${q(p.currency.top)}`);
  }
  return out;
}

/** The draft profile of `sample` (the start of the file's content). Throws UserError when it is no text. */
export function guessFromSample(file: string, sample: Uint8Array, complete: boolean, gzip = false): ProfileGuess {
  const enc = guessEncoding(sample, complete);
  if ('notText' in enc) throw new UserError(`${file}: ${enc.notText}`);
  const { lines: allLines, endings } = splitLines(enc.text);
  const lines = allLines.slice(0, GUESS_SAMPLE_RECORDS + 20);
  if (lines.every((l) => l.trim() === '')) throw new UserError(`${file}: no line of text in the first ${sample.length} bytes`);
  const fullWidth = hasFullWidth(enc.text);
  const candidates = delimiterCandidates(lines);
  const best = candidates.find(isConsistent);
  let layout: Layout;
  if (best !== undefined) layout = csvLayout(lines, best, candidates);
  else {
    const fixed = fixedLayout(lines, enc.encoding);
    if (fixed === null) {
      // one column of text, or lines of no common shape: a CSV of one field is the closest draft
      layout = csvLayout(lines, { delimiter: ',', fields: 1, lines: lines.length, of: lines.length }, candidates);
      layout.comments.push('no delimiter splits the lines and no fixed-width boundary was seen: check the format');
    } else {
      const columns: GuessColumn[] = fixed.fields.map(([s, l], i) => ({
        index: i + 1,
        name: null,
        at: [s, l],
        values: fixed.records.slice(0, GUESS_SAMPLE_RECORDS).map((r) => sliceUnits(r, s, l, enc.encoding, fixed.units)),
      }));
      layout = {
        format: 'fixed',
        lines,
        comments: [`delimiter candidates: ${candidates.length === 0 ? 'none split a line' : candidates.map(candidateLine).join('; ')}`],
        top: fixedTop(fixed, enc.encoding),
        columns,
        // the record type column is no field
        skip: fixed.recordType !== null && fixed.fields[0]?.[1] === 1 ? [1] : [],
        delimiter: null,
        header: null,
        skipLines: 0,
        fixed,
      };
    }
  }
  const columns = layout.columns.map((g) => ({ ...g, values: fullWidth ? g.values.map((v) => v.normalize('NFKC').trim()) : g.values }));
  const proposals = proposeFields(columns, { skip: layout.skip });
  const nulls = [...new Set(columns.flatMap((g) => g.values).filter((v) => ['NULL', 'null', 'n/a', 'N/A', '-', '#N/A'].includes(v)))];
  const used = new Set(proposals.map((p) => p.column?.index));
  const unmapped = columns.filter((g) => !used.has(g.index) && !layout.skip.includes(g.index));

  const y: string[] = [];
  y.push(`# Draft load profile written by \`order-loader guess\` from ${c(file)}`);
  y.push(
    `# (${sample.length} bytes${gzip ? ' of its decompressed gzip content' : ''} read${complete ? ': the whole file' : ''}). Check every line before using it;`,
  );
  y.push('# what it could not decide is left as a commented choice.');
  y.push('version: 1');
  y.push(`format: ${layout.format}`);
  for (const why of enc.why) y.push(`# encoding: ${c(why)}`);
  y.push(`encoding: ${q(enc.encoding)}`);
  if (enc.alternative !== null) y.push(`# encoding: ${q(enc.alternative.encoding)}   # ${c(enc.alternative.why)}: choose`);
  y.push(`# line endings: ${describeEndings(endings)} (every kind is read)`);
  for (const line of layout.comments) y.push(`# ${c(line)}`);
  y.push(...layout.top);
  if (fullWidth) {
    y.push('# full-width characters (digits, letters, signs) are in the file: NFKC makes them ASCII before values are read');
    y.push('normalize: nfkc');
  }
  if (nulls.length > 0) y.push(`null_if: [${['', ...nulls].map(q).join(', ')}]   # seen in the sample`);
  else y.push('# null_if: ["", "NULL", "n/a"]   # values read as empty (default [""]); none other seen');
  y.push('columns:');
  for (const p of proposals) y.push(...fieldLines(p, columns));
  if (unmapped.length > 0) {
    y.push('# columns not mapped (left out: extra: ignore is the default):');
    for (const g of unmapped) {
      const label = g.at !== null ? `at [${g.at[0]}, ${g.at[1]}]` : g.name !== null ? q(g.name) : `column ${g.index}`;
      y.push(`#   ${label}: ${c(samples(g.values))}`);
    }
  }
  const yaml = `${y.join('\n')}\n`;

  const result = {} as ProfileGuess['columns'];
  for (const p of proposals) {
    const g = p.column;
    result[p.field] = {
      column: g === null || g.at !== null ? null : g.name !== null && g.name !== '' ? g.name : g.index,
      at: g?.at ?? null,
      date: p.date !== undefined && p.date.ambiguous === null ? p.date.chosen : null,
      decimal: p.number?.decimal ?? null,
      group: p.number?.group ?? null,
      negative: (p.number?.negative ?? []).filter((f) => f !== 'trailing -'),
    };
  }
  return {
    file,
    gzip,
    sampledBytes: sample.length,
    complete,
    encoding: enc.encoding,
    format: layout.format,
    delimiter: layout.delimiter,
    header: layout.header,
    skipLines: layout.skipLines,
    normalize: fullWidth,
    units: layout.fixed?.units ?? null,
    when: layout.fixed?.recordType == null ? null : { at: [1, 1], equals: layout.fixed.recordType.equals },
    columns: result,
    yaml,
  };
}

/** Read the start of `path` (decompressed when gzip) and draft its profile. A file that cannot be read: UserError saying why. */
export async function guessProfile(path: string): Promise<ProfileGuess> {
  let read: { sample: Buffer; complete: boolean };
  let gzip: boolean;
  try {
    gzip = await isGzipFile(path);
    read = await readContentSample(path, GUESS_SAMPLE_BYTES);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UserError(`${path}: no such file`, { cause: error });
    if (code === 'EISDIR') throw new UserError(`${path}: a directory, not a file`, { cause: error });
    if (code === 'EACCES' || code === 'EPERM') throw new UserError(`${path}: not readable (permission denied)`, { cause: error });
    if (code !== undefined) throw new UserError(`${path}: cannot be read (${code})`, { cause: error });
    throw error;
  }
  if (gzip && read.sample.length === 0) throw new UserError(`${path}: a gzip file whose content could not be read (damaged or empty)`);
  return guessFromSample(path, read.sample, read.complete, gzip);
}

export { dateEvidence, numberEvidence };
