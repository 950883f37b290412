/**
 * The records of a delimited file as its parser reads them: split in one pass where the input has
 * no quote, by csv-parse elsewhere (the same records, line numbers and byte offsets), from the
 * run's byte source decoded to UTF-8. No format knowledge beyond the delimiter and quote.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import type { Options } from 'csv-parse';
import { GzipDataError, openByteSource } from '../gzip.js';
import type { OrderFileOptions } from '../order-file.js';
import { csvApi, type CsvApi } from './csv-api.js';
import {
  asciiByte,
  BLANK_TRIM_AT,
  CHUNKS_PER_TURN,
  countLines,
  hasBom,
  isBlankByte,
  leadingBlankBytes,
  lineFields,
  SPLIT_BATCH,
  turnOfEventLoop,
} from './delimited-bytes.js';
import { RAW_LIMIT, REPLACEMENT_CHARACTER, type RawSpan } from './raw-span.js';

export interface ParsedRecord extends RawSpan {
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
export interface SkippedLine {
  /** Its first RAW_LIMIT·4 bytes as text (blank lines before it and its line end left out). */
  raw: string;
  /** Its line number (counted from the reader's start, as ParsedRecord's lines). */
  lineNo: number;
  /** Bytes read up to the end of the line, its line end included (as ParsedRecord.bytes). */
  bytes: number;
  /** Nothing follows it. */
  atEnd: boolean;
}

export interface RecordReader {
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
 * csv-parse driven by hand: we read a chunk of the file, hand it to the parser, and collect the
 * records it produces before reading the next chunk. Backpressure is the consumer's pace; memory
 * is one chunk's records. A parse error never discards the records parsed before it.
 */
export function openRecordReader(path: string, options: OrderFileOptions): RecordReader {
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
