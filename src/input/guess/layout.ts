/**
 * guess: how the sample's lines are laid out. Pure functions of the decoded text:
 * line endings, the delimiter candidates and how consistent each one's field count is, lines
 * before the header (a banner) and after the data (a trailer), comment lines, and, when no
 * delimiter splits the lines, the field boundaries of a fixed-width layout.
 */

export interface LineEndings {
  crlf: number;
  lf: number;
  cr: number;
}

/** The lines of the text (a last line end is no empty line after it) and their endings. */
export function splitLines(text: string): { lines: string[]; endings: LineEndings } {
  const endings: LineEndings = { crlf: 0, lf: 0, cr: 0 };
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 10 && c !== 13) continue;
    lines.push(text.slice(start, i));
    if (c === 13 && text.charCodeAt(i + 1) === 10) {
      endings.crlf++;
      i++;
    } else if (c === 13) endings.cr++;
    else endings.lf++;
    start = i + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return { lines, endings };
}

export function describeEndings(e: LineEndings): string {
  const parts = [
    ['CRLF', e.crlf],
    ['LF', e.lf],
    ['CR', e.cr],
  ].filter(([, n]) => (n as number) > 0);
  if (parts.length === 0) return 'no line end in the sample (one line)';
  const said = parts.map(([name, n]) => `${name as string} ${n as number}`).join(', ');
  return parts.length === 1 ? `${parts[0]?.[0] as string} (${parts[0]?.[1] as number} lines)` : `mixed: ${said}`;
}

/** The fields of one line: `"` quotes a field, `""` inside is one quote. */
export function splitFields(line: string, delimiter: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  let atStart = true;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"' && atStart) {
      quoted = true;
      atStart = false;
    } else if (ch === delimiter) {
      fields.push(field);
      field = '';
      atStart = true;
    } else {
      field += ch;
      atStart = false;
    }
  }
  fields.push(field);
  return fields;
}

export const DELIMITERS = [',', ';', '\t', '|'] as const;

export interface DelimiterCandidate {
  delimiter: string;
  /** The most common field count over the lines looked at, and on how many lines it is. */
  fields: number;
  lines: number;
  of: number;
}

export function delimiterName(d: string): string {
  return d === '\t' ? 'tab' : `"${d}"`;
}

/**
 * Whether lines starting with `#` are comments: when they are fewer than the other lines. Where
 * most lines start with it, it is data (order names such as `#1001`), not a comment mark.
 */
export function hashComments(lines: readonly string[]): boolean {
  const filled = lines.filter((l) => l.trim() !== '');
  const hashed = filled.filter((l) => l.startsWith('#')).length;
  return hashed > 0 && hashed * 2 < filled.length;
}

/** Each candidate's field count per line (blank and comment lines left out), best first. */
export function delimiterCandidates(lines: readonly string[], comments = hashComments(lines)): DelimiterCandidate[] {
  const looked = lines.filter((l) => l.trim() !== '' && !(comments && l.startsWith('#')));
  const out: DelimiterCandidate[] = [];
  for (const delimiter of DELIMITERS) {
    const counts = new Map<number, number>();
    for (const line of looked) {
      const n = splitFields(line, delimiter).length;
      counts.set(n, (counts.get(n) ?? 0) + 1);
    }
    let fields = 1;
    let on = 0;
    for (const [n, c] of counts) if (n > 1 && (c > on || (c === on && n > fields))) [fields, on] = [n, c];
    if (on > 0) out.push({ delimiter, fields, lines: on, of: looked.length });
  }
  // the most consistent first; then the one that splits into more fields
  return out.sort((a, b) => b.lines / b.of - a.lines / a.of || b.fields - a.fields);
}

/** A candidate that splits most lines the same way: at least 2 lines (or the only one) and 60%. */
export function isConsistent(c: DelimiterCandidate): boolean {
  return c.lines / c.of >= 0.6 && (c.lines >= 2 || c.of === 1);
}

/**
 * The lines of a CSV sample that are not records: before the first line with the usual field
 * count (a banner), and at the end after the last one (a trailer). Comment lines (`#`) are
 * counted apart.
 */
export function framing(
  lines: readonly string[],
  delimiter: string,
  fields: number,
  comments = hashComments(lines),
): { banner: number; trailer: string[]; comment: boolean; records: string[] } {
  const isComment = (l: string) => comments && l.startsWith('#');
  const isRecord = (l: string) => !isComment(l) && splitFields(l, delimiter).length === fields;
  const first = lines.findIndex(isRecord);
  let last = lines.length - 1;
  while (last > first && (lines[last]?.trim() === '' || !isRecord(lines[last] as string))) last--;
  const body = lines.slice(first, last + 1);
  return {
    banner: Math.max(first, 0),
    trailer: lines.slice(last + 1).filter((l) => l.trim() !== ''),
    comment: comments,
    records: body.filter((l) => l.trim() !== '' && !isComment(l)),
  };
}

// ---------------------------------------------------------------- fixed width

/** How wide a character is in the file: bytes of the encoding, or 1 (units: chars). */
export function unitWidth(ch: string, encoding: string, units: 'bytes' | 'chars'): number {
  if (units === 'chars') return 1;
  const c = ch.codePointAt(0) ?? 0;
  if (c < 0x80) return 1;
  if (encoding === 'shift_jis') return c >= 0xff61 && c <= 0xff9f ? 1 : 2;
  if (encoding === 'euc-jp') return 2;
  if (encoding === 'windows-1252') return 1;
  return Buffer.byteLength(ch, 'utf8');
}

type CharClass = 'space' | 'num' | 'alpha' | 'wide' | 'other';

function classOf(ch: string): CharClass {
  if (ch === ' ' || ch === '\u3000') return 'space';
  if (/[0-9.,+\-▲△()]/.test(ch)) return 'num';
  if (/[A-Za-z]/.test(ch)) return 'alpha';
  return (ch.codePointAt(0) ?? 0) >= 0x80 ? 'wide' : 'other';
}

/** A line as one class per unit (a double-byte character fills two). */
function unitClasses(line: string, encoding: string, units: 'bytes' | 'chars'): CharClass[] {
  const out: CharClass[] = [];
  for (const ch of line) {
    const k = classOf(ch);
    for (let w = unitWidth(ch, encoding, units); w > 0; w--) out.push(k);
  }
  return out;
}

/** The text of units [start, start + length) of a line (1-based start), spaces trimmed. */
export function sliceUnits(line: string, start: number, length: number, encoding: string, units: 'bytes' | 'chars'): string {
  let pos = 1;
  let out = '';
  for (const ch of line) {
    if (pos >= start && pos < start + length) out += ch;
    pos += unitWidth(ch, encoding, units);
    if (pos >= start + length) break;
  }
  return out.trim();
}

export interface FixedLayout {
  units: 'bytes' | 'chars';
  /** Each field's [start, length], 1-based. */
  fields: Array<[number, number]>;
  /** The record type column: the character data records have in column 1, when others (header, trailer) differ. */
  recordType: { equals: string; others: string[] } | null;
  /** The data records the layout is read from. */
  records: string[];
  /** Lines lengths (in units) of the records: min and max. */
  widths: [number, number];
}

/**
 * Field boundaries seen over the data records: where the character class (space, number,
 * letter, non-ASCII) is the same on every record on both sides and changes; where a number or
 * text field every record fills is followed by a position some records leave blank; where a
 * position blank on every record is followed by one every record fills with the same class.
 */
export function fixedLayout(lines: readonly string[], encoding: string): FixedLayout | null {
  const nonBlank = lines.filter((l) => l.trim() !== '');
  if (nonBlank.length === 0) return null;
  // record type: the first character most lines share, when some lines (first, last) differ
  const firsts = new Map<string, number>();
  for (const l of nonBlank) firsts.set(l[0] as string, (firsts.get(l[0] as string) ?? 0) + 1);
  const [[top, topCount] = ['', 0]] = [...firsts].sort((a, b) => b[1] - a[1]);
  const typed = firsts.size > 1 && firsts.size <= 4 && /^[A-Za-z0-9]$/.test(top) && topCount >= 1;
  const records = typed ? nonBlank.filter((l) => l[0] === top) : nonBlank;
  const recordType = typed ? { equals: top, others: [...firsts.keys()].filter((k) => k !== top) } : null;
  const units: 'bytes' | 'chars' = encoding === 'shift_jis' || encoding === 'euc-jp' ? 'bytes' : 'chars';
  const classes = records.map((r) => unitClasses(r, encoding, units));
  const widths = classes.map((c) => c.length);
  const max = Math.max(...widths);
  const setAt = (p: number): Set<CharClass> => new Set(classes.map((c) => c[p] ?? 'space'));
  const sets = Array.from({ length: max }, (_, p) => setAt(p));
  const single = (s: Set<CharClass>): CharClass | null => (s.size === 1 ? ([...s][0] as CharClass) : null);
  const starts = [0];
  for (let p = 1; p < max; p++) {
    const before = single(sets[p - 1] as Set<CharClass>);
    const here = sets[p] as Set<CharClass>;
    const now = single(here);
    if (before !== null && now !== null && before !== now && before !== 'space' && now !== 'space') starts.push(p);
    else if (before !== null && before !== 'space' && now === null && here.has('space') && !here.has(before)) starts.push(p);
    else if (before !== null && before !== 'space' && now === null && here.has('space') && before === 'num') starts.push(p);
    else if (before === 'space' && now !== null && now !== 'space') starts.push(p);
  }
  // fields apart from each other by blank columns (`JP-1  501 令和8年12月1日   1,200円`): the blanks
  // are the layout's own boundaries, and a field's text may change kind inside (JP-1, R8.12.1)
  const gaps = gapFields(sets).map(([s]) => s - 1);
  // the record type is a field of its own; a field reaches to the next one (its padding with it)
  if (recordType !== null && gaps[0] === 0 && gaps[1] !== 1) gaps.splice(1, 0, 1);
  if (gaps.length >= 4) {
    const fields: Array<[number, number]> = gaps.map((g, i) => [g + 1, (gaps[i + 1] ?? max) - g]);
    return { units, fields, recordType, records, widths: [Math.min(...widths), max] };
  }
  if (starts.length < 2) return null;
  const fields: Array<[number, number]> = starts.map((s, i) => [s + 1, (starts[i + 1] ?? max) - s]);
  return { units, fields, recordType, records, widths: [Math.min(...widths), max] };
}

/** The runs of positions some record fills, between positions blank on every record: [start, length], 1-based. */
function gapFields(sets: ReadonlyArray<Set<string>>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let start = -1;
  sets.forEach((set, p) => {
    const blank = set.size === 1 && set.has('space');
    if (!blank && start === -1) start = p;
    if (blank && start !== -1) {
      out.push([start + 1, p - start]);
      start = -1;
    }
  });
  if (start !== -1) out.push([start + 1, sets.length - start]);
  return out;
}
