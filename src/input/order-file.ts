import { stat } from 'node:fs/promises';
import { parse, type Info, type Options } from 'csv-parse';
import { UserError } from '../errors.js';
import { ORDER_COLUMNS, type OrderColumn } from './order-record.js';
import { isErrorExportHeader, restoreFormula } from './formula-guard.js';
import { GzipDataError, isGzipFile, openByteSource } from './gzip.js';

export type FileEncoding = 'utf-8' | 'shift_jis';

export interface OrderFileOptions {
  encoding: FileEncoding;
  delimiter: string;
  /** The file is gzip-compressed (found by openOrderFile from its first bytes when not said): offsets are into its content. */
  gzip?: boolean | undefined;
  /** Resume: start reading at this byte offset of the content (the start of a record), counting lines from `startLine`. */
  resumeAt?: { byte: number; line: number } | undefined;
  /** Largest record accepted, in characters; a longer one is rejected, not buffered without end. */
  maxRecordSize?: number | undefined;
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
}

/** A data record of the file. */
export interface FileRecord {
  kind: 'record';
  lineNo: number;
  raw: string;
  fields: Record<OrderColumn, string>;
  /** Byte offset just past this record (a resume point), when the encoding allows it. */
  endByte: number | null;
  endLine: number;
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
  close(): void;
}

const RAW_LIMIT = 4000;

function cleanRaw(raw: string): string {
  // A NUL cannot be stored in a database text value: shown as U+2400 (SYMBOL FOR NULL).
  const trimmed = raw
    .replace(/^\r/, '')
    .replace(/[\r\n]+$/, '')
    .replaceAll('\u0000', '\u2400');
  return trimmed.length > RAW_LIMIT ? `${trimmed.slice(0, RAW_LIMIT)}…` : trimmed;
}

function countNewlines(fields: string[]): number {
  let n = 0;
  for (const f of fields) {
    for (let i = f.indexOf('\n'); i !== -1; i = f.indexOf('\n', i + 1)) n++;
  }
  return n;
}

interface ParsedRecord {
  record: string[];
  raw: string;
  info: Info;
}

interface RecordReader {
  /** The next record, null at the end; throws the parser's error after every record before it. */
  next(): Promise<ParsedRecord | null>;
  bytesRead(): number;
  close(): void;
}

/**
 * csv-parse driven by hand: we read a chunk of the file, write it to the parser, and collect
 * the records it produces (on_record) before reading the next chunk. Backpressure is the
 * consumer's pace; memory is one chunk's records. Unlike reading the parser as a stream, a
 * parse error can never discard records parsed before it (a destroyed stream drops its buffer).
 */
function openRecordReader(path: string, options: OrderFileOptions): RecordReader {
  const source = openByteSource(path, { gzip: options.gzip === true, from: options.resumeAt?.byte ?? 0 });
  const chunks = source.chunks;
  const decoder = options.encoding === 'utf-8' ? null : new TextDecoder(options.encoding);
  let queue: ParsedRecord[] = [];
  let head = 0;
  let failure: Error | null = null;
  let ended = false;
  const csvOptions: Options = {
    bom: true,
    delimiter: options.delimiter,
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_column_count: true,
    skip_empty_lines: true,
    raw: true,
    max_record_size: options.maxRecordSize ?? 1_048_576,
    // With raw on, csv-parse hands on_record { record, raw }, and always passes its record info
    // (lines, bytes) as the second argument. `info: true` would build that info object a second
    // time per record (measured ≈ 20 % of parse CPU for both copies, bench/RESULTS.md).
    on_record: (record: unknown, info: Info) => {
      const r = record as { record: string[]; raw: string };
      queue.push({ record: r.record, raw: r.raw, info });
      return null; // nothing goes through the stream side
    },
  };
  const parser = parse(csvOptions);
  parser.on('error', (error: Error) => {
    failure ??= error;
  });
  parser.resume();
  const write = (data: Buffer | string) => new Promise<void>((resolve) => parser.write(data, () => resolve()));
  const end = () =>
    new Promise<void>((resolve) => {
      parser.once('finish', resolve);
      parser.once('error', () => resolve());
      parser.once('close', resolve);
      parser.end();
    });
  return {
    async next() {
      while (head >= queue.length) {
        queue = [];
        head = 0;
        if (failure !== null) throw failure;
        if (ended) return null;
        let chunk: IteratorResult<Buffer>;
        try {
          chunk = await chunks.next();
        } catch (error) {
          if (error instanceof GzipDataError) throw error;
          // eslint-disable-next-line preserve-caught-error -- the message names the OS code; as a cause, src/pipeline/db-error.ts would classify it
          throw new Error(`cannot read the file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
        }
        if (chunk.done === true) {
          if (decoder !== null) {
            const tail = decoder.decode();
            if (tail !== '') await write(tail);
          }
          await end();
          ended = true;
          continue;
        }
        await write(decoder === null ? chunk.value : decoder.decode(chunk.value, { stream: true }));
      }
      return queue[head++] ?? null;
    },
    bytesRead: () => source.fileBytesRead(),
    close() {
      source.close();
      parser.destroy();
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
  return { names: names.map((n) => n.trim()), errorExport: isErrorExportHeader(names), positions, extraColumns, columnCount: names.length };
}

/**
 * Open an order file: read and check its header (before anything is written anywhere), then
 * stream its records through csv-parse with backpressure. Memory is bounded by one record.
 */
export async function openOrderFile(path: string, options: OrderFileOptions): Promise<OrderFile> {
  let size: number;
  try {
    const st = await stat(path);
    if (!st.isFile()) throw new UserError(`${path}: not a file`);
    size = st.size;
  } catch (error) {
    if (error instanceof UserError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UserError(code === 'ENOENT' ? `${path}: no such file` : `${path}: cannot read (${code ?? 'error'})`);
  }
  if (size === 0) throw new UserError(`${path}: the file is empty (expected a header line ${ORDER_COLUMNS.join(',')})`);

  const utf8 = options.encoding === 'utf-8';
  if (options.gzip === undefined) options = { ...options, gzip: await isGzipFile(path) };
  let reader = openRecordReader(path, options);
  let iterator = reader;
  let lineBase = options.resumeAt !== undefined ? options.resumeAt.line : 0;
  let byteBase = options.resumeAt?.byte ?? 0;

  let header: OrderFileHeader;
  if (options.resumeAt === undefined) {
    let first: ParsedRecord | null;
    try {
      first = await iterator.next();
    } catch (error) {
      reader.close();
      throw new UserError(`${path}: line 1: cannot read the header: ${csvErrorSummary(error as Error)}`);
    }
    if (first === null) {
      reader.close();
      throw new UserError(`${path}: the file has no header line (expected ${ORDER_COLUMNS.join(',')})`);
    }
    try {
      header = describeHeader(first.record, path);
    } catch (error) {
      reader.close();
      throw error;
    }
  } else {
    // Resuming mid-file: the header was checked by the run that started the load; read it
    // again from the first line without consuming the resumed stream.
    header = await readHeaderOnly(path, options);
  }

  const positions = header.positions;
  const errorExport = header.errorExport;
  const encodingName = options.encoding;
  async function* items(): AsyncGenerator<FileItem> {
    let lastEndLine = lineBase + (options.resumeAt === undefined ? 1 : 0);
    let lastEndByte: number | null = utf8 ? byteBase : null;
    for (;;) {
      let next: ParsedRecord | null;
      try {
        next = await iterator.next();
      } catch (error) {
        const e = error as Error & { code?: string; lines?: number };
        if (lastEndByte !== null && e.code !== undefined && LINE_LOCAL_CSV_ERRORS.has(e.code)) {
          // An error confined to one line (a record too large, a stray quote): reject that
          // line with its text and read on from the next one, with a fresh parser.
          reader.close();
          const skipped = await skipLine(path, lastEndByte, options.gzip === true);
          yield {
            kind: 'reject',
            lineNo: lastEndLine + skipped.blankLines + 1,
            raw: cleanRaw(skipped.raw),
            code: `CSV_${e.code.replace(/^CSV_/, '')}`,
            message: `${csvErrorSummary(e)}; the line was skipped`,
            endByte: skipped.nextByte,
            endLine: lastEndLine + skipped.lines,
            stopsFile: false,
          };
          lastEndLine += skipped.lines;
          lastEndByte = skipped.nextByte;
          if (skipped.atEnd) return;
          lineBase = lastEndLine;
          byteBase = skipped.nextByte;
          reader = openRecordReader(path, { ...options, resumeAt: { byte: byteBase, line: lineBase } });
          iterator = reader;
          continue;
        }
        const startLine = lastEndLine + 1;
        yield {
          kind: 'reject',
          lineNo: startLine,
          raw: '',
          code: e instanceof GzipDataError ? e.code : `CSV_${(e.code ?? 'ERROR').replace(/^CSV_/, '')}`,
          message: `${csvErrorSummary(e)}; the file could not be read past line ${startLine - 1}`,
          endByte: lastEndByte,
          endLine: startLine,
          stopsFile: true,
        };
        return;
      }
      if (next === null) return;
      const { record, raw, info } = next;
      const endLine = lineBase + info.lines;
      const lineNo = endLine - countNewlines(record);
      const endByte = utf8 ? byteBase + info.bytes : null;
      lastEndLine = endLine;
      lastEndByte = endByte;
      const rawText = cleanRaw(raw);
      if (record.length !== header.columnCount) {
        yield {
          kind: 'reject',
          lineNo,
          raw: rawText,
          code: 'PARSE_FIELD_COUNT',
          message: `expected ${header.columnCount} fields as in the header, found ${record.length}`,
          endByte,
          endLine,
          stopsFile: false,
        };
        continue;
      }
      // Our own export carries the rejected line's raw text (with its U+FFFD) in a column that
      // is not loaded: only the order columns it holds must be valid text.
      const undecodable = errorExport
        ? [...positions.values()].some((i) => record[i]?.includes('\uFFFD') === true)
        : rawText.includes('\uFFFD');
      if (encodingName === 'utf-8' && undecodable) {
        yield {
          kind: 'reject',
          lineNo,
          raw: rawText,
          code: 'PARSE_ENCODING',
          message: 'the line is not valid UTF-8 (use --encoding shift_jis for a Shift_JIS file)',
          endByte,
          endLine,
          stopsFile: false,
        };
        continue;
      }
      if (raw.includes('\u0000')) {
        yield {
          kind: 'reject',
          lineNo,
          raw: rawText,
          code: 'PARSE_NUL_BYTE',
          message: 'the line contains a NUL byte (0x00), which no database text value can hold',
          endByte,
          endLine,
          stopsFile: false,
        };
        continue;
      }
      const fields = {} as Record<OrderColumn, string>;
      for (const [column, index] of positions) fields[column] = errorExport ? restoreFormula(record[index] ?? '') : (record[index] ?? '');
      yield { kind: 'record', lineNo, raw: rawText, fields, endByte, endLine };
    }
  }

  return {
    path,
    size,
    header,
    items: items(),
    bytesRead: () => reader.bytesRead(),
    close: () => reader.close(),
  };
}

/** csv-parse errors that concern one line only: the line is rejected and reading goes on. */
const LINE_LOCAL_CSV_ERRORS = new Set(['CSV_MAX_RECORD_SIZE', 'INVALID_OPENING_QUOTE', 'CSV_INVALID_CLOSING_QUOTE']);

/**
 * The physical line starting at content byte `from` (blank lines before it passed over): its
 * first RAW_LIMIT·4 bytes as text, the offset just past its newline (or the end of the
 * content), and whether that is the end. Reads in 64 KiB steps: a line of any length costs
 * constant memory.
 */
async function skipLine(
  path: string,
  from: number,
  gzip: boolean,
): Promise<{ raw: string; nextByte: number; lines: number; blankLines: number; atEnd: boolean }> {
  const source = openByteSource(path, { gzip, from, highWaterMark: 64 * 1024 });
  try {
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let blankLines = 0;
    let inLine = false;
    let position = from;
    const text = () =>
      Buffer.concat(kept)
        .subarray(0, RAW_LIMIT * 4)
        .toString('utf8');
    for (;;) {
      const next = await source.chunks.next();
      if (next.done === true) break;
      const buffer = next.value;
      const bytesRead = buffer.length;
      let start = 0;
      for (let i = 0; i < bytesRead; i++) {
        const byte = buffer[i];
        if (!inLine) {
          if (byte === 0x0a) blankLines++;
          if (byte === 0x0a || byte === 0x0d) {
            start = i + 1;
            continue;
          }
          inLine = true;
          start = i;
        }
        if (byte === 0x0a) {
          if (keptBytes < RAW_LIMIT * 4) kept.push(Buffer.from(buffer.subarray(start, i)));
          const nextByte = position + i + 1;
          // the end when nothing follows the newline
          const atEnd = i + 1 === bytesRead && (await source.chunks.next()).done === true;
          return { raw: text(), nextByte, lines: blankLines + 1, blankLines, atEnd };
        }
      }
      if (inLine && keptBytes < RAW_LIMIT * 4) {
        kept.push(Buffer.from(buffer.subarray(start, bytesRead)));
        keptBytes += bytesRead - start;
      }
      position += bytesRead;
    }
    return { raw: text(), nextByte: position, lines: blankLines + 1, blankLines, atEnd: true };
  } finally {
    source.close();
  }
}

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
  const file = await openOrderFile(path, { ...options, resumeAt: undefined });
  file.close();
  return file.header;
}
