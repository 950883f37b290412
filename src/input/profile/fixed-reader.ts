/**
 * The fixed-width format reader (`format: fixed`): one record per line, each field at
 * `at: [start, length]` (1-based), counted in bytes (SQL*Loader's default: a double-byte
 * Shift_JIS character counts 2) or in characters. Works on the file's bytes, so every line has
 * a byte offset to resume at, whatever the encoding. A field boundary that cuts a multi-byte
 * character, or a line shorter than the last field, is a PARSE_* rejection of that line, never
 * a corrupted value.
 */
import { byteLines, readFailure, loggedText as cleanRaw, type ByteLine } from '../formats/byte-lines.js';
import { openByteSource } from '../gzip.js';
import {
  invalidBytesMessage,
  type FileEncoding,
  type FileItem,
  type FileReject,
  type FileRecord,
  type OrderFile,
  type OrderFileOptions,
  type PassedOverReason,
} from '../order-file.js';
import { ORDER_COLUMNS, type OrderColumn, type ParsedOrder } from '../order-record.js';
import type { LoadProfile } from './load-profile.js';
import { compileMapping, type Mapping, type MappingProblem } from './mapping.js';
import { FIXED_RECORD_LIMIT } from './schema.js';
import { controlRecordRule, type ControlRecord } from '../control/control-record.js';

/** The length in bytes of the character starting with byte `b` in `encoding`. */
function charWidth(encoding: FileEncoding, b: number): number {
  switch (encoding) {
    case 'shift_jis':
      return (b >= 0x81 && b <= 0x9f) || (b >= 0xe0 && b <= 0xfc) ? 2 : 1;
    case 'euc-jp':
      return b === 0x8f ? 3 : b === 0x8e || (b >= 0xa1 && b <= 0xfe) ? 2 : 1;
    case 'utf-8':
      return b < 0xc0 ? 1 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
    default:
      return 1;
  }
}

/** The bytes of a character's text in `encoding` (for a text already decoded: an exported line split again). */
function textWidth(encoding: FileEncoding, ch: string): number {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp < 0x80) return 1;
  switch (encoding) {
    case 'shift_jis':
      return cp >= 0xff61 && cp <= 0xff9f ? 1 : 2;
    case 'euc-jp':
      return 2;
    case 'utf-8':
      return Buffer.byteLength(ch, 'utf8');
    default:
      return 1;
  }
}

interface FixedField {
  name: OrderColumn | 'when';
  /** 0-based start and end (exclusive), in the profile's units. */
  start: number;
  end: number;
  what: string;
}

function fieldsOf(profile: LoadProfile): FixedField[] {
  const fields: FixedField[] = [];
  for (const c of ORDER_COLUMNS) {
    const at = profile.spec.columns[c].at;
    if (at !== undefined) fields.push({ name: c, start: at[0] - 1, end: at[0] - 1 + at[1], what: `columns.${c}` });
  }
  const w = profile.spec.when?.at;
  if (w !== undefined) fields.push({ name: 'when', start: w[0] - 1, end: w[0] - 1 + w[1], what: 'when' });
  return fields;
}

/** The text of each field of one line (bytes), or the reason the line cannot be split. */
function splitLine(
  line: Buffer,
  fields: FixedField[],
  encoding: FileEncoding,
  bytes: boolean,
  decode: (b: Buffer) => string,
): { values: Map<string, string> } | { code: string; message: string } {
  const values = new Map<string, string>();
  if (bytes) {
    // the character boundaries of the line, as far as the last field reaches
    const last = Math.max(...fields.map((f) => f.end));
    const boundary = new Uint8Array(Math.min(last, line.length) + 1);
    let i = 0;
    while (i < boundary.length) {
      boundary[i] = 1;
      i += charWidth(encoding, line[i] ?? 0);
    }
    for (const f of fields) {
      if (f.end > line.length) {
        return {
          code: 'PARSE_FIXED_SHORT',
          message: `the line is ${line.length} bytes: ${f.what} at ${f.start + 1}–${f.end} reaches past its end`,
        };
      }
      for (const at of [f.start, f.end]) {
        if (at < line.length && boundary[at] !== 1)
          return {
            code: 'PARSE_FIXED_SPLIT',
            message: `${f.what} at ${f.start + 1}–${f.end} cuts a multi-byte character between bytes ${at} and ${at + 1}`,
          };
      }
      values.set(f.name, decode(line.subarray(f.start, f.end)));
    }
    return { values };
  }
  const chars = Array.from(decode(line));
  for (const f of fields) {
    if (f.end > chars.length)
      return {
        code: 'PARSE_FIXED_SHORT',
        message: `the line is ${chars.length} characters: ${f.what} at ${f.start + 1}–${f.end} reaches past its end`,
      };
    values.set(f.name, chars.slice(f.start, f.end).join(''));
  }
  return { values };
}

/**
 * A line of a fixed-width file exported again (its decoded text, as logged) split into the five
 * fields as the profile maps them, leniently: what cannot be read is its text as found.
 */
export function splitFixedText(raw: string, profile: LoadProfile, encoding: FileEncoding): Record<OrderColumn, string> {
  const bytes = profile.spec.units !== 'chars';
  const chars = Array.from(raw);
  const offsets: number[] = [0];
  for (const ch of chars) offsets.push((offsets.at(-1) ?? 0) + (bytes ? textWidth(encoding, ch) : 1));
  const slice = (start: number, end: number): string => {
    let out = '';
    chars.forEach((ch, i) => {
      if ((offsets[i] ?? 0) >= start && (offsets[i + 1] ?? 0) <= end) out += ch;
    });
    return out;
  };
  const mapping = compileMapping(profile);
  const mapped = mapping.map((c) => {
    const at = profile.spec.columns[c].at;
    return at === undefined ? '' : slice(at[0] - 1, at[0] - 1 + at[1]);
  });
  return mapped.fields;
}

class FixedRecord implements FileRecord {
  readonly kind = 'record' as const;
  constructor(
    readonly lineNo: number,
    readonly fields: Record<OrderColumn, string>,
    readonly endByte: number,
    readonly endLine: number,
    private readonly line: Buffer,
    private readonly decode: (b: Buffer) => string,
    readonly problem: MappingProblem | null,
    readonly order: ParsedOrder | null,
  ) {}

  get raw(): string {
    return cleanRaw(this.decode(this.line));
  }

  toJSON() {
    return { kind: this.kind, lineNo: this.lineNo, raw: this.raw, fields: this.fields, endByte: this.endByte, endLine: this.endLine };
  }
}

/** What reading one line needs: the profile compiled, the file's decoding, and what the lines read so far left. */
interface FixedContext {
  encoding: FileEncoding;
  decode: (b: Buffer) => string;
  fields: FixedField[];
  invalidBytes: string | null;
  bytes: boolean;
  mapping: Mapping;
  skipLines: number;
  isComment: (line: Buffer) => boolean;
  controlRule: ReturnType<typeof controlRecordRule>;
  controls: ControlRecord[];
  observe: OrderFileOptions['observe'];
  discarded: number;
  discardedByWhen: number;
}

function rejectLine(at: FixedContext, { line, lineNo, endByte }: ByteLine, code: string, message: string): FileReject {
  return { kind: 'reject', lineNo, raw: cleanRaw(at.decode(line)), code, message, endByte, endLine: lineNo, stopsFile: false };
}

function tellPassedOver(at: FixedContext, lineNo: number, line: Buffer, reason: PassedOverReason, value?: string): void {
  // the optional call evaluates no argument without an observer: no line decoded for nobody
  at.observe?.passedOver({ lineNo, raw: cleanRaw(at.decode(line)), reason, ...(value === undefined ? {} : { value }) });
}

/** Whether the line is passed over before its fields are read: a control record, a skipped or comment line, one `when` discards. */
function passesOver(at: FixedContext, { line, lineNo }: ByteLine): boolean {
  // a control record (trailer or header): no data row, whatever skip_lines, comment or `when` say
  if (at.controlRule !== null) {
    const text = at.decode(line);
    if (at.controlRule.text(text)) {
      at.controls.push({ lineNo, fields: null, text });
      tellPassedOver(at, lineNo, line, 'control');
      return true;
    }
  }
  if (lineNo <= at.skipLines || at.isComment(line)) {
    at.discarded++;
    tellPassedOver(at, lineNo, line, lineNo <= at.skipLines ? 'skip_lines' : 'comment');
    return true;
  }
  return false;
}

/** Whether the profile's `when` discards the line (its field read before the others). */
function discardedByWhen(at: FixedContext, { line, lineNo }: ByteLine): boolean {
  const w = at.fields.find((f) => f.name === 'when');
  const text =
    w === undefined ? '' : at.bytes ? at.decode(line.subarray(w.start, w.end)) : Array.from(at.decode(line)).slice(w.start, w.end).join('');
  if (at.mapping.keep(text)) return false;
  at.discarded++;
  at.discardedByWhen++;
  tellPassedOver(at, lineNo, line, 'when', text);
  return true;
}

/** One line read: its record or rejection, or null (a blank line or one passed over). */
function readFixedLine(at: FixedContext, read: ByteLine, hasWhen: boolean): FileItem | null {
  const { line, lineNo, endByte, tooLong } = read;
  if (line.length === 0) return null; // a blank line: no record
  if (passesOver(at, read)) return null;
  if (tooLong)
    return rejectLine(
      at,
      read,
      'CSV_MAX_RECORD_SIZE',
      `the line is longer than the longest record read (${FIXED_RECORD_LIMIT} bytes); the line was skipped`,
    );
  if (line.includes(0))
    return rejectLine(at, read, 'PARSE_NUL_BYTE', 'the line contains a NUL byte (0x00), which no database text value can hold');
  if (hasWhen && discardedByWhen(at, read)) return null;
  const split = splitLine(line, at.fields, at.encoding, at.bytes, at.decode);
  if ('code' in split) return rejectLine(at, read, split.code, split.message);
  const values = split.values;
  if ((at.encoding === 'utf-8' || at.invalidBytes !== null) && [...values.values()].some((v) => v.includes('\uFFFD')))
    return rejectLine(at, read, 'PARSE_ENCODING', at.invalidBytes ?? 'the line is not valid UTF-8 (set encoding: in the profile)');
  if (at.observe !== undefined) {
    const raw = {} as Record<OrderColumn, string | null>;
    for (const c of ORDER_COLUMNS) raw[c] = values.get(c) ?? null;
    at.observe.fieldsRead(lineNo, raw);
  }
  const mapped = at.mapping.map((c) => values.get(c) ?? '');
  return new FixedRecord(lineNo, mapped.fields, endByte, lineNo, line, at.decode, mapped.problem, at.mapping.lastOrder());
}

/** What reading a file's lines needs (openFixedFile's context). */
function fixedContext(path: string, options: OrderFileOptions, profile: LoadProfile): FixedContext {
  const encoding = options.encoding;
  const decoder = encoding === 'utf-8' ? null : new TextDecoder(encoding);
  const decode = (b: Buffer): string => (decoder === null ? b.toString('utf8') : decoder.decode(b));
  const comment = profile.spec.comment ?? null;
  // the comment's length in UTF-8: no fewer bytes than it takes in any encoding a profile names
  const commentBytes = comment === null ? 0 : Buffer.byteLength(comment, 'utf8');
  return {
    encoding,
    decode,
    fields: fieldsOf(profile),
    invalidBytes: invalidBytesMessage(encoding),
    bytes: profile.spec.units !== 'chars',
    mapping: compileMapping(profile, {}, options.onWarning === undefined ? undefined : (m) => options.onWarning?.(`${path}: ${m}`), path),
    skipLines: profile.spec.skip_lines,
    // the line starts with the comment, compared as text: the comment is written in the profile (UTF-8), the line in the file's encoding
    isComment: (line) => comment !== null && decode(line.subarray(0, commentBytes)).startsWith(comment),
    controlRule: controlRecordRule(profile.spec),
    controls: [],
    observe: options.observe,
    discarded: 0,
    discardedByWhen: 0,
  };
}

/** Open a fixed-width file read through its profile (openOrderFile's `format: fixed`). */
export function openFixedFile(path: string, size: number, options: OrderFileOptions, profile: LoadProfile): OrderFile {
  const from = options.resumeAt?.byte ?? 0;
  const source = openByteSource(options.read?.file ?? path, { ...options.read, gzip: options.gzip === true, from });
  const at = fixedContext(path, options, profile);
  const hasWhen = profile.spec.when !== undefined;
  let closed = false;
  let lastLine = options.resumeAt?.line ?? 0;
  let lastByte = from;

  async function* items(): AsyncGenerator<FileItem> {
    try {
      const lines = byteLines(
        source.chunks,
        { byte: from, line: options.resumeAt?.line ?? 0 },
        FIXED_RECORD_LIMIT,
        () => closed || options.signal?.aborted === true,
      );
      for await (const read of lines) {
        lastLine = read.lineNo;
        lastByte = read.endByte;
        const item = readFixedLine(at, read, hasWhen);
        if (item !== null) yield item;
      }
      at.mapping.finish();
    } catch (error) {
      yield readFailure(error, lastLine, lastByte);
    }
  }

  return {
    path,
    size,
    header: { names: [], errorExport: false, positions: new Map(), extraColumns: [], columnCount: 0 },
    items: items(),
    bytesRead: () => source.fileBytesRead(),
    discarded: () => at.discarded,
    discardedByWhen: () => at.discardedByWhen,
    controlRecords: () => at.controls,
    close() {
      closed = true;
      source.close();
    },
  };
}
