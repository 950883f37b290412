import { isAscii, isUtf8 } from 'node:buffer';
import { Parser, type Options } from 'csv-parse';
import { RunAbortedError, UserError } from '../errors.js';
import { ORDER_COLUMNS, type OrderColumn } from './order-record.js';
import { isErrorExportHeader, restoreFormula } from './formula-guard.js';
import { GzipDataError, isGzipFile, openByteSource, type ByteSourceOptions } from './gzip.js';
import { fileEncoding, invalidBytesMessage, type FileEncoding } from './file-encoding.js';
import { sizeToRead, type OpenedFile } from './opened-file.js';
import type { LoadProfile } from './profile/load-profile.js';
import { unwrapExcelGuard } from './excel-guard.js';
import { compileMapping, describeSource, headerKey, type MappingProblem } from './profile/mapping.js';
import { formatReader } from './formats/format-reader.js';
import { controlRecordRule, type ControlRecord } from './control/control-record.js';
import {
  attributeColumns,
  attributesJson,
  positionalAttributes,
  RESERVED_ATTRIBUTE_NAMES,
  type AttributeColumns,
} from './profile/attributes.js';

/** A NUL byte in a line, whatever the format: no database text value holds one. */
const NUL_BYTE_MESSAGE = 'the line contains a NUL byte (0x00), which no database text value can hold';

export { fileEncoding, invalidBytesMessage, type FileEncoding };

export interface OrderFileOptions {
  encoding: FileEncoding;
  /** The file as the run opened it (read through its descriptor, to its size taken once), a tap on its content, the gzip cap. */
  read?: (Pick<ByteSourceOptions, 'tap' | 'maxInflate'> & { file?: OpenedFile | undefined }) | undefined;
  delimiter: string;
  /** The file is gzip-compressed (found by openOrderFile from its first bytes when not said): offsets are into its content. */
  gzip?: boolean | undefined;
  /** Resume: start reading at this byte offset of the content (the start of a record), counting lines from `startLine`. */
  resumeAt?: { byte: number; line: number } | undefined;
  /** Largest record accepted, in characters; a longer one is rejected, not buffered without end. */
  maxRecordSize?: number | undefined;
  /**
   * Once aborted, reading ends after the records already read (the items end as at the end of
   * the file: the caller, who aborted, knows it did not read to the end). Checked at every chunk
   * read, so also while a run of blank lines yields no record for a long time.
   */
  signal?: AbortSignal | undefined;
  /** A load profile (src/input/profile/): the file's format and its mapping onto the five fields; none: the built-in format. */
  profile?: LoadProfile | undefined;
  /** Told what a reader finds wrong with the file as a whole (a profile's date mask that matches none of the first lines). */
  onWarning?: ((message: string) => void) | undefined;
  /**
   * Every line read by csv-parse, also where the input has no quote (which is otherwise split
   * without it, to the same records): for the tests that compare the two.
   */
  csvParseOnly?: boolean | undefined;
  /** Bytes per read of the file (default 256 KiB): small in the tests that put many chunk boundaries in a small file. */
  readChunkSize?: number | undefined;
  /** Told about each line as it is read (`preview`, src/pipeline/preview.ts); nothing is asked of it on a load. */
  observe?: ReadObserver | undefined;
}

/** Why a line is not a data line: a banner line (`skip_lines`), a `comment`, the header, a control record; or `when` discarded it. */
export type PassedOverReason = 'skip_lines' | 'comment' | 'header' | 'when' | 'control';

/**
 * What `preview` is told by the reader, in file order, as the items are read: the lines that are
 * no data lines, and for each data line the text the format reader found for each field, just
 * before the profile maps it (the built-in format: the fields as written). A rejected line (field
 * count, encoding, a CSV error) is an item and has no fields.
 */
export interface ReadObserver {
  passedOver(line: { lineNo: number; raw: string; reason: PassedOverReason; value?: string }): void;
  /** null: a field the file does not hold (a profile's `const`). */
  fieldsRead(lineNo: number, raw: Record<OrderColumn, string | null>): void;
}

export interface OrderFileHeader {
  /** The header's names in file order, as written. */
  names: string[];
  /** Written by `errors --format csv` (isErrorExportHeader): its formula guard is removed from the values. */
  errorExport: boolean;
  /** Position of each known column in a record. */
  positions: Map<OrderColumn, number>;
  /** Header names we do not use (ignored, with a warning). */
  extraColumns: string[];
  columnCount: number;
  /**
   * The columns kept as each record's attributes (a profile's `extra`; the attribute columns of
   * an `errors` export read back), src/input/profile/attributes.ts; absent: none kept.
   */
  attributes?: AttributeColumns | undefined;
}

/** A data record of the file. */
export interface FileRecord {
  kind: 'record';
  lineNo: number;
  /** The line's text as read (decoded when asked for: a record that is staged never needs it). */
  readonly raw: string;
  fields: Record<OrderColumn, string>;
  /** Byte offset just past this record (a resume point), when the encoding allows it. */
  endByte: number | null;
  endLine: number;
  /** A field the profile could not map (the line is a PARSE_* error of that field); absent with the built-in format. */
  problem?: MappingProblem | null;
  /** The line's other columns kept (canonical JSON text of name → text), or null: none kept, or all of them empty. */
  attributes?: string | null;
  /**
   * The line's text for later, holding only what decoding it needs (not the record, its fields
   * or its parser state): what a staging batch keeps of each line until it commits, in case the
   * database refuses the row. Absent: keep the record itself.
   */
  rawLater?(): { readonly raw: string };
}

class ReadRecord implements FileRecord {
  readonly kind = 'record' as const;
  constructor(
    readonly lineNo: number,
    readonly fields: Record<OrderColumn, string>,
    readonly endByte: number | null,
    readonly endLine: number,
    private readonly span: RawSpan,
    readonly problem: MappingProblem | null = null,
    readonly attributes: string | null = null,
  ) {}

  get raw(): string {
    return rawText(this.span);
  }

  rawLater(): { readonly raw: string } {
    return new LaterRaw(this.span.window, this.span.start, this.span.end);
  }

  /** Shown as the plain record it stands for (toEqual, JSON, console.log). */
  toJSON(): Omit<FileRecord, 'kind'> & { kind: 'record' } {
    return { kind: 'record', lineNo: this.lineNo, raw: this.raw, fields: this.fields, endByte: this.endByte, endLine: this.endLine };
  }
}

/**
 * A record's bytes, decoded when asked (ReadRecord.rawLater). A staging batch keeps one per line
 * until it commits; keeping the ReadRecord instead (its fields, the parser's record and state)
 * kept some 200 bytes more per line alive through the young generation. Measured on `stage` of
 * 300,000 rows into PostgreSQL, three runs each on a busy machine: peak RSS 197–210 → 186–191 MB,
 * CPU time the same within the noise (bench/RESULTS.md, run 16).
 */
class LaterRaw implements RawSpan {
  constructor(
    readonly window: Buffer,
    readonly start: number,
    readonly end: number,
  ) {}

  get raw(): string {
    return rawText(this);
  }
}

/** A line that could not be read as a record of this file. */
export interface FileReject {
  kind: 'reject';
  lineNo: number;
  raw: string;
  code: string;
  message: string;
  endByte: number | null;
  endLine: number;
  /** The parser could not continue past this point: the rest of the file was not read. */
  stopsFile: boolean;
}

export type FileItem = FileRecord | FileReject;

export interface OrderFile {
  path: string;
  size: number;
  header: OrderFileHeader;
  items: AsyncIterable<FileItem>;
  /** Bytes consumed so far (for progress). */
  bytesRead(): number;
  /** Lines a profile discarded so far (`skip_lines` after the header's, `comment`, `when`): counted apart, never errors. */
  discarded(): number;
  /** Of those, the lines `when` discarded (the warning that every line was discarded names the rule). */
  discardedByWhen?(): number;
  /** The records the profile's control rule matched so far (`control: trailer|header`): no data rows, nor discarded lines. */
  controlRecords?(): readonly ControlRecord[];
  close(): void;
}

const RAW_LIMIT = 4000;
const REPLACEMENT_CHARACTER = Buffer.from('\uFFFD', 'utf8');

function cleanRaw(raw: string): string {
  // Blank lines skipped before the record and its record delimiter are not part of it. A NUL
  // cannot be stored in a database text value: shown as U+2400 (SYMBOL FOR NULL).
  const trimmed = raw
    .replace(/^[\uFEFF\r\n]+/, '')
    .replace(/[\r\n]+$/, '')
    .replaceAll('\u0000', '\u2400');
  return trimmed.length > RAW_LIMIT ? `${trimmed.slice(0, RAW_LIMIT)}…` : trimmed;
}

function anyIncludes(fields: string[], text: string): boolean {
  for (const f of fields) if (f.includes(text)) return true;
  return false;
}

function reject(lineNo: number, span: RawSpan, code: string, message: string, endByte: number | null, endLine: number): FileReject {
  return { kind: 'reject', lineNo, raw: rawText(span), code, message, endByte, endLine, stopsFile: false };
}

/**
 * The first and last line of a record whose bytes (blank lines before it and its record
 * delimiter included) are bytes[start, end), the last record having ended on line `before`.
 * A line ends at CRLF, LF or a lone CR, inside quotes or not (as a text editor counts).
 */
function countLines(bytes: Buffer, start: number, end: number, before: number): { startLine: number; endLine: number } {
  let i = start;
  if (bytes[i] === 0xef && bytes[i + 1] === 0xbb && bytes[i + 2] === 0xbf) i += 3; // a BOM before the header
  let line = before + 1;
  // blank lines skipped before the record
  for (; i < end; i++) {
    const b = bytes[i];
    if (b === 0x0d) {
      if (bytes[i + 1] === 0x0a) i++;
      line++;
    } else if (b === 0x0a) line++;
    else break;
  }
  const startLine = line;
  for (; i < end; i++) {
    const b = bytes[i];
    if (b === 0x0d) {
      if (i + 1 < end && bytes[i + 1] === 0x0a) i++;
      if (i + 1 < end) line++; // not the record's own delimiter
    } else if (b === 0x0a && i + 1 < end) line++;
  }
  return { startLine, endLine: line };
}

/**
 * The bytes a record was read from: a window of the input (the file's bytes; for a file that is
 * decoded first, the UTF-8 of its text) and the record's span in it. The window is never written
 * to after it is made, so the raw text can be decoded when it is asked for: only a rejected line
 * needs it, and decoding every line's text cost ≈ 10 % of the parse (bench/RESULTS.md, run 10).
 */
interface RawSpan {
  window: Buffer;
  start: number;
  end: number;
}

function rawText(span: RawSpan): string {
  return cleanRaw(span.window.toString('utf8', span.start, span.end));
}

interface ParsedRecord extends RawSpan {
  record: string[];
  /** The record's first and last line, counted from the reader's start (1 = its first line). */
  startLine: number;
  endLine: number;
  /** Bytes read by the parser up to the end of this record (its delimiter included). */
  bytes: number;
  /** Its bytes are known to hold no NUL and, read as UTF-8, no U+FFFD (checked once per chunk). */
  clean: boolean;
}

/** The line a line-local parser error was on, passed over by `RecordReader.skipFailedLine`. */
interface SkippedLine {
  /** Its first RAW_LIMIT·4 bytes as text (blank lines before it and its line end left out). */
  raw: string;
  /** Its line number (counted from the reader's start, as ParsedRecord's lines). */
  lineNo: number;
  /** Bytes read up to the end of the line, its line end included (as ParsedRecord.bytes). */
  bytes: number;
  /** Nothing follows it. */
  atEnd: boolean;
}

interface RecordReader {
  /** The next record, null at the end; throws the parser's error after every record before it. */
  next(): ParsedRecord | null | Promise<ParsedRecord | null>;
  /**
   * After next() threw an error that concerns one line (LINE_LOCAL_CSV_ERRORS): pass over the
   * physical line the failed record starts on (the blank lines before it too), and read on from
   * the next line with a fresh parser. In the input as the parser reads it, so the same for every
   * encoding and for gzip (nothing is read twice).
   */
  skipFailedLine(): Promise<SkippedLine>;
  bytesRead(): number;
  close(): void;
}

/**
 * The part of csv-parse's parser object (csv-parse 7.0.3, lib/api/index.js; the version is
 * pinned) that its stream drives: `parse(buffer, end, push, close)` parses synchronously, calls
 * `push` for each record and returns the error that stopped it; `info` holds the running counts.
 * We drive it directly: the stream's `on_record` hook builds two info objects per record
 * (`__infoRecord` spreads `__infoDataSet`), measured 20 % of the dry run's CPU, while the two
 * numbers we need are on `info` at the moment `push` is called.
 */
interface CsvApi {
  info: { readonly bytes: number; readonly lines: number };
  state?: { expectedRecordLength?: number };
  parse(buffer: Buffer | undefined, end: boolean, push: (record: string[]) => void, close: () => void): Error | undefined;
}

function csvApi(options: Options): CsvApi {
  const api = (new Parser(options) as unknown as { api?: CsvApi }).api;
  if (api === undefined || typeof api.parse !== 'function' || typeof api.info.bytes !== 'number') {
    throw new Error('csv-parse: its parser API is not the one this reader was written for (pinned csv-parse 7.0.3)');
  }
  return api;
}

/**
 * Records split from a read chunk at a time (a 256 KiB chunk holds some 5,000): the rest is split
 * when these are read, so that the records waiting in the queue, which every young-generation
 * garbage collection copies, are few.
 */
const SPLIT_BATCH = 128;

/** Input held before the next record past which leading blank lines are dropped (counted, not kept). */
const BLANK_TRIM_AT = 256 * 1024;
/** Chunks read without a record between two turns of the event loop (signals, timers). */
const CHUNKS_PER_TURN = 16;

function isBlankByte(b: number | undefined): boolean {
  return b === 0x0a || b === 0x0d;
}

/**
 * The blank-line bytes at `from` of `bytes` that can be dropped, and the lines they end: a CR
 * whose LF may follow (the last byte, or followed by LF) is left, so that CRLF counts once.
 */
function leadingBlankBytes(bytes: Buffer, from: number): { length: number; lines: number } {
  let i = from;
  let lines = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    if (b === 0x0a) {
      i++;
      lines++;
    } else if (b === 0x0d) {
      if (i + 1 >= bytes.length) break; // its LF may be in the next chunk
      i += bytes[i + 1] === 0x0a ? 2 : 1;
      lines++;
    } else break;
  }
  return { length: i - from, lines };
}

/**
 * The fields of a line (`start`–`end` of `bytes`, its delimiters at `cuts`). An ASCII line is
 * decoded once and sliced: a slice shorter than 13 characters is a copy, a longer one would be a
 * view keeping the whole line alive as long as the field is (the dry run's map of every key kept
 * every line: twice the garbage collection), so such a field is decoded on its own; decoding
 * each field on its own cost a call into Node's C++ per field. A line that is not ASCII is
 * decoded field by field (a multi-byte character is in one field).
 */
function lineFields(bytes: Buffer, start: number, end: number, cuts: readonly number[], ascii: boolean): string[] {
  const line = ascii ? bytes.toString('latin1', start, end) : null;
  const encoding = ascii ? 'latin1' : 'utf8';
  const record: string[] = [];
  let from = start;
  for (let k = 0; k <= cuts.length; k++) {
    const to = k < cuts.length ? (cuts[k] as number) : end;
    record.push(
      to === from ? '' : line !== null && to - from < 13 ? line.slice(from - start, to - start) : bytes.toString(encoding, from, to),
    );
    from = to + 1;
  }
  return record;
}

/** A one-character text as its byte when it is ASCII, else -1. */
function asciiByte(text: string): number {
  return text.length === 1 && text.charCodeAt(0) < 0x80 ? text.charCodeAt(0) : -1;
}

function hasBom(bytes: Buffer): boolean {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

function turnOfEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * csv-parse driven by hand: we read a chunk of the file, hand it to the parser, and collect the
 * records it produces before reading the next chunk. Backpressure is the consumer's pace; memory
 * is one chunk's records. A parse error never discards the records parsed before it.
 */
function openRecordReader(path: string, options: OrderFileOptions): RecordReader {
  const source = openByteSource(options.read?.file ?? path, {
    ...options.read,
    gzip: options.gzip === true,
    from: options.resumeAt?.byte ?? 0,
    ...(options.readChunkSize === undefined ? {} : { highWaterMark: options.readChunkSize }),
  });
  const chunks = source.chunks;
  const decoder = options.encoding === 'utf-8' ? null : new TextDecoder(options.encoding);
  const singleByte = options.encoding === 'windows-1252';
  let queue: ParsedRecord[] = [];
  let head = 0;
  let failure: Error | null = null;
  let ended = false;
  let closed = false;
  const csv = options.profile?.spec;
  // a BOM is passed over at the start of the file only: where a resumed read starts, it is data
  const startsFile = (options.resumeAt?.byte ?? 0) === 0;
  const maxRecordSize = options.maxRecordSize ?? 1_048_576;
  const parserOptions: Options = {
    bom: startsFile,
    delimiter: options.delimiter,
    ...(csv?.quote !== undefined ? { quote: csv.quote } : {}),
    ...(csv?.escape !== undefined ? { escape: csv.escape } : {}),
    // A quote inside an unquoted field is data (SQL*Loader's OPTIONALLY ENCLOSED BY), in the
    // built-in format too: `5"Display` in a column nobody loads must not cost the order its line.
    // A quoted field's closing quote followed by other characters is kept as written with them.
    relax_quotes: true,
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: maxRecordSize,
  };
  let api = csvApi(parserOptions);
  // csv-parse after the reader's first byte: a BOM there is data, as it was to the parser that
  // read the file from its start
  const midFileOptions: Options = { ...parserOptions, bom: false };
  // The header's field count (see push), told to every parser made after it.
  let headerLength: number | undefined;
  /** A parser that starts reading at reader byte `at` (a record's start). */
  const freshParser = (at: number): CsvApi => {
    const fresh = csvApi(at === 0 && startsFile ? parserOptions : midFileOptions);
    if (headerLength !== undefined && fresh.state !== undefined) fresh.state.expectedRecordLength = headerLength;
    return fresh;
  };
  // The quote-free fast split (splitLines): the delimiter and the quote as bytes; -1, none.
  const delimiterByte = asciiByte(options.delimiter);
  const quoteByte = asciiByte(csv?.quote ?? '"');
  const splitFast = delimiterByte >= 0 && quoteByte >= 0 && options.csvParseOnly !== true;
  // The split stopped after SPLIT_BATCH records, the window's other complete lines to follow
  // when those are read (splitAtEnd: the window is the end of the input).
  let splitPending = false;
  let splitAtEnd = false;
  // csv-parse was fed input past the last record (it holds a partial record); false: the next
  // piece of csv-parse's work starts with a fresh parser at recordEnd
  let parserHolds = false;
  // Input bytes before the current parser's first (a parser is replaced after a line-local error):
  // every position below (windowStart, recordEnd, ParsedRecord.bytes) counts from the reader's start.
  let parserBase = 0;
  // the lines up to the header of a profile's file (its banner lines, then the header)
  const fieldsFrom = csv !== undefined && options.resumeAt === undefined ? csv.skip_lines + 1 : 0;
  // The input not yet handed back as records: `window` starts at parser byte `windowStart`.
  let window: Buffer = Buffer.alloc(0);
  let windowStart = 0;
  // The parser's byte count at the end of the last record (where the next one starts).
  let recordEnd = 0;
  // Lines are counted here, not by csv-parse: it counts a quoted CRLF as two lines.
  let lineCount = 0; // the last line of the last record
  let csvLines = 0; // csv-parse's count at the last record
  // No record read yet: the input held starts at the file's start (blank lines dropped from it
  // keep its BOM first, see feed), whose BOM is csv-parse's to pass over.
  let beforeFirstRecord = true;
  const push = (record: string[]): void => {
    const end = parserBase + api.info.bytes;
    const start = recordEnd - windowStart;
    let startLine = lineCount + 1;
    let endLine = startLine;
    // csv-parse counts one line per CR or LF (a CRLF delimiter once): one more than at the last
    // record means no line break inside this one and no blank line before it; else count them
    if (api.info.lines !== csvLines + 1) ({ startLine, endLine } = countLines(window, start, end - windowStart, lineCount));
    queue.push({ record, window, start, end: end - windowStart, startLine, endLine, bytes: end, clean: false });
    // csv-parse compares each record's field count with the first record's, and for every record
    // that differs builds an error object with its position info (dropped under
    // relax_column_count, but costly: a banner line before the header made every record one and
    // the read several times slower): the count to compare with is the header's
    if (startLine <= fieldsFrom) {
      headerLength = record.length;
      if (api.state !== undefined) api.state.expectedRecordLength = record.length;
    }
    recordEnd = end;
    lineCount = endLine;
    csvLines = api.info.lines;
    beforeFirstRecord = false;
  };
  const noop = (): void => undefined;
  /**
   * The blank lines read after the last record, up to window position `to`, passed over: counted
   * as the last record's lines (as feed() does past BLANK_TRIM_AT) and not read again. Kept, they
   * were split again with every piece of input (a gzip's 8 KiB pieces: 600 MB of blank lines
   * took minutes).
   */
  const passBlankLines = (to: number, blank: number): void => {
    if (blank === 0) return;
    recordEnd = windowStart + to;
    lineCount += blank;
  };
  /**
   * The records of the complete lines of `window` from `from` on, split without csv-parse: for
   * input without a quote, where a record is a line and a field the text between two delimiters,
   * exactly what csv-parse makes of it (the same fields, lines and byte counts; a blank line is
   * no record). csv-parse's loop looks at every byte through several calls and checks of its
   * state: it was 40 % of a dry run's CPU, this split about a fifth of it (bench/RESULTS.md,
   * "The quote-free split"). Returns where it stopped at a line it leaves to csv-parse (a CR that
   * does not end a line, a line longer than max_record_size), or -1 after the last complete line
   * (and at the end of the input, after the last line), or after SPLIT_BATCH records with
   * `splitPending` set (the rest when those are read).
   */
  const splitLines = (from: number, end: boolean): number => {
    const bytes = window;
    const n = bytes.length;
    const ascii = isAscii(bytes.subarray(from));
    const cuts: number[] = []; // the delimiters of the line being read
    let p = from; // the start of the line
    let blank = 0; // blank lines since the last record
    // one pass over the bytes in JavaScript: a search per field (Buffer.indexOf) cost more in
    // calls than it saved in bytes not looked at
    for (let i = from; ; i++) {
      let lineEnd: number;
      let next: number;
      if (i === n) {
        // a line without its line end yet; at the end of the input, the last line
        if (!end) {
          if (n - p > maxRecordSize) return p;
          passBlankLines(p, blank);
          return -1;
        }
        if (i === p) return -1;
        lineEnd = n;
        next = n;
      } else {
        const c = bytes[i];
        if (c === delimiterByte) {
          cuts.push(i);
          continue;
        }
        if (c === 0x0a) {
          lineEnd = i;
          next = i + 1;
        } else if (c === 0x0d) {
          // a CR is a line end of its own unless an LF follows it: csv-parse's part
          if (i + 1 === n) {
            if (end) return p;
            passBlankLines(p, blank);
            return -1;
          }
          if (bytes[i + 1] !== 0x0a) return p;
          lineEnd = i;
          next = i + 2;
        } else continue;
      }
      if (lineEnd - p > maxRecordSize) return p;
      if (lineEnd === p) blank++;
      else {
        const record = lineFields(bytes, p, lineEnd, cuts, ascii);
        const startLine = lineCount + blank + 1;
        queue.push({
          record,
          window,
          start: recordEnd - windowStart,
          end: next,
          startLine,
          endLine: startLine,
          bytes: windowStart + next,
          clean: false,
        });
        if (startLine <= fieldsFrom) headerLength = record.length;
        recordEnd = windowStart + next;
        lineCount = startLine;
        beforeFirstRecord = false;
        blank = 0;
        if (queue.length >= SPLIT_BATCH && next < n) {
          // the rest when these are read (splitPending): few records alive at a time
          splitPending = true;
          splitAtEnd = end;
          return -1;
        }
      }
      cuts.length = 0;
      if (next === n) {
        passBlankLines(next, blank);
        return -1;
      }
      p = next;
      i = next - 1;
    }
  };
  // Where splitLines last left the input to csv-parse (a reader byte; -1: the current parser was
  // not started by it). While csv-parse has not read past that line, the split would leave the
  // same line to a fresh parser again at every read: a line over maxRecordSize that csv-parse
  // takes (its limit counts the fields' characters, not the delimiters: a line of commas) was
  // parsed again from its start at each read, quadratic in its length (8 MB: 0.9 -> 10.8 s CPU).
  let leftAt = -1;
  /** The records of the input after the last record: split fast where it has no quote, else by csv-parse. */
  const splitOrParse = (data: Buffer | undefined, end: boolean): Error | undefined => {
    // csv-parse reads on in the line the split left to it
    if (parserHolds && recordEnd <= leftAt) return api.parse(data, end, push, noop);
    const from = recordEnd - windowStart;
    // a BOM at the reader's start is csv-parse's to pass over (also once blank lines after it
    // were dropped: it is kept first, and the last record's end is no longer 0)
    const bomFirst = beforeFirstRecord && startsFile && (window[0] === 0xef || window[0] === 0xff);
    if (!bomFirst && window.indexOf(quoteByte, from) === -1) {
      // csv-parse's partial record, if any, is in window from recordEnd on: read again here
      parserHolds = false;
      return splitFrom(end);
    }
    if (parserHolds) return api.parse(data, end, push, noop);
    leftAt = -1;
    return parseFromRecordEnd(end);
  };
  /** csv-parse from the last record on, with a fresh parser (the lines before it were split). */
  const parseFromRecordEnd = (end: boolean): Error | undefined => {
    // csv-parse reads every line from here: none is left for the split to go on with
    splitPending = false;
    api = freshParser(recordEnd);
    parserBase = recordEnd;
    csvLines = 0;
    parserHolds = true;
    return api.parse(window.subarray(recordEnd - windowStart), end, push, noop);
  };
  /** The lines of window from recordEnd on: split, and from a line the split leaves on, csv-parse. */
  const splitFrom = (end: boolean): Error | undefined => {
    const stop = splitLines(recordEnd - windowStart, end);
    if (stop === -1) return undefined;
    leftAt = windowStart + stop;
    return parseFromRecordEnd(end);
  };
  /** The next SPLIT_BATCH records of a window whose split stopped for them to be read first. */
  const continueSplit = (): void => {
    splitPending = false;
    queue = [];
    head = 0;
    const error = splitFrom(splitAtEnd);
    if (error !== undefined) failure ??= error;
    markClean(0);
  };
  /**
   * One native scan of the bytes of the records queue[first…] instead of a search in each field
   * of each record: bytes without NUL, valid UTF-8 and without U+FFFD need no per-record check.
   */
  const markClean = (first: number): void => {
    const from = queue[first];
    if (from === undefined) return;
    const read = window.subarray(from.start, recordEnd - windowStart);
    if (read.indexOf(0) === -1 && isUtf8(read) && read.indexOf(REPLACEMENT_CHARACTER) === -1) {
      for (let i = first; i < queue.length; i++) (queue[i] as ParsedRecord).clean = true;
    }
  };
  /**
   * The input breaks off (a damaged gzip): the records of every complete line read. Ended there,
   * csv-parse gives the line whose end it holds back (it looks two bytes ahead, for a CRLF) only
   * when nothing follows that line end: with part of a line after it (`…JPY\nX`), that complete
   * line was lost, where the quote-free split had already made it a record. So the input up to
   * its last line end is read to its end by a fresh parser from the last record (a record whose
   * quote is still open there is no complete line: the break's error replaces its own).
   */
  const endAtBreak = (): void => {
    if (failure !== null) return;
    if (isBlankByte(lastByte)) {
      feed(undefined, true);
      return;
    }
    const cut = Math.max(window.lastIndexOf(0x0a), window.lastIndexOf(0x0d)) + 1;
    if (cut <= recordEnd - windowStart) return;
    window = window.subarray(0, cut);
    feed(undefined, true, true);
  };
  /** Read `data` (undefined: none; `end`: the input ends after it); `restart`: window from the last record on, by a fresh parser. */
  const feed = (data: Buffer | undefined, end: boolean, restart = false): void => {
    if (data !== undefined) {
      // keep the bytes from the start of the next record on (at most one record plus a chunk)
      let keep = window.subarray(recordEnd - windowStart);
      windowStart = recordEnd;
      // Blank lines make no record: kept, they grew the input held without bound (a gzip of
      // 1 GB of blank lines held hundreds of MB, copied again at every chunk). Dropped once
      // there is much of them, their lines counted as the last record's (a record's raw text
      // never holds the blank lines before it). A BOM stays first (the header's).
      if (keep.length > BLANK_TRIM_AT) {
        const bom = beforeFirstRecord && startsFile && hasBom(keep) ? 3 : 0;
        if (isBlankByte(keep[bom])) {
          const blank = leadingBlankBytes(keep, bom);
          if (blank.length > 0) {
            keep = bom === 0 ? keep.subarray(blank.length) : Buffer.concat([keep.subarray(0, bom), keep.subarray(bom + blank.length)]);
            windowStart += blank.length;
            recordEnd = windowStart;
            lineCount += blank.lines;
          }
        }
      }
      window = keep.length === 0 ? data : Buffer.concat([keep, data]);
      if (data.length > 0) lastByte = data[data.length - 1];
    }
    const first = queue.length;
    const error = restart ? parseFromRecordEnd(end) : splitFast ? splitOrParse(data, end) : api.parse(data, end, push, noop);
    if (error !== undefined) failure ??= error;
    markClean(first);
  };
  let chunksWithoutRecord = 0;
  let lastByte: number | undefined; // of the input so far
  let inputEnded = false;
  /** The next piece of the input as the parser reads it (decoded to UTF-8), null at its end. */
  const nextInput = async (): Promise<Buffer | null> => {
    if (inputEnded) return null;
    const chunk = await chunks.next();
    if (chunk.done === true) {
      inputEnded = true;
      const tail = decoder?.decode() ?? '';
      return tail === '' ? null : Buffer.from(tail, 'utf8');
    }
    // a chunk of ASCII bytes is the same text in UTF-8: a single-byte encoding keeps no state
    // between chunks, so such a chunk needs no decoding (a European export is mostly ASCII)
    const same = decoder === null || (singleByte && isAscii(chunk.value));
    return same ? chunk.value : Buffer.from(decoder.decode(chunk.value, { stream: true }), 'utf8');
  };
  const refill = async (): Promise<ParsedRecord | null> => {
    while (head >= queue.length) {
      queue = [];
      head = 0;
      if (splitPending) {
        continueSplit();
        continue;
      }
      if (failure !== null) throw failure;
      if (ended || closed || options.signal?.aborted === true) return null;
      // chunks that make no record (blank lines) may come from buffers without a turn of the loop
      if (++chunksWithoutRecord % CHUNKS_PER_TURN === 0) await turnOfEventLoop();
      let data: Buffer | null;
      try {
        data = await nextInput();
      } catch (error) {
        if (error instanceof GzipDataError) {
          // The content read so far is sound: every complete line of it is a record.
          endAtBreak();
          failure = error;
          ended = true;
          continue;
        }
        // eslint-disable-next-line preserve-caught-error -- the message names the OS code; as a cause, src/pipeline/db-error.ts would classify it
        throw new Error(`cannot read the file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      }
      // closed and failure change in close() and feed(), which TypeScript's narrowing cannot see
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      if (closed) return null;
      if (data === null) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (failure === null) feed(undefined, true);
        ended = true;
        continue;
      }
      feed(data, false);
    }
    chunksWithoutRecord = 0;
    return queue[head++] ?? null;
  };
  const skipFailedLine = async (): Promise<SkippedLine> => {
    // The failed record starts at recordEnd: feed() keeps the input from there on in `window`.
    let buf = window.subarray(recordEnd - windowStart);
    let at = recordEnd; // reader position of buf[0]
    let i = 0;
    /** True when buf[i] holds the next byte of the input (read on at a piece's end). */
    const available = async (): Promise<boolean> => {
      while (i >= buf.length) {
        let data: Buffer | null;
        try {
          data = await nextInput();
        } catch (error) {
          // a broken gzip after the line: the line is passed over, then the reader stops there
          if (!(error instanceof GzipDataError)) throw error;
          failure = error;
          data = null;
        }
        if (data === null) return false;
        if (data.length > 0) lastByte = data[data.length - 1];
        at += buf.length;
        buf = data;
        i = 0;
      }
      return true;
    };
    const kept: number[] = [];
    let blankLines = 0;
    let inLine = false;
    while (i < buf.length || (await available())) {
      const byte = buf[i++] as number;
      if (byte === 0x0a || byte === 0x0d) {
        // CRLF is one line end, a lone CR another
        if (byte === 0x0d && (i < buf.length || (await available())) && buf[i] === 0x0a) i++;
        if (inLine) break;
        blankLines++;
        continue;
      }
      inLine = true;
      if (kept.length < RAW_LIMIT * 4) kept.push(byte);
    }
    const pendingFailure: Error | null = failure instanceof GzipDataError ? failure : null;
    const atEnd = pendingFailure === null && !(i < buf.length || (await available()));
    const from = at + i;
    const skipped: SkippedLine = { raw: Buffer.from(kept).toString('utf8'), lineNo: lineCount + blankLines + 1, bytes: from, atEnd };
    // a fresh parser from the next line on, told the field count to compare with
    api = freshParser(from);
    parserHolds = false;
    parserBase = from;
    windowStart = from;
    recordEnd = from;
    beforeFirstRecord = false;
    window = Buffer.alloc(0);
    lineCount = skipped.lineNo;
    csvLines = 0;
    queue = [];
    head = 0;
    failure = null;
    splitPending = false;
    ended = atEnd;
    if (!atEnd) {
      feed(buf.subarray(i), false);
      if (pendingFailure !== null) {
        // as refill does at a broken gzip: every complete line read is a record
        endAtBreak();
        failure = pendingFailure;
        ended = true;
      }
    }
    return skipped;
  };
  return {
    // synchronous while records are queued: no promise per record
    next: () => {
      if (head < queue.length) return queue[head++] ?? null;
      if (splitPending) continueSplit();
      return head < queue.length ? (queue[head++] ?? null) : refill();
    },
    skipFailedLine,
    bytesRead: () => source.fileBytesRead(),
    close() {
      closed = true;
      source.close();
    },
  };
}

function describeHeader(names: string[], path: string): OrderFileHeader {
  const positions = new Map<OrderColumn, number>();
  const extraColumns: string[] = [];
  names.forEach((raw, index) => {
    const name = raw.trim().toLowerCase();
    if ((ORDER_COLUMNS as readonly string[]).includes(name)) {
      if (positions.has(name as OrderColumn)) throw new UserError(`${path}: line 1: column "${name}" appears twice in the header`);
      positions.set(name as OrderColumn, index);
    } else {
      extraColumns.push(raw.trim());
    }
  });
  const missing = ORDER_COLUMNS.filter((c) => !positions.has(c));
  if (missing.length > 0) {
    throw new UserError(
      `${path}: line 1: missing required column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (header must name ${ORDER_COLUMNS.join(',')}, in any order)`,
    );
  }
  const errorExport = isErrorExportHeader(names);
  const header: OrderFileHeader = { names: names.map((n) => n.trim()), errorExport, positions, extraColumns, columnCount: names.length };
  if (!errorExport) return header;
  // Our own export read back: its columns past the export's own are the attributes of the rows
  // it was written from (one column each, src/cli/errors-csv.ts), kept again.
  const reserved = new Set<number>();
  names.forEach((n, i) => {
    if (RESERVED_ATTRIBUTE_NAMES.includes(n.trim().toLowerCase())) reserved.add(i);
  });
  if (reserved.size === names.length) return header;
  const attributes = attributeColumns(names, reserved, 'keep', (n) => n.trim(), path);
  const kept = new Set(attributes.indexes);
  return { ...header, extraColumns: header.names.filter((_, i) => !positionsHas(positions, i) && !kept.has(i)), attributes };
}

function positionsHas(positions: Map<OrderColumn, number>, index: number): boolean {
  for (const i of positions.values()) if (i === index) return true;
  return false;
}

/**
 * Open an order file: read and check its header (before anything is written anywhere), then
 * stream its records through csv-parse with backpressure. Memory is bounded by one record.
 */
export async function openOrderFile(path: string, options: OrderFileOptions): Promise<OrderFile> {
  const size = await sizeToRead(path, options.read?.file);
  if (size === 0)
    throw new UserError(
      options.profile === undefined
        ? `${path}: the file is empty (expected a header line ${ORDER_COLUMNS.join(',')})`
        : `${path}: the file is empty (profile ${options.profile.name})`,
    );

  const file = options.read?.file ?? path;
  if (options.gzip === undefined) options = { ...options, gzip: await isGzipFile(file) };
  const profile = options.profile;
  if (profile !== undefined) {
    // the profile says how the file is read: its encoding (a BOM says UTF-16) and delimiter
    options = { ...options, encoding: await fileEncoding(file, profile.spec.encoding), delimiter: profile.spec.delimiter ?? ',' };
    const reader = formatReader(profile);
    if (reader !== null) return reader(path, size, options, profile);
  } else if (options.encoding === 'utf-8') {
    // a UTF-16 file (by its BOM) is decoded as such, also on a resumed read
    options = { ...options, encoding: await fileEncoding(file, options.encoding) };
  }
  const utf8 = options.encoding === 'utf-8';
  // a decoder's U+FFFD stands for bytes the encoding does not have, except in UTF-16 (which can
  // hold the character itself) and windows-1252 (every byte is a character): such a line is rejected
  const invalidBytes = invalidBytesMessage(options.encoding);
  const spec = profile?.spec;
  const skipLines = spec?.skip_lines ?? 0;
  const comment = spec?.comment;
  let discarded = 0;
  let discardedByWhen = 0;
  const controlRule = spec === undefined ? null : controlRecordRule(spec);
  const controls: ControlRecord[] = [];
  const observe = options.observe;
  /**
   * A record a profile passes over before the header or anywhere: banner lines, comments (a line
   * that starts with the comment, not a quoted first field that does: "#7" is data).
   */
  const passedOver = (next: ParsedRecord): boolean =>
    lineBase + next.startLine <= skipLines ||
    (comment !== undefined && (next.record[0] ?? '').trimStart().startsWith(comment) && rawText(next).trimStart().startsWith(comment));
  const tellPassedOver = (next: ParsedRecord, reason: PassedOverReason, value?: string): void =>
    observe?.passedOver({
      lineNo: lineBase + next.startLine,
      raw: rawText(next),
      reason: reason === 'when' || reason === 'header' || lineBase + next.startLine > skipLines ? reason : 'skip_lines',
      ...(value === undefined ? {} : { value }),
    });
  const reader = openRecordReader(path, options);
  const lineBase = options.resumeAt !== undefined ? options.resumeAt.line : 0;
  const byteBase = options.resumeAt?.byte ?? 0;

  let header: OrderFileHeader;
  // where the header ends: the last line read before the first data line
  let headerEnd = { line: lineBase + 1, byte: byteBase };
  let profileColumns: ProfileColumns | null = null;
  if (spec !== undefined && spec.header === false) {
    header = { names: [], errorExport: false, positions: new Map(), extraColumns: [], columnCount: 0 };
    profileColumns = profileHeader([], path, profile as LoadProfile, 0, options.onWarning);
  } else if (options.resumeAt === undefined) {
    let first: ParsedRecord | null;
    try {
      for (;;) {
        first = await reader.next();
        if (first === null || spec === undefined || !passedOver(first)) break;
        discarded++;
        tellPassedOver(first, 'comment');
      }
    } catch (error) {
      reader.close();
      throw new UserError(`${path}: line 1: cannot read the header: ${csvErrorSummary(error as Error)}`);
    }
    if (first === null) {
      reader.close();
      if (options.signal?.aborted === true) throw new RunAbortedError(`interrupted while reading the header of ${path}`, 'interrupted');
      throw new UserError(
        `${path}: the file has no header line (expected ${profile === undefined ? ORDER_COLUMNS.join(',') : 'the header the profile names'})`,
      );
    }
    headerEnd = { line: lineBase + first.endLine, byte: byteBase + first.bytes };
    try {
      if (profile === undefined) header = describeHeader(first.record, path);
      else {
        profileColumns = profileHeader(first.record, path, profile, lineBase + first.startLine, options.onWarning);
        header = profileColumns.header;
      }
    } catch (error) {
      reader.close();
      throw error;
    }
    if (observe !== undefined) tellPassedOver(first, 'header');
    // the lines passed over before the header are not data lines
    discarded = 0;
  } else {
    // Resuming mid-file: the header was checked by the run that started the load; read it
    // again from the first line without consuming the resumed stream.
    header = await readHeaderOnly(path, options);
    if (profile !== undefined) profileColumns = profileHeader(header.names, path, profile, 0, options.onWarning);
  }

  const errorExport = header.errorExport;
  const exportAttributes = profile === undefined ? header.attributes : undefined;
  const columnCount = header.columnCount;
  const position = (column: OrderColumn): number => header.positions.get(column) ?? -1;
  const [iSourceKey, iCustomerId, iOrderDate, iAmount, iCurrency] = ORDER_COLUMNS.map(position) as [number, number, number, number, number];
  const orderIndexes = [iSourceKey, iCustomerId, iOrderDate, iAmount, iCurrency];
  let lastEndLine = options.resumeAt === undefined ? headerEnd.line : lineBase;
  let lastEndByte: number | null = utf8 ? (options.resumeAt === undefined ? headerEnd.byte : byteBase) : null;
  let finished = false;

  /** What the parser's failure makes of the rest of the file: one rejected line, or the end. */
  async function afterFailure(error: unknown): Promise<FileItem> {
    const e = error as Error & { code?: string; lines?: number };
    if (e.code !== undefined && LINE_LOCAL_CSV_ERRORS.has(e.code)) {
      // An error confined to one line (a record too large): reject that line with its text and
      // read on from the next one, in every encoding.
      const skipped = await reader.skipFailedLine();
      const endByte = utf8 ? byteBase + skipped.bytes : null;
      const endLine = lineBase + skipped.lineNo;
      const item: FileReject = {
        kind: 'reject',
        lineNo: endLine,
        raw: cleanRaw(skipped.raw),
        code: `CSV_${e.code.replace(/^CSV_/, '')}`,
        message: `${csvErrorSummary(e)}; the line was skipped`,
        endByte,
        endLine,
        stopsFile: false,
      };
      lastEndLine = endLine;
      lastEndByte = endByte;
      if (skipped.atEnd) finished = true;
      return item;
    }
    const startLine = lastEndLine + 1;
    finished = true;
    return {
      kind: 'reject',
      lineNo: startLine,
      raw: '',
      code: e instanceof GzipDataError ? e.code : `CSV_${(e.code ?? 'ERROR').replace(/^CSV_/, '')}`,
      message: `${csvErrorSummary(e)}; the file could not be read past line ${startLine - 1}`,
      endByte: lastEndByte,
      endLine: startLine,
      stopsFile: true,
    };
  }

  /** The item of a record the parser read; null: a line the profile discards. */
  function toItem(next: ParsedRecord): FileItem | null {
    const record = next.record;
    const endLine = lineBase + next.endLine;
    const endByte = utf8 ? byteBase + next.bytes : null;
    lastEndLine = endLine;
    lastEndByte = endByte;
    const lineNo = lineBase + next.startLine;
    if (profileColumns !== null) {
      // a control record (trailer or header) states the file's totals: no data row, whatever
      // skip_lines, comment or `when` say (a header record is often in skip_lines too)
      if (controlRule?.fields(record) === true) {
        controls.push({ lineNo, fields: [...record], text: rawText(next) });
        if (observe !== undefined) tellPassedOver(next, 'control');
        return null;
      }
      if (passedOver(next)) {
        discarded++;
        if (observe !== undefined) tellPassedOver(next, 'comment');
        return null;
      }

      return toProfileItem(next, profileColumns, record, lineNo, endByte, endLine);
    }
    if (record.length !== columnCount) {
      return reject(
        lineNo,
        next,
        'PARSE_FIELD_COUNT',
        `expected ${columnCount} fields as in the header, found ${record.length}`,
        endByte,
        endLine,
      );
    }
    // Our own export carries the rejected line's raw text (with its U+FFFD) in a column that
    // is not loaded: only the order columns it holds must be valid text. Every character of a
    // line other than its delimiters and quotes is in one of its fields.
    if (
      !next.clean &&
      (utf8 || invalidBytes !== null) &&
      (errorExport ? orderIndexes.some((i) => record[i]?.includes('\uFFFD') === true) : anyIncludes(record, '\uFFFD'))
    ) {
      return reject(
        lineNo,
        next,
        'PARSE_ENCODING',
        invalidBytes ?? 'the line is not valid UTF-8 (use --encoding shift_jis for a Shift_JIS file)',
        endByte,
        endLine,
      );
    }
    if (!next.clean && anyIncludes(record, '\u0000')) return reject(lineNo, next, 'PARSE_NUL_BYTE', NUL_BYTE_MESSAGE, endByte, endLine);
    // Excel's text guard ="000123" is unwrapped in every field (src/input/excel-guard.ts)
    const fields: Record<OrderColumn, string> = errorExport
      ? {
          source_key: unwrapExcelGuard(restoreFormula(record[iSourceKey] ?? '')),
          customer_id: unwrapExcelGuard(restoreFormula(record[iCustomerId] ?? '')),
          order_date: unwrapExcelGuard(restoreFormula(record[iOrderDate] ?? '')),
          amount: unwrapExcelGuard(restoreFormula(record[iAmount] ?? '')),
          currency: unwrapExcelGuard(restoreFormula(record[iCurrency] ?? '')),
        }
      : {
          source_key: unwrapExcelGuard(record[iSourceKey] ?? ''),
          customer_id: unwrapExcelGuard(record[iCustomerId] ?? ''),
          order_date: unwrapExcelGuard(record[iOrderDate] ?? ''),
          amount: unwrapExcelGuard(record[iAmount] ?? ''),
          currency: unwrapExcelGuard(record[iCurrency] ?? ''),
        };
    if (observe !== undefined)
      observe.fieldsRead(lineNo, {
        source_key: record[iSourceKey] ?? '',
        customer_id: record[iCustomerId] ?? '',
        order_date: record[iOrderDate] ?? '',
        amount: record[iAmount] ?? '',
        currency: record[iCurrency] ?? '',
      });
    // our own export read back: its attribute columns are the row's attributes again
    if (exportAttributes !== undefined)
      return new ReadRecord(lineNo, fields, endByte, endLine, next, null, attributesJson(record, exportAttributes, restoreFormula));
    return new ReadRecord(lineNo, fields, endByte, endLine, next);
  }

  /** A record read through the profile: its columns found, `when` applied, mapped onto the five fields. */
  function toProfileItem(
    next: ParsedRecord,
    columns: ProfileColumns,
    record: string[],
    lineNo: number,
    endByte: number | null,
    endLine: number,
  ): FileItem | null {
    // `when` first: a trailer with fewer fields (TOTAL|4|16399.50) is not an order, not a field-count error
    if (columns.when >= 0 && !columns.mapping.keep(record[columns.when] ?? '')) {
      discarded++;
      discardedByWhen++;
      if (observe !== undefined) tellPassedOver(next, 'when', record[columns.when] ?? '');
      return null;
    }
    if (columns.header.columnCount > 0 ? record.length !== columns.header.columnCount : record.length < columns.needed) {
      const expected =
        columns.header.columnCount > 0 ? `${columns.header.columnCount} fields as in the header` : `at least ${columns.needed} fields`;
      return reject(lineNo, next, 'PARSE_FIELD_COUNT', `expected ${expected}, found ${record.length}`, endByte, endLine);
    }
    if (!next.clean && (utf8 || invalidBytes !== null) && anyIncludes(record, '\uFFFD')) {
      return reject(
        lineNo,
        next,
        'PARSE_ENCODING',
        invalidBytes ?? 'the line is not valid UTF-8 (set encoding: in the profile)',
        endByte,
        endLine,
      );
    }
    if (!next.clean && anyIncludes(record, '\u0000')) return reject(lineNo, next, 'PARSE_NUL_BYTE', NUL_BYTE_MESSAGE, endByte, endLine);
    if (observe !== undefined) {
      const indexes = columns.indexes;
      const raw = {} as Record<OrderColumn, string | null>;
      for (const c of ORDER_COLUMNS) raw[c] = indexes[c] < 0 ? null : (record[indexes[c]] ?? '');
      observe.fieldsRead(lineNo, raw);
    }
    const fields = columns.mapping.recordFields(record, columns.order);
    const kept = columns.attributes;
    const attributes = kept === null ? null : attributesJson(record, typeof kept === 'function' ? kept(record.length) : kept);
    return new ReadRecord(lineNo, fields, endByte, endLine, next, columns.mapping.lastProblem(), attributes);
  }

  const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };
  const result = (next: ParsedRecord | null): IteratorResult<FileItem> | Promise<IteratorResult<FileItem>> => {
    if (next === null) {
      finished = true;
      profileColumns?.mapping.finish();
      return DONE;
    }
    const item = toItem(next);
    // a discarded line: on to the next record
    return item === null ? iteratorOfItems.next() : { done: false, value: item };
  };
  // An async iterator by hand rather than an async generator: while the parser has records
  // queued, an item costs one resolved promise (a generator's yield costs several microtask
  // turns; the generator was ≈ 8 % of the dry run's CPU).
  const iteratorOfItems: AsyncIterableIterator<FileItem> = {
    next(): Promise<IteratorResult<FileItem>> {
      if (finished) return Promise.resolve(DONE);
      for (;;) {
        let pending: ParsedRecord | null | Promise<ParsedRecord | null>;
        try {
          pending = reader.next();
        } catch (error) {
          return afterFailure(error).then((item) => ({ done: false, value: item }));
        }
        if (pending instanceof Promise)
          return pending.then(result, (error: unknown) => afterFailure(error).then((item) => ({ done: false as const, value: item })));
        if (pending === null) return Promise.resolve(result(null));
        const item = toItem(pending);
        // a discarded line: on to the next record, without a promise while records are queued
        if (item !== null) return Promise.resolve({ done: false, value: item });
      }
    },
    return(): Promise<IteratorResult<FileItem>> {
      finished = true;
      return Promise.resolve(DONE);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };

  return {
    path,
    size,
    header,
    items: iteratorOfItems,
    bytesRead: () => reader.bytesRead(),
    discarded: () => discarded,
    discardedByWhen: () => discardedByWhen,
    controlRecords: () => controls,
    close: () => reader.close(),
  };
}

/** What reading a CSV file through a profile needs of its header. */
interface ProfileColumns {
  header: OrderFileHeader;
  /** The record index of each of the five fields (-1: a const field). */
  indexes: Record<OrderColumn, number>;
  /** The same in ORDER_COLUMNS order (Mapping.recordFields). */
  order: number[];
  /** The record index `when` tests, or -1. */
  when: number;
  /** Fields a header-less record must have at least. */
  needed: number;
  mapping: ReturnType<typeof compileMapping>;
  /** The columns kept as attributes (by record length for a header-less file), or null (`extra: ignore`). */
  attributes: AttributeColumns | ((length: number) => AttributeColumns) | null;
}

/**
 * The columns a profile names, found in the header (names matched ignoring case, surrounding
 * blanks and full-width/half-width differences; a list of aliases: the first found) or by their
 * 1-based number. A column the header lacks refuses the file before anything is written.
 */
function profileHeader(
  names: string[],
  path: string,
  profile: LoadProfile,
  headerLine: number,
  warn?: (message: string) => void,
): ProfileColumns {
  const keys = names.map(headerKey);
  const used = new Set<number>();
  const foundNames: Partial<Record<OrderColumn, string>> = {};
  const locate = (ref: string | number | string[] | undefined, what: string): number => {
    if (ref === undefined) return -1;
    if (typeof ref === 'number') {
      if (names.length > 0 && ref > names.length)
        throw new UserError(`profile ${profile.name}: ${what}: column ${ref}, but the header of ${path} has ${names.length} columns`);
      return ref - 1;
    }
    const wanted = typeof ref === 'string' ? [ref] : ref;
    for (const w of wanted) {
      const i = keys.indexOf(headerKey(w));
      const again = keys.indexOf(headerKey(w), i + 1);
      // two columns of that name: which one is meant cannot be told (the built-in format refuses it too)
      if (i >= 0 && again >= 0)
        throw new UserError(
          `profile ${profile.name}: ${what}: ${JSON.stringify(w)} names columns ${i + 1} and ${again + 1} of the header of ${path}: which one is meant cannot be told`,
        );
      if (i >= 0) return i;
    }
    const shown = names.map((n) => n.trim()).join(', ');
    throw new UserError(
      `profile ${profile.name}: ${what}: ${describeSource({ column: ref })} is not in the header of ${path}${headerLine > 0 ? ` (line ${headerLine}: ${shown})` : ''}`,
    );
  };
  const indexes = {} as Record<OrderColumn, number>;
  const positions = new Map<OrderColumn, number>();
  for (const c of ORDER_COLUMNS) {
    const spec = profile.spec.columns[c];
    const i = spec.const !== undefined ? -1 : locate(spec.column, `columns.${c}.column`);
    indexes[c] = i;
    if (i >= 0) {
      used.add(i);
      positions.set(c, i);
      if (names[i] !== undefined) foundNames[c] = names[i].trim();
    }
  }
  // the columns of the five fields: every other one may be kept (`when`'s too: it is data)
  const mapped = new Set(used);
  const when = locate(profile.spec.when?.column, 'when.column');
  if (when >= 0) used.add(when);
  const needed = Math.max(...Object.values(indexes), when) + 1;
  const extra = profile.spec.extra;
  let attributes: ProfileColumns['attributes'] = null;
  if (extra !== 'ignore') {
    attributes =
      names.length === 0 && extra === 'keep'
        ? positionalAttributes(mapped)
        : attributeColumns(names, mapped, extra, headerKey, `profile ${profile.name}: ${path}`);
  }
  const kept = attributes === null || typeof attributes === 'function' ? new Set<number>() : new Set(attributes.indexes);
  // `extra: ignore` written in the profile: the columns are left out on purpose, without a warning
  const extraColumns = profile.quietExtra === true ? [] : names.map((n) => n.trim()).filter((_, i) => !used.has(i) && !kept.has(i));
  return {
    header: {
      names: names.map((n) => n.trim()),
      errorExport: false,
      positions,
      extraColumns,
      columnCount: names.length,
      ...(attributes !== null && typeof attributes !== 'function' ? { attributes } : {}),
    },
    indexes,
    order: ORDER_COLUMNS.map((c) => indexes[c]),
    when,
    needed,
    mapping: compileMapping(profile, foundNames, warn === undefined ? undefined : (m) => warn(`${path}: ${m}`), path),
    attributes,
  };
}

/**
 * csv-parse errors that concern one line only: the line is rejected and reading goes on. Under
 * relax_quotes only a record too large is one (the two quote errors stay listed: should a quote
 * ever be read strictly again, they are line-local too). An unterminated quote that reaches the
 * end of the file is structural: it stops the file.
 */
const LINE_LOCAL_CSV_ERRORS = new Set(['CSV_MAX_RECORD_SIZE', 'INVALID_OPENING_QUOTE', 'CSV_INVALID_CLOSING_QUOTE']);

function csvErrorSummary(e: Error & { code?: string }): string {
  switch (e.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quoted field is not closed (unterminated quote)';
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'a closing quote is followed by other characters';
    case 'INVALID_OPENING_QUOTE':
      return 'a quote appears inside an unquoted field';
    case 'CSV_MAX_RECORD_SIZE':
      return 'a record is larger than the maximum record size';
    default:
      return e.message.replace(/\s+/g, ' ').slice(0, 200);
  }
}

async function readHeaderOnly(path: string, options: OrderFileOptions): Promise<OrderFileHeader> {
  const file = await openOrderFile(path, {
    ...options,
    read: { ...options.read, tap: undefined },
    resumeAt: undefined,
    observe: undefined,
  });
  file.close();
  return file.header;
}
