/**
 * The start of a file read as UTF-8 that is not UTF-8: does it read as a Japanese legacy
 * encoding? A Shift_JIS file loaded without --encoding rejected every line (PARSE_ENCODING, exit
 * 2) and left them in `errors` for good; sniffing its first bytes refuses it before anything is
 * staged, naming the option to use. Only the sample is looked at: a UTF-8 file with a few bad
 * bytes further on is read as before, those lines rejected one by one.
 *
 * `sniffEncoding` is pure (bytes in, evidence out) so that other commands can reuse it;
 * `checkFileEncoding` reads a file's sample (the decompressed content of a gzip file) and throws
 * the refusal as a UserError, the way a refused header is.
 */
import { UserError } from '../errors.js';
import { GzipDataError, isGzipFile, openByteSource } from './gzip.js';
import { isWorkbookStart } from './guess/formats.js';

/** How many bytes of the content are looked at. */
export const SNIFF_BYTES = 64 * 1024;

/** The legacy encodings looked for, in the order they are named. */
export const SNIFFED_ENCODINGS = [
  // WHATWG's shift_jis decoder is Windows-31J (cp932): NEC and IBM extensions included
  { name: 'Shift_JIS', decoder: 'shift_jis', option: 'shift_jis' },
  { name: 'EUC-JP', decoder: 'euc-jp', option: 'euc-jp' },
] as const;

export type SniffedEncoding = (typeof SNIFFED_ENCODINGS)[number]['name'];

export interface EncodingEvidence {
  /** Bytes looked at. */
  sampled: number;
  /** The sample is the whole content (a multibyte sequence cut at its end is then invalid). */
  complete: boolean;
  /** The first byte that is not valid UTF-8, or null when the sample is UTF-8. */
  invalidUtf8: { offset: number; byte: number; line: number } | null;
  /** The encodings the whole sample decodes in without an error (only looked for when it is not UTF-8). */
  fits: SniffedEncoding[];
}

/** Length of the valid UTF-8 sequence at `i` (1–4), 0 when the byte there starts none, -1 when the bytes end inside it. */
function utf8SequenceAt(bytes: Uint8Array, i: number): number {
  const b = bytes[i] ?? 0;
  if (b < 0x80) return 1;
  let length: number;
  let min = 0x80;
  let max = 0xbf; // the range of the second byte (overlongs, surrogates and > U+10FFFF excluded)
  if (b >= 0xc2 && b <= 0xdf) length = 2;
  else if (b >= 0xe0 && b <= 0xef) {
    length = 3;
    if (b === 0xe0) min = 0xa0;
    if (b === 0xed) max = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    length = 4;
    if (b === 0xf0) min = 0x90;
    if (b === 0xf4) max = 0x8f;
  } else return 0;
  for (let k = 1; k < length; k++) {
    if (i + k >= bytes.length) return -1;
    const c = bytes[i + k] ?? 0;
    if (k === 1 ? c < min || c > max : c < 0x80 || c > 0xbf) return 0;
  }
  return length;
}

/** The 1-based line of byte `offset`: lines end at CRLF, LF or a lone CR (as the reader counts them). */
function lineAt(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) {
    const b = bytes[i];
    if (b === 0x0a) line++;
    else if (b === 0x0d && bytes[i + 1] !== 0x0a) line++;
  }
  return line;
}

/**
 * What the sample says about its encoding. `complete` is whether the sample is the whole content:
 * otherwise a multibyte sequence cut by the sample's end is not held against any encoding.
 */
export function sniffEncoding(sample: Uint8Array, complete: boolean): EncodingEvidence {
  let invalid: EncodingEvidence['invalidUtf8'] = null;
  for (let i = 0; i < sample.length;) {
    const b = sample[i] ?? 0;
    if (b < 0x80) {
      i++;
      continue;
    }
    const length = utf8SequenceAt(sample, i);
    if (length > 0) i += length;
    else if (length === -1 && !complete)
      break; // cut by the sample's end
    else {
      invalid = { offset: i, byte: b, line: lineAt(sample, i) };
      break;
    }
  }
  const fits: SniffedEncoding[] = [];
  if (invalid !== null) {
    for (const e of SNIFFED_ENCODINGS) {
      try {
        // stream: a sequence cut by the sample's end is held back, not an error
        new TextDecoder(e.decoder, { fatal: true }).decode(sample, { stream: !complete });
        fits.push(e.name);
      } catch {
        // not this encoding
      }
    }
  }
  return { sampled: sample.length, complete, invalidUtf8: invalid, fits };
}

/** The refusal for a file whose sample is not UTF-8 but reads as a sniffed encoding; null otherwise. */
export function encodingRefusal(path: string, evidence: EncodingEvidence): string | null {
  const invalid = evidence.invalidUtf8;
  if (invalid === null || evidence.fits.length === 0) return null;
  const where = `byte 0x${invalid.byte.toString(16).padStart(2, '0')} at offset ${invalid.offset}, line ${invalid.line}`;
  const advice = (name: SniffedEncoding): string =>
    `load it with --encoding ${SNIFFED_ENCODINGS.find((e) => e.name === name)?.option ?? name.toLowerCase()}`;
  const [first, second] = evidence.fits;
  if (first === undefined) return null;
  const reads =
    second === undefined
      ? `it reads as ${first}: ${advice(first)}`
      : `it reads as ${first} or as ${second}: if ${first}, ${advice(first)}; if ${second}, ${advice(second)}`;
  return `${path}: not UTF-8 (${where}); ${reads}`;
}

/** The first `limit` bytes of a file's content (decompressed for gzip), and whether that is all of it. */
export async function readContentSample(path: string, limit = SNIFF_BYTES): Promise<{ sample: Buffer; complete: boolean }> {
  const gzip = await isGzipFile(path);
  const source = openByteSource(path, { gzip, highWaterMark: Math.min(limit, 64 * 1024) });
  const parts: Buffer[] = [];
  let length = 0;
  let complete = true;
  try {
    for (;;) {
      let next: IteratorResult<Buffer>;
      try {
        next = await source.chunks.next();
      } catch (error) {
        // a damaged gzip: judged on what came out before it; the reader says the rest
        if (error instanceof GzipDataError) {
          complete = false;
          break;
        }
        throw error;
      }
      if (next.done === true) break;
      parts.push(next.value);
      length += next.value.length;
      if (length >= limit) {
        complete = false;
        break;
      }
    }
  } finally {
    source.close();
  }
  const all = Buffer.concat(parts);
  // exactly `limit` bytes that end the content are not known to be the end: treated as cut
  return { sample: all.length > limit ? all.subarray(0, limit) : all, complete };
}

/**
 * Refuse an xlsx workbook read as text (without a profile of format: xlsx), and a file read as UTF-8 whose start is not UTF-8 but reads as Shift_JIS or EUC-JP (a
 * UserError, as a refused header). Any other encoding, or a file that cannot be opened, is left
 * to the reader to say.
 */
export async function checkFileEncoding(path: string, encoding: string, format?: string): Promise<void> {
  if (encoding !== 'utf-8' || format === 'xlsx') return;
  let read: { sample: Buffer; complete: boolean };
  try {
    read = await readContentSample(path);
  } catch (error) {
    // a file that cannot be read: the reader says why (openOrderFile), with its own message
    if ((error as NodeJS.ErrnoException).code !== undefined) return;
    throw error;
  }
  // a workbook read as text would be refused for its header, with no word of what it is
  if (isWorkbookStart(read.sample))
    throw new UserError(
      `${path}: an Excel workbook (xlsx), not a text file: load it with a profile of format: xlsx (\`order-loader guess ${path}\` drafts one; docs/files.md)`,
    );
  const refusal = encodingRefusal(path, sniffEncoding(read.sample, read.complete));
  if (refusal !== null) throw new UserError(refusal);
}
