/**
 * A delimited record's text for the error log: the bytes it was read from (RawSpan), decoded only
 * when asked (a rejected line, a row the database refuses), cleaned of the blank lines before it
 * and its line end, a NUL shown as U+2400, cut at RAW_LIMIT characters.
 */
import type { FileRecord, FileReject } from '../order-file.js';
import type { OrderColumn, ParsedOrder } from '../order-record.js';
import type { MappingProblem } from '../profile/mapping.js';

/** A NUL byte in a line, whatever the format: no database text value holds one. */
export const NUL_BYTE_MESSAGE = 'the line contains a NUL byte (0x00), which no database text value can hold';

export const RAW_LIMIT = 4000;
export const REPLACEMENT_CHARACTER = Buffer.from('\uFFFD', 'utf8');

export function cleanRaw(raw: string): string {
  // Blank lines skipped before the record and its record delimiter are not part of it. A NUL
  // cannot be stored in a database text value: shown as U+2400 (SYMBOL FOR NULL).
  const trimmed = raw
    .replace(/^[\uFEFF\r\n]+/, '')
    .replace(/[\r\n]+$/, '')
    .replaceAll('\u0000', '\u2400');
  return trimmed.length > RAW_LIMIT ? `${trimmed.slice(0, RAW_LIMIT)}…` : trimmed;
}

export function anyIncludes(fields: string[], text: string): boolean {
  for (const f of fields) if (f.includes(text)) return true;
  return false;
}

export function reject(lineNo: number, span: RawSpan, code: string, message: string, endByte: number | null, endLine: number): FileReject {
  return { kind: 'reject', lineNo, raw: rawText(span), code, message, endByte, endLine, stopsFile: false };
}

/**
 * The bytes a record was read from: a window of the input (the file's bytes; for a file that is
 * decoded first, the UTF-8 of its text) and the record's span in it. The window is never written
 * to after it is made, so the raw text can be decoded when it is asked for: only a rejected line
 * needs it, and decoding every line's text cost ≈ 10 % of the parse (bench/RESULTS.md, run 10).
 */
export interface RawSpan {
  window: Buffer;
  start: number;
  end: number;
}

export function rawText(span: RawSpan): string {
  return cleanRaw(span.window.toString('utf8', span.start, span.end));
}

export class ReadRecord implements FileRecord {
  readonly kind = 'record' as const;
  constructor(
    readonly lineNo: number,
    readonly fields: Record<OrderColumn, string>,
    readonly endByte: number | null,
    readonly endLine: number,
    private readonly span: RawSpan,
    readonly problem: MappingProblem | null = null,
    readonly attributes: string | null = null,
    readonly order: ParsedOrder | null = null,
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
