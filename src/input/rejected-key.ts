/**
 * The source_key of a line the reader rejected, when it can be told for sure. It is logged with
 * the line (the error log's source_key, never used to find a stage row) so that the `errors`
 * export can drop the line once a later load has made that key DONE
 * (sql/<engine>/queries/rejected_lines.sql).
 *
 * For sure means: the line had the header's field count, so its key is where the header says
 * (PARSE_ENCODING and PARSE_NUL_BYTE are found after the count is checked), and its raw text was
 * not cut before the key. A line with a wrong field count or a CSV error gets none: a field
 * missing or split anywhere moves the others (`7,2026-01-05,100` has no key, not the key "7"),
 * and dropping a line that was never fixed would hide it. A key holding a replaced byte (U+FFFD,
 * or U+2400 for a NUL) is not the key a correct reading gives, and is not used either.
 */
import type { FileReject, OrderFileHeader } from './order-file.js';
import { charLength, MAX_SOURCE_KEY_LENGTH } from './order-record.js';
import { splitRawLine } from './raw-line.js';

/** Rejections found after the line's field count was checked. */
const COUNTED = new Set(['PARSE_ENCODING', 'PARSE_NUL_BYTE']);

/** Longest raw text kept in the error log (src/input/order-file.ts, RAW_LIMIT): a longer one was cut. */
const RAW_LIMIT = 4000;

export function rejectedLineKey(
  reject: Pick<FileReject, 'raw' | 'code'>,
  header: Pick<OrderFileHeader, 'names' | 'positions'>,
  delimiter: string,
): string | null {
  const position = header.positions.get('source_key');
  if (position === undefined) return null;
  if (!COUNTED.has(reject.code) || (position !== 0 && reject.raw.length > RAW_LIMIT)) return null;
  const key = splitRawLine(reject.raw, { header: header.names, delimiter }).source_key.trim();
  if (key === '' || charLength(key) > MAX_SOURCE_KEY_LENGTH) return null;
  if (key.includes('\uFFFD') || key.includes('\u2400')) return null;
  return key;
}
