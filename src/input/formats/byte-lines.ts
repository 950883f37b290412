/**
 * The lines of a byte source, as bytes, each with its number and the content offset just past it
 * (the resume point of a line-based format reader: fixed width, JSON Lines). A line ends at LF,
 * CR or CRLF; a UTF-8 BOM at the start of the content is passed over. A line longer than `limit`
 * bytes is never held: its first bytes are kept (`tooLong`) and the rest is passed over up to its
 * end, as the CSV reader's max_record_size bounds a record.
 */
import { RunAbortedError } from '../../errors.js';
import { GzipDataError } from '../gzip.js';
import type { FileReject } from '../order-file.js';

/** The bytes kept of a line longer than the limit (its text as logged). */
const LONG_LINE_HEAD = 16_000;

export interface ByteLine {
  line: Buffer;
  lineNo: number;
  /** The content offset just past the line and its line end. */
  endByte: number;
  /** Longer than the limit: `line` is its first bytes only. */
  tooLong: boolean;
}

export async function* byteLines(
  chunks: AsyncIterator<Buffer>,
  /** The content offset of the first chunk's first byte, and the number of the line before it. */
  from: { byte: number; line: number },
  limit: number,
  /** Checked at every chunk: true ends the lines there (a closed file, an aborted run). */
  stopped: () => boolean,
): AsyncGenerator<ByteLine> {
  let lineNo = from.line;
  let offset = from.byte; // content offset of `pending`'s first byte
  let pending: Buffer = Buffer.alloc(0);
  let head: Buffer | null = null;
  let first = from.byte === 0;
  for (;;) {
    if (stopped()) return;
    const chunk = await chunks.next();
    if (chunk.done === true) break;
    let data = pending.length === 0 ? chunk.value : Buffer.concat([pending, chunk.value]);
    if (first && data.length >= 3 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) {
      data = data.subarray(3);
      offset += 3;
    }
    first = false;
    let start = 0;
    for (let i = 0; i < data.length; i++) {
      const b = data[i];
      if (b !== 0x0a && b !== 0x0d) continue;
      // a CR as the chunk's last byte may be the first half of a CRLF: wait for the next chunk
      if (b === 0x0d && i + 1 >= data.length) break;
      const end = b === 0x0d && data[i + 1] === 0x0a ? i + 2 : i + 1;
      lineNo++;
      yield { line: head ?? data.subarray(start, i), lineNo, endByte: offset + end, tooLong: head !== null };
      head = null;
      i = end - 1;
      start = end;
    }
    offset += start;
    pending = data.subarray(start);
    if (pending.length > limit) {
      head ??= Buffer.from(pending.subarray(0, LONG_LINE_HEAD));
      // keep the last byte: a CR there may be the first half of a CRLF
      offset += pending.length - 1;
      pending = pending.subarray(pending.length - 1);
    }
  }
  if (pending.length > 0 || head !== null)
    yield { line: head ?? pending, lineNo: lineNo + 1, endByte: offset + pending.length, tooLong: head !== null };
}

/** The characters of a line kept as its raw text in the error log. */
const RAW_LIMIT = 4000;

/** A line's text as logged: no BOM, a NUL shown as ␀, at most RAW_LIMIT characters. */
export function loggedText(text: string): string {
  const t = text.replace(/^\uFEFF/, '').replaceAll('\u0000', '\u2400');
  return t.length > RAW_LIMIT ? `${t.slice(0, RAW_LIMIT)}…` : t;
}

/**
 * A line reader's read that failed: a damaged gzip ends the file at its last whole line, said as
 * a reject that stops the file; an aborted run goes on up; anything else (the OS) is a failure
 * of the file, its code in the message.
 */
export function readFailure(error: unknown, lastLine: number, lastByte: number): FileReject {
  if (error instanceof GzipDataError)
    return {
      kind: 'reject',
      lineNo: lastLine + 1,
      raw: '',
      code: error.code,
      message: `${error.message}; the file could not be read past line ${lastLine}`,
      endByte: lastByte,
      endLine: lastLine + 1,
      stopsFile: true,
    };
  if (error instanceof RunAbortedError) throw error;
  // the message names the OS code, not a cause: src/pipeline/db-error.ts would classify a cause
  throw new Error(`cannot read the file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
}
