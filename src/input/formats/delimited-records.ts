/**
 * The records of a delimited file as its parser reads them: split in one pass where the input has
 * no quote, by csv-parse elsewhere (the same records, line numbers and byte offsets), from the
 * run's byte source decoded to UTF-8. No format knowledge beyond the delimiter and quote.
 */
import { isAscii } from 'node:buffer';
import { GzipDataError } from '../gzip.js';
import type { OrderFileOptions } from '../order-file.js';
import { CHUNKS_PER_TURN, turnOfEventLoop } from './delimited-bytes.js';
import { RecordSplitter, type ParsedRecord } from './delimited-split.js';
import { RAW_LIMIT } from './raw-span.js';

export type { ParsedRecord } from './delimited-split.js';

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
  return new DelimitedRecords(path, options);
}

class DelimitedRecords extends RecordSplitter implements RecordReader {
  /** The next record, synchronous while records are queued: no promise per record. */
  next(): ParsedRecord | null | Promise<ParsedRecord | null> {
    if (this.head < this.queue.length) return this.queue[this.head++] ?? null;
    if (this.splitPending) this.continueSplit();
    return this.head < this.queue.length ? (this.queue[this.head++] ?? null) : this.refill();
  }

  bytesRead(): number {
    return this.source.fileBytesRead();
  }

  close(): void {
    this.closed = true;
    this.source.close();
  }

  /** The next piece of the input as the parser reads it (decoded to UTF-8), null at its end. */
  private async nextInput(): Promise<Buffer | null> {
    if (this.inputEnded) return null;
    const chunk = await this.chunks.next();
    if (chunk.done === true) {
      this.inputEnded = true;
      const tail = this.decoder?.decode() ?? '';
      return tail === '' ? null : Buffer.from(tail, 'utf8');
    }
    // a chunk of ASCII bytes is the same text in UTF-8: a single-byte encoding keeps no state
    // between chunks, so such a chunk needs no decoding (a European export is mostly ASCII)
    const same = this.decoder === null || (this.singleByte && isAscii(chunk.value));
    return same ? chunk.value : Buffer.from(this.decoder.decode(chunk.value, { stream: true }), 'utf8');
  }
  private async refill(): Promise<ParsedRecord | null> {
    while (this.head >= this.queue.length) {
      this.queue = [];
      this.head = 0;
      if (this.splitPending) {
        this.continueSplit();
        continue;
      }
      if (this.failure !== null) throw this.failure;
      if (this.ended || this.closed || this.options.signal?.aborted === true) return null;
      // chunks that make no record (blank lines) may come from buffers without a turn of the loop
      if (++this.chunksWithoutRecord % CHUNKS_PER_TURN === 0) await turnOfEventLoop();
      let data: Buffer | null;
      try {
        data = await this.nextInput();
      } catch (error) {
        if (error instanceof GzipDataError) {
          // The content read so far is sound: every complete line of it is a record.
          this.endAtBreak();
          this.failure = error;
          this.ended = true;
          continue;
        }
        // eslint-disable-next-line preserve-caught-error -- the message names the OS code; as a cause, src/pipeline/db-error.ts would classify it
        throw new Error(`cannot read the file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      }
      // closed and failure change in close() and feed(), which TypeScript's narrowing cannot see
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      if (this.closed) return null;
      if (data === null) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (this.failure === null) this.feed(undefined, true);
        this.ended = true;
        continue;
      }
      this.feed(data, false);
    }
    this.chunksWithoutRecord = 0;
    return this.queue[this.head++] ?? null;
  }
  async skipFailedLine(): Promise<SkippedLine> {
    // The failed record starts at recordEnd: feed() keeps the input from there on in `window`.
    let buf = this.window.subarray(this.recordEnd - this.windowStart);
    let at = this.recordEnd; // reader position of buf[0]
    let i = 0;
    /** True when buf[i] holds the next byte of the input (read on at a piece's end). */
    const available = async (): Promise<boolean> => {
      while (i >= buf.length) {
        let data: Buffer | null;
        try {
          data = await this.nextInput();
        } catch (error) {
          // a broken gzip after the line: the line is passed over, then the reader stops there
          if (!(error instanceof GzipDataError)) throw error;
          this.failure = error;
          data = null;
        }
        if (data === null) return false;
        if (data.length > 0) this.lastByte = data[data.length - 1];
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
    const pendingFailure: Error | null = this.failure instanceof GzipDataError ? this.failure : null;
    const atEnd = pendingFailure === null && !(i < buf.length || (await available()));
    const from = at + i;
    const skipped: SkippedLine = { raw: Buffer.from(kept).toString('utf8'), lineNo: this.lineCount + blankLines + 1, bytes: from, atEnd };
    // a fresh parser from the next line on, told the field count to compare with
    this.api = this.freshParser(from);
    this.parserHolds = false;
    this.parserBase = from;
    this.windowStart = from;
    this.recordEnd = from;
    this.beforeFirstRecord = false;
    this.window = Buffer.alloc(0);
    this.lineCount = skipped.lineNo;
    this.csvLines = 0;
    this.queue = [];
    this.head = 0;
    this.failure = null;
    this.splitPending = false;
    this.ended = atEnd;
    if (!atEnd) {
      this.feed(buf.subarray(i), false);
      if (pendingFailure !== null) {
        // as refill does at a broken gzip: every complete line read is a record
        this.endAtBreak();
        this.failure = pendingFailure;
        this.ended = true;
      }
    }
    return skipped;
  }
}
