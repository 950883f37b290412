/** Byte-level helpers of the delimited reader: line counting, blank lines, a line's fields. */

/**
 * The first and last line of a record whose bytes (blank lines before it and its record
 * delimiter included) are bytes[start, end), the last record having ended on line `before`.
 * A line ends at CRLF, LF or a lone CR, inside quotes or not (as a text editor counts).
 */
export function countLines(bytes: Buffer, start: number, end: number, before: number): { startLine: number; endLine: number } {
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
 * Records split from a read chunk at a time (a 256 KiB chunk holds some 5,000): the rest is split
 * when these are read, so that the records waiting in the queue, which every young-generation
 * garbage collection copies, are few.
 */
export const SPLIT_BATCH = 128;

/** Input held before the next record past which leading blank lines are dropped (counted, not kept). */
export const BLANK_TRIM_AT = 256 * 1024;
/** Chunks read without a record between two turns of the event loop (signals, timers). */
export const CHUNKS_PER_TURN = 16;

export function isBlankByte(b: number | undefined): boolean {
  return b === 0x0a || b === 0x0d;
}

/**
 * The blank-line bytes at `from` of `bytes` that can be dropped, and the lines they end: a CR
 * whose LF may follow (the last byte, or followed by LF) is left, so that CRLF counts once.
 */
export function leadingBlankBytes(bytes: Buffer, from: number): { length: number; lines: number } {
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
export function lineFields(bytes: Buffer, start: number, end: number, cuts: readonly number[], ascii: boolean): string[] {
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
export function asciiByte(text: string): number {
  return text.length === 1 && text.charCodeAt(0) < 0x80 ? text.charCodeAt(0) : -1;
}

export function hasBom(bytes: Buffer): boolean {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

export function turnOfEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
