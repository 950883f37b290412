/**
 * The splitting half of the delimited record reader: the input held (`window`), split into
 * records without csv-parse where it has no quote (`splitLines`) and by csv-parse elsewhere,
 * records queued with their lines and byte offsets. DelimitedRecords (delimited-records.ts) feeds
 * it the decoded input and hands the records out.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import type { Options } from 'csv-parse';
import { openByteSource, type ByteSource } from '../gzip.js';
import type { OrderFileOptions } from '../order-file.js';
import type { LoadProfileSpec } from '../profile/schema.js';
import { csvApi, type CsvApi } from './csv-api.js';
import {
  asciiByte,
  BLANK_TRIM_AT,
  countLines,
  hasBom,
  isBlankByte,
  leadingBlankBytes,
  lineFields,
  SPLIT_BATCH,
} from './delimited-bytes.js';
import { REPLACEMENT_CHARACTER, type RawSpan } from './raw-span.js';

export interface ParsedRecord extends RawSpan {
  record: string[];
  /** The record's first and last line, counted from the reader's start (1 = its first line). */
  startLine: number;
  endLine: number;
  /** Bytes read by the parser up to the end of this record (its delimiter included). */
  bytes: number;
  /** Its bytes are known to hold no NUL and, read as UTF-8, no U+FFFD (checked once per chunk). */
  clean: boolean;
  /** Its bytes are known to hold no `=`: none of its fields is Excel's text guard `="…"` (checked once per chunk). */
  unguarded: boolean;
}

const noop = (): void => undefined;

export abstract class RecordSplitter {
  protected readonly source: ByteSource;
  protected readonly chunks: AsyncIterator<Buffer>;
  protected readonly decoder: InstanceType<typeof TextDecoder> | null;
  protected readonly singleByte: boolean;
  protected readonly csv: LoadProfileSpec | undefined;
  /** A BOM is passed over at the start of the file only: where a resumed read starts, it is data. */
  protected readonly startsFile: boolean;
  protected readonly maxRecordSize: number;
  protected readonly parserOptions: Options;
  /** csv-parse after the reader's first byte: a BOM there is data, as it was to the parser that read the file from its start. */
  protected readonly midFileOptions: Options;
  /** The quote-free fast split (splitLines): the delimiter and the quote as bytes; -1, none. */
  protected readonly delimiterByte: number;
  protected readonly quoteByte: number;
  protected readonly splitFast: boolean;
  /** The lines up to the header of a profile's file (its banner lines, then the header). */
  protected readonly fieldsFrom: number;
  protected api: CsvApi;
  protected queue: ParsedRecord[] = [];
  protected head = 0;
  protected failure: Error | null = null;
  protected ended = false;
  protected closed = false;
  /** The header's field count (see push), told to every parser made after it. */
  protected headerLength: number | undefined;
  /** The split stopped after SPLIT_BATCH records, the window's other complete lines to follow when those are read (splitAtEnd: the window is the end of the input). */
  protected splitPending = false;
  protected splitAtEnd = false;
  /** csv-parse was fed input past the last record (it holds a partial record); false: the next piece of csv-parse's work starts with a fresh parser at recordEnd. */
  protected parserHolds = false;
  /** Input bytes before the current parser's first (a parser is replaced after a line-local error): every position below (windowStart, recordEnd, ParsedRecord.bytes) counts from the reader's start. */
  protected parserBase = 0;
  /** The input not yet handed back as records: `window` starts at parser byte `windowStart`. */
  protected window: Buffer = Buffer.alloc(0);
  protected windowStart = 0;
  /** The parser's byte count at the end of the last record (where the next one starts). */
  protected recordEnd = 0;
  /** Lines are counted here, not by csv-parse (it counts a quoted CRLF as two lines): the last line of the last record. */
  protected lineCount = 0;
  /** csv-parse's line count at the last record. */
  protected csvLines = 0;
  /** No record read yet: the input held starts at the file's start (blank lines dropped from it keep its BOM first, see feed), whose BOM is csv-parse's to pass over. */
  protected beforeFirstRecord = true;
  /**
   * Where splitLines last left the input to csv-parse (a reader byte; -1: the current parser was
   * not started by it). While csv-parse has not read past that line, the split would leave the
   * same line to a fresh parser again at every read: a line over maxRecordSize that csv-parse
   * takes (its limit counts the fields' characters, not the delimiters: a line of commas) was
   * parsed again from its start at each read, quadratic in its length (8 MB: 0.9 -> 10.8 s CPU).
   */
  protected leftAt = -1;
  protected chunksWithoutRecord = 0;
  /** The last byte of the input so far. */
  protected lastByte: number | undefined;
  protected inputEnded = false;

  constructor(
    path: string,
    protected readonly options: OrderFileOptions,
  ) {
    this.source = openByteSource(options.read?.file ?? path, {
      ...options.read,
      gzip: options.gzip === true,
      from: options.resumeAt?.byte ?? 0,
      ...(options.readChunkSize === undefined ? {} : { highWaterMark: options.readChunkSize }),
    });
    this.chunks = this.source.chunks;
    this.decoder = options.encoding === 'utf-8' ? null : new TextDecoder(options.encoding);
    this.singleByte = options.encoding === 'windows-1252';
    this.csv = options.profile?.spec;
    // a BOM is passed over at the start of the file only: where a resumed read starts, it is data
    this.startsFile = (options.resumeAt?.byte ?? 0) === 0;
    this.maxRecordSize = options.maxRecordSize ?? 1_048_576;
    this.parserOptions = {
      bom: this.startsFile,
      delimiter: options.delimiter,
      ...(this.csv?.quote !== undefined ? { quote: this.csv.quote } : {}),
      ...(this.csv?.escape !== undefined ? { escape: this.csv.escape } : {}),
      // A quote inside an unquoted field is data (SQL*Loader's OPTIONALLY ENCLOSED BY), in the
      // built-in format too: `5"Display` in a column nobody loads must not cost the order its line.
      // A quoted field's closing quote followed by other characters is kept as written with them.
      relax_quotes: true,
      record_delimiter: ['\r\n', '\n', '\r'],
      relax_column_count: true,
      skip_empty_lines: true,
      max_record_size: this.maxRecordSize,
    };
    this.api = csvApi(this.parserOptions);
    // csv-parse after the reader's first byte: a BOM there is data, as it was to the parser that
    // read the file from its start
    this.midFileOptions = { ...this.parserOptions, bom: false };
    // The quote-free fast split (splitLines): the delimiter and the quote as bytes; -1, none.
    this.delimiterByte = asciiByte(options.delimiter);
    this.quoteByte = asciiByte(this.csv?.quote ?? '"');
    this.splitFast = this.delimiterByte >= 0 && this.quoteByte >= 0 && options.csvParseOnly !== true;
    // the lines up to the header of a profile's file (its banner lines, then the header)
    this.fieldsFrom = this.csv !== undefined && options.resumeAt === undefined ? this.csv.skip_lines + 1 : 0;
  }

  /** A parser that starts reading at reader byte `at` (a record's start). */
  protected freshParser(at: number): CsvApi {
    const fresh = csvApi(at === 0 && this.startsFile ? this.parserOptions : this.midFileOptions);
    if (this.headerLength !== undefined && fresh.state !== undefined) fresh.state.expectedRecordLength = this.headerLength;
    return fresh;
  }
  protected readonly push = (record: string[]): void => {
    const end = this.parserBase + this.api.info.bytes;
    const start = this.recordEnd - this.windowStart;
    let startLine = this.lineCount + 1;
    let endLine = startLine;
    // csv-parse counts one line per CR or LF (a CRLF delimiter once): one more than at the last
    // record means no line break inside this one and no blank line before it; else count them
    if (this.api.info.lines !== this.csvLines + 1)
      ({ startLine, endLine } = countLines(this.window, start, end - this.windowStart, this.lineCount));
    this.queue.push({
      record,
      window: this.window,
      start,
      end: end - this.windowStart,
      startLine,
      endLine,
      bytes: end,
      clean: false,
      unguarded: false,
    });
    // csv-parse compares each record's field count with the first record's, and for every record
    // that differs builds an error object with its position info (dropped under
    // relax_column_count, but costly: a banner line before the header made every record one and
    // the read several times slower): the count to compare with is the header's
    if (startLine <= this.fieldsFrom) {
      this.headerLength = record.length;
      if (this.api.state !== undefined) this.api.state.expectedRecordLength = record.length;
    }
    this.recordEnd = end;
    this.lineCount = endLine;
    this.csvLines = this.api.info.lines;
    this.beforeFirstRecord = false;
  };
  /**
   * The blank lines read after the last record, up to window position `to`, passed over: counted
   * as the last record's lines (as feed() does past BLANK_TRIM_AT) and not read again. Kept, they
   * were split again with every piece of input (a gzip's 8 KiB pieces: 600 MB of blank lines
   * took minutes).
   */
  protected passBlankLines(to: number, blank: number): void {
    if (blank === 0) return;
    this.recordEnd = this.windowStart + to;
    this.lineCount += blank;
  }
  /**
   * The record of the window's line from `p` to `lineEnd` (its delimiters at `cuts`), its line
   * end ending at `next`, after `blank` blank lines: queued, and the reader's position moved past it.
   */
  protected queueLine(p: number, lineEnd: number, next: number, cuts: readonly number[], ascii: boolean, blank: number): void {
    const record = lineFields(this.window, p, lineEnd, cuts, ascii);
    const startLine = this.lineCount + blank + 1;
    this.queue.push({
      record,
      window: this.window,
      start: this.recordEnd - this.windowStart,
      end: next,
      startLine,
      endLine: startLine,
      bytes: this.windowStart + next,
      clean: false,
      unguarded: false,
    });
    if (startLine <= this.fieldsFrom) this.headerLength = record.length;
    this.recordEnd = this.windowStart + next;
    this.lineCount = startLine;
    this.beforeFirstRecord = false;
  }
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
  protected splitLines(from: number, end: boolean): number {
    const bytes = this.window;
    // read once: the loop below looks at every byte
    const delimiterByte = this.delimiterByte;
    const maxRecordSize = this.maxRecordSize;
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
          this.passBlankLines(p, blank);
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
            this.passBlankLines(p, blank);
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
        this.queueLine(p, lineEnd, next, cuts, ascii, blank);
        blank = 0;
        if (this.queue.length >= SPLIT_BATCH && next < n) {
          // the rest when these are read (splitPending): few records alive at a time
          this.splitPending = true;
          this.splitAtEnd = end;
          return -1;
        }
      }
      cuts.length = 0;
      if (next === n) {
        this.passBlankLines(next, blank);
        return -1;
      }
      p = next;
      i = next - 1;
    }
  }
  // Where splitLines last left the input to csv-parse (a reader byte; -1: the current parser was
  // not started by it). While csv-parse has not read past that line, the split would leave the
  // same line to a fresh parser again at every read: a line over maxRecordSize that csv-parse
  // takes (its limit counts the fields' characters, not the delimiters: a line of commas) was
  // parsed again from its start at each read, quadratic in its length (8 MB: 0.9 -> 10.8 s CPU).
  /** The records of the input after the last record: split fast where it has no quote, else by csv-parse. */
  protected splitOrParse(data: Buffer | undefined, end: boolean): Error | undefined {
    // csv-parse reads on in the line the split left to it
    if (this.parserHolds && this.recordEnd <= this.leftAt) return this.api.parse(data, end, this.push, noop);
    const from = this.recordEnd - this.windowStart;
    // a BOM at the reader's start is csv-parse's to pass over (also once blank lines after it
    // were dropped: it is kept first, and the last record's end is no longer 0)
    const bomFirst = this.beforeFirstRecord && this.startsFile && (this.window[0] === 0xef || this.window[0] === 0xff);
    if (!bomFirst && this.window.indexOf(this.quoteByte, from) === -1) {
      // csv-parse's partial record, if any, is in window from recordEnd on: read again here
      this.parserHolds = false;
      return this.splitFrom(end);
    }
    if (this.parserHolds) return this.api.parse(data, end, this.push, noop);
    this.leftAt = -1;
    return this.parseFromRecordEnd(end);
  }
  /** csv-parse from the last record on, with a fresh parser (the lines before it were split). */
  protected parseFromRecordEnd(end: boolean): Error | undefined {
    // csv-parse reads every line from here: none is left for the split to go on with
    this.splitPending = false;
    this.api = this.freshParser(this.recordEnd);
    this.parserBase = this.recordEnd;
    this.csvLines = 0;
    this.parserHolds = true;
    return this.api.parse(this.window.subarray(this.recordEnd - this.windowStart), end, this.push, noop);
  }
  /** The lines of window from recordEnd on: split, and from a line the split leaves on, csv-parse. */
  protected splitFrom(end: boolean): Error | undefined {
    const stop = this.splitLines(this.recordEnd - this.windowStart, end);
    if (stop === -1) return undefined;
    this.leftAt = this.windowStart + stop;
    return this.parseFromRecordEnd(end);
  }
  /** The next SPLIT_BATCH records of a window whose split stopped for them to be read first. */
  protected continueSplit(): void {
    this.splitPending = false;
    this.queue = [];
    this.head = 0;
    const error = this.splitFrom(this.splitAtEnd);
    if (error !== undefined) this.failure ??= error;
    this.markClean(0);
  }
  /**
   * One native scan of the bytes of the records queue[first…] instead of a search in each field
   * of each record: bytes without NUL, valid UTF-8 and without U+FFFD need no per-record check;
   * bytes without `=` (0x3D in UTF-8, never part of a multi-byte character) no Excel guard's test
   * of each field (five per line of the built-in format: bench/RESULTS.md, run 45).
   */
  protected markClean(first: number): void {
    const from = this.queue[first];
    if (from === undefined) return;
    const read = this.window.subarray(from.start, this.recordEnd - this.windowStart);
    const clean = read.indexOf(0) === -1 && isUtf8(read) && read.indexOf(REPLACEMENT_CHARACTER) === -1;
    const unguarded = read.indexOf(0x3d) === -1;
    if (!clean && !unguarded) return;
    // one pass over the records for both flags (a record is made with both false)
    const queue = this.queue;
    for (let i = first; i < queue.length; i++) {
      const record = queue[i] as ParsedRecord;
      record.clean = clean;
      record.unguarded = unguarded;
    }
  }
  /**
   * The input breaks off (a damaged gzip): the records of every complete line read. Ended there,
   * csv-parse gives the line whose end it holds back (it looks two bytes ahead, for a CRLF) only
   * when nothing follows that line end: with part of a line after it (`…JPY\nX`), that complete
   * line was lost, where the quote-free split had already made it a record. So the input up to
   * its last line end is read to its end by a fresh parser from the last record (a record whose
   * quote is still open there is no complete line: the break's error replaces its own).
   */
  protected endAtBreak(): void {
    if (this.failure !== null) return;
    if (isBlankByte(this.lastByte)) {
      this.feed(undefined, true);
      return;
    }
    const cut = Math.max(this.window.lastIndexOf(0x0a), this.window.lastIndexOf(0x0d)) + 1;
    if (cut <= this.recordEnd - this.windowStart) return;
    this.window = this.window.subarray(0, cut);
    this.feed(undefined, true, true);
  }
  /** Read `data` (undefined: none; `end`: the input ends after it); `restart`: window from the last record on, by a fresh parser. */
  protected feed(data: Buffer | undefined, end: boolean, restart = false): void {
    if (data !== undefined) {
      // keep the bytes from the start of the next record on (at most one record plus a chunk)
      let keep = this.window.subarray(this.recordEnd - this.windowStart);
      this.windowStart = this.recordEnd;
      // Blank lines make no record: kept, they grew the input held without bound (a gzip of
      // 1 GB of blank lines held hundreds of MB, copied again at every chunk). Dropped once
      // there is much of them, their lines counted as the last record's (a record's raw text
      // never holds the blank lines before it). A BOM stays first (the header's).
      if (keep.length > BLANK_TRIM_AT) {
        const bom = this.beforeFirstRecord && this.startsFile && hasBom(keep) ? 3 : 0;
        if (isBlankByte(keep[bom])) {
          const blank = leadingBlankBytes(keep, bom);
          if (blank.length > 0) {
            keep = bom === 0 ? keep.subarray(blank.length) : Buffer.concat([keep.subarray(0, bom), keep.subarray(bom + blank.length)]);
            this.windowStart += blank.length;
            this.recordEnd = this.windowStart;
            this.lineCount += blank.lines;
          }
        }
      }
      this.window = keep.length === 0 ? data : Buffer.concat([keep, data]);
      if (data.length > 0) this.lastByte = data[data.length - 1];
    }
    const first = this.queue.length;
    const error = restart
      ? this.parseFromRecordEnd(end)
      : this.splitFast
        ? this.splitOrParse(data, end)
        : this.api.parse(data, end, this.push, noop);
    if (error !== undefined) this.failure ??= error;
    this.markClean(first);
  }
}
