/**
 * `order-loader guess FILE`: read the start of a file (the decompressed content of a gzip file)
 * and draft a load profile, each decision with its evidence as a comment. What it cannot decide
 * from the file is an open choice (`open:`, with the candidates commented), which load and
 * preview refuse: a draft is either one that loads the file right, or one that says what is left
 * to decide. The detectors are pure (encoding.ts, formats.ts, layout.ts, dates.ts, amounts.ts,
 * fields.ts, choices.ts, currency.ts, file-name.ts); this module reads the sample and puts the
 * YAML together (comments are the point; every scalar is double-quoted JSON text).
 */
import { UserError } from '../../errors.js';
import { isGzipFile } from '../gzip.js';
import { controlLines, splitTotalsRow } from './control.js';
import { readContentSample } from '../encoding-sniff.js';
import { parseProfileText } from '../profile/load-profile.js';
import { WHOLE_CURRENCIES } from './amounts.js';
import { decideCurrency, type CurrencyDecision } from './currency.js';
import { zoneOfOffsets } from './dates.js';
import { label } from './choices.js';
import { c, fieldLines, openLines, q, samples } from './draft.js';
import { guessEncoding, type EncodingGuess } from './encoding.js';
import { proposeFields, type FieldProposal, type GuessColumn } from './fields.js';
import { fileNameFacts, type FileNameFacts } from './file-name.js';
import { binaryFormat, isWorkbookStart, jsonFormat } from './formats.js';
import { jsonLinesColumns } from './json-sample.js';
import { workbookSample, type WorkbookSample } from './workbook.js';
import { delimiterCandidates, describeEndings, isConsistent, splitLines } from './layout.js';
import { FIELDS } from './names.js';
import { csvLayout, fixedSampleLayout, GUESS_SAMPLE_RECORDS, type Layout } from './sample-layout.js';
import { dateEvidence, hasFullWidth, KNOWN_CURRENCIES, numberEvidence, unguard } from './values.js';

export { GUESS_SAMPLE_RECORDS };
/** Bytes of the content read: enough lines to judge, small enough to answer at once. */
export const GUESS_SAMPLE_BYTES = 64 * 1024;

export interface ProfileGuess {
  file: string;
  gzip: boolean;
  sampledBytes: number;
  complete: boolean;
  /** The profile's name and the file-name pattern it takes (derived from the file's name). */
  name: string;
  match: string;
  encoding: EncodingGuess['encoding'];
  format: 'csv' | 'fixed' | 'xlsx' | 'jsonl';
  /** format: xlsx: the sheet the draft reads (the first with a table). */
  sheet: { name: string; position: number } | null;
  delimiter: string | null;
  header: boolean | null;
  skipLines: number;
  normalize: boolean;
  units: 'bytes' | 'chars' | null;
  when: { at: [number, number]; equals: string } | null;
  timezone: string | null;
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
  /** What the draft leaves open (each an `open:` line load refuses), empty when it loads as it is. */
  open: string[];
  /** The draft profile, YAML with its evidence as comments. */
  yaml: string;
}

const NULL_WORDS = ['NULL', 'null', 'n/a', 'N/A', '-', '#N/A', '\\N'];

/** The sample's layout: the delimiter that splits most lines alike, else fixed width, else one column. */
function layoutOf(lines: string[], encoding: string, workbook: boolean): Layout {
  if (workbook) return sheetLayout(lines);
  const candidates = delimiterCandidates(lines);
  const best = candidates.find(isConsistent);
  if (best !== undefined) return csvLayout(lines, best, candidates);
  const fixed = fixedSampleLayout(lines, encoding, candidates);
  if (fixed !== null) return fixed;
  // one column of text, or lines of no common shape: a CSV of one field is the closest draft
  const layout = csvLayout(lines, { delimiter: ',', fields: 1, lines: lines.length, of: lines.length }, candidates);
  layout.comments.push('no delimiter splits the lines and no fixed-width boundary was seen: check the format');
  return layout;
}

/** A workbook's rows, made CSV lines by the sample: split by that comma, the delimiter's lines left out of the draft. */
function sheetLayout(lines: string[]): Layout {
  const candidates = delimiterCandidates(lines);
  const comma = candidates.find((d) => d.delimiter === ',') ?? { delimiter: ',', fields: 1, lines: lines.length, of: lines.length };
  const layout = csvLayout(lines, comma, candidates);
  return {
    ...layout,
    format: 'xlsx',
    comments: [],
    top: layout.top.filter((l) => !l.startsWith('delimiter:') && !l.startsWith('# delimiter:')),
    delimiter: null,
  };
}

/** A JSON Lines sample's layout: its leaf paths as named columns, no delimiter or header line. */
function jsonLinesLayout(lines: string[], objects: NonNullable<ReturnType<typeof jsonLinesColumns>>): Layout {
  return {
    format: 'jsonl',
    lines,
    comments: [],
    top: [
      `# ${objects.objects} JSON object(s), one per line; each field below is a path into the object (docs/files.md)`,
      ...(objects.trailer === null
        ? []
        : [`# and a last object unlike them (a trailer: it lacks most of their paths): ${c(objects.trailer.text)}`]),
    ],
    columns: objects.columns,
    skip: [],
    delimiter: null,
    header: null,
    skipLines: 0,
    fixed: null,
    trailer: [],
    jsonTrailer: objects.trailer,
  };
}

/** Does the sample say its amounts are in a currency without minor units (a code column, a sign, the name)? */
function wholeCurrencyHint(columns: readonly GuessColumn[], name: FileNameFacts): boolean {
  if (name.currency !== null && WHOLE_CURRENCIES.has(name.currency.code)) return true;
  return columns.some((g) => {
    const filled = g.values.filter((v) => v !== '');
    if (filled.length === 0) return false;
    if (filled.every((v) => WHOLE_CURRENCIES.has(v))) return true;
    const signs = numberEvidence(filled).signs;
    return Object.keys(signs).length > 0 && Object.keys(signs).every((s) => ['¥', '￥', '円', '\\', '₩', '원'].includes(s));
  });
}

/** `when:` that leaves out a CSV trailer (`TOTAL|4|16399.50`): its first field is a word no record has there. */
function trailerLines(layout: Layout, keyColumn: GuessColumn | undefined): string[] {
  if (layout.trailer.length === 0) return [];
  const firsts = [...new Set(layout.trailer.map((t) => (t[0] ?? '').trim()))];
  const first = layout.columns[0];
  const said = `# ${layout.trailer.length} line(s) after the last record (a trailer: its field count differs): ${samples(layout.trailer.map((t) => t.join(layout.delimiter ?? ',')))}`;
  const taken = first === undefined ? [] : first.values;
  if (first === undefined || firsts.some((f) => f === '' || taken.includes(f)))
    return [said, '#   not left out: its first field is no word the records never have there (it will be rejected)'];
  const column = first.name !== null && first.name !== '' && layout.header === true ? q(first.name) : String(first.index);
  // by index: the proposals hold copies of the layout's columns (their values cleaned), never the same object
  const key = keyColumn?.index === first.index ? ' (the key column)' : '';
  return [said, `when: { column: ${column}, not_in: [${firsts.map(q).join(', ')}] }   # leaves the trailer out${key}`];
}

/**
 * The layout's columns as the fields are chosen from them: full-width text normalized (NFKC),
 * Excel's formula guard taken off, a null word seen in the sample (NULL_WORDS) made empty; and
 * the null words seen.
 */
function cleanedColumns(layout: Layout, fullWidth: boolean): { columns: GuessColumn[]; nulls: string[] } {
  const raw = layout.columns.flatMap((g) => g.values);
  const nulls = [...new Set(raw.filter((v) => NULL_WORDS.includes(v)))];
  const columns = layout.columns.map((g) => ({
    ...g,
    values: g.values.map((v) => {
      const value = unguard(fullWidth ? v.normalize('NFKC').trim() : v);
      return nulls.includes(value) ? '' : value;
    }),
  }));
  return { columns, nulls };
}

/** The draft's lines for the columns no field reads (left out, with `extra: "ignore"`), none when every column is read. */
function unmappedLines(layout: Layout, proposals: readonly FieldProposal[]): string[] {
  const used = new Set(proposals.map((p) => p.column?.index));
  const unmapped = layout.columns.filter((g) => !used.has(g.index) && !layout.skip.includes(g.index));
  if (unmapped.length === 0) return [];
  return [
    '# columns not mapped (left out; extra: "ignore" says so, without a warning on every run):',
    ...unmapped.map((g) => `#   ${label(g)}: ${c(samples(g.values))}`),
    'extra: "ignore"',
  ];
}

/** The draft profile of `sample` (the start of the file's content). Throws UserError when it is no order text. */
export function guessFromSample(
  file: string,
  sample: Uint8Array,
  complete: boolean,
  gzip = false,
  /** The sample is the CSV of a workbook's sheet (src/input/guess/workbook.ts). */
  workbook?: WorkbookSample,
): ProfileGuess {
  const binary = workbook === undefined ? binaryFormat(sample) : null;
  if (binary !== null) throw new UserError(`${file}: ${binary}`);
  const enc = guessEncoding(sample, complete);
  if ('notText' in enc) throw new UserError(`${file}: ${enc.notText}`);
  const { lines: allLines, endings } = splitLines(enc.text);
  const lines = allLines.slice(0, GUESS_SAMPLE_RECORDS + 20);
  // the sample's last record is the file's: a trailer in it can be compared with what came before
  const whole = complete && lines.length === allLines.length;
  // JSON Lines (UTF-8, as the reader reads it): each leaf path a column
  const objects = workbook === undefined && enc.encoding === 'utf-8' ? jsonLinesColumns(lines.join('\n'), complete, whole) : null;
  const json = objects === null ? jsonFormat(enc.text, complete, enc.encoding) : null;
  if (json !== null) throw new UserError(`${file}: ${json}`);
  if (lines.every((l) => l.trim() === '')) throw new UserError(`${file}: no line of text in the first ${sample.length} bytes`);
  const fullWidth = hasFullWidth(enc.text);
  const layout = objects === null ? layoutOf(lines, enc.encoding, workbook !== undefined) : jsonLinesLayout(lines, objects);
  if (layout.format === 'xlsx' && whole) splitTotalsRow(layout);
  const { columns, nulls } = cleanedColumns(layout, fullWidth);
  const name = fileNameFacts(file, KNOWN_CURRENCIES);
  const proposals = proposeFields(columns, { skip: layout.skip, wholeCurrency: wholeCurrencyHint(columns, name) });
  // a JSON Lines column was judged by its last name: the draft names it by its whole path
  if (objects !== null) for (const list of [columns, layout.columns]) list.forEach((g, i) => (g.name = objects.paths[i] ?? g.name));
  const byField = (f: (typeof FIELDS)[number]) => proposals.find((p) => p.field === f) as FieldProposal;
  const currency = decideCurrency(byField('amount'), byField('currency'), name);
  const open: string[] = [];
  const y =
    workbook !== undefined
      ? workbookHead(file, workbook, name, currency, layout, fullWidth)
      : draftHead(file, sample.length, complete, gzip, name, currency, enc, endings, layout, fullWidth);
  y.push(...timezoneLines(byField('order_date'), open));
  y.push(...trailerLines(layout, byField('source_key').column ?? undefined));
  const control = controlLines(layout, byField('amount'), whole);
  if (nulls.length > 0) y.push(`null_if: [${['', ...nulls].map(q).join(', ')}]   # seen in the sample`);
  else y.push('# null_if: ["", "NULL", "n/a"]   # values read as empty (default [""]); none other seen');
  y.push('columns:');
  for (const p of proposals) y.push(...fieldLines(p, columns, currency, open));
  y.push(...control);
  y.push(...unmappedLines(layout, proposals));
  const top = open.filter((o) => !o.startsWith('columns.'));
  y.push(...openLines(top, ''));
  let yaml = `${y.join('\n')}\n`;
  if (open.length === 0) yaml = checked(yaml, file, open);
  return {
    file,
    gzip,
    sampledBytes: sample.length,
    complete,
    name: name.name,
    match: name.match,
    encoding: enc.encoding,
    format: layout.format,
    sheet: workbook?.sheet ?? null,
    delimiter: layout.delimiter,
    header: layout.header,
    skipLines: layout.skipLines,
    normalize: fullWidth,
    units: layout.fixed?.units ?? null,
    when: layout.fixed?.recordType == null ? null : { at: [1, 1], equals: layout.fixed.recordType.equals },
    timezone: zoneOf(byField('order_date')),
    columns: columnSummary(proposals),
    open,
    yaml,
  };
}

function draftHead(
  file: string,
  bytes: number,
  complete: boolean,
  gzip: boolean,
  name: FileNameFacts,
  currency: CurrencyDecision,
  enc: EncodingGuess,
  endings: ReturnType<typeof splitLines>['endings'],
  layout: Layout,
  fullWidth: boolean,
): string[] {
  const y: string[] = [];
  y.push(`# Draft load profile written by \`order-loader guess\` from ${c(file)}`);
  y.push(
    `# (${bytes} bytes${gzip ? ' of its decompressed gzip content' : ''} read${complete ? ': the whole file' : ''}). Check every line before using it;`,
  );
  y.push('# what it could not decide is an open: line (load refuses the draft until each is decided).');
  y.push('version: 1');
  y.push(`name: ${q(name.name)}`);
  y.push(
    `# match: the files this profile takes in an inbox (--profiles): this name with its digits${name.currency === null ? '' : ' and currency code'} left open`,
  );
  y.push(`match: ${q(name.match)}`);
  if (currency.source.kind === 'name') y.push(`file_pattern: ${q(currency.source.pattern)}   # the currency comes from the file's name`);
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
  return y;
}

/** The head of a workbook's draft: its sheet in the place of an encoding and a delimiter. */
function workbookHead(
  file: string,
  workbook: WorkbookSample,
  name: FileNameFacts,
  currency: CurrencyDecision,
  layout: Layout,
  fullWidth: boolean,
): string[] {
  const y: string[] = [];
  y.push(`# Draft load profile written by \`order-loader guess\` from ${c(file)}`);
  y.push(`# (rows 1–${workbook.rows} of its sheet ${c(JSON.stringify(workbook.sheet.name))} read). Check every line before using it;`);
  y.push('# what it could not decide is an open: line (load refuses the draft until each is decided).');
  y.push('version: 1');
  y.push(`name: ${q(name.name)}`);
  y.push(`match: ${q(name.match)}`);
  if (currency.source.kind === 'name') y.push(`file_pattern: ${q(currency.source.pattern)}   # the currency comes from the file's name`);
  y.push('# an Excel workbook: its cells are read (dates as calendar dates, numbers as Excel shows them)');
  y.push('format: xlsx');
  for (const why of workbook.passed) y.push(`# passed over: ${c(why)}`);
  y.push(`# sheet: the first with a table (sheet ${workbook.sheet.position}; a name or a 1-based position)`);
  y.push(`sheet: ${q(workbook.sheet.name)}`);
  y.push(...layout.top);
  if (fullWidth) {
    y.push('# full-width characters (digits, letters, signs) are in the sheet: NFKC makes them ASCII before values are read');
    y.push('normalize: nfkc');
  }
  return y;
}

function zoneOf(p: FieldProposal): string | null {
  const offsets = p.date?.offsets ?? [];
  return offsets.length === 0 ? null : zoneOfOffsets(offsets);
}

/** `timezone:` for dates written with an offset: the zone of the offset they all carry, or an open choice. */
function timezoneLines(p: FieldProposal, open: string[]): string[] {
  const offsets = p.date?.offsets ?? [];
  if (offsets.length === 0) return [];
  const zone = zoneOfOffsets(offsets);
  if (zone === null) {
    open.push(
      `timezone: the dates carry the offsets ${offsets.map(q).join(', ')}: in which zone is an order's date counted? write timezone: with its IANA name`,
    );
    return ['# timezone: "Asia/Tokyo"   # an open choice (see open: below)'];
  }
  return [
    `# the dates carry the offset ${offsets.map(q).join(', ')} on every value: an order's date is the date written, in that zone`,
    `#   (${zone}; a named zone such as Asia/Tokyo reads the same dates where it has this offset all year)`,
    `timezone: ${q(zone)}`,
  ];
}

/** A draft with no open choice must load: checked as load checks it; a refusal becomes an open choice. */
function checked(yaml: string, file: string, open: string[]): string {
  try {
    parseProfileText(yaml, 'draft', 'draft');
    return yaml;
  } catch (error) {
    const message = error instanceof UserError ? error.message.replace(/^profile draft: /, '') : String(error);
    const text = `the draft of ${file} does not check as a profile (${message}): correct that line`;
    open.push(text);
    return `${yaml}open: ${q(text)}\n`;
  }
}

function columnSummary(proposals: readonly FieldProposal[]): ProfileGuess['columns'] {
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
  return result;
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
  if (!gzip && isWorkbookStart(read.sample)) {
    const workbook = await workbookSample(path, GUESS_SAMPLE_RECORDS + 20);
    return guessFromSample(path, Buffer.from(workbook.text, 'utf8'), workbook.complete, false, workbook);
  }
  return guessFromSample(path, read.sample, read.complete, gzip);
}

export { dateEvidence, numberEvidence };
