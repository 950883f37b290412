/**
 * guess: which encoding the start of a file is in, and why. Pure: bytes in, a
 * decision with its evidence out. A byte order mark decides; else valid UTF-8; else the
 * Japanese legacy encodings that decode the whole sample (sniffEncoding of
 * src/input/encoding-sniff.ts), weighed by how Japanese the decoded text looks; else
 * windows-1252. Bytes that no text has (NUL, most control bytes) make the file not text.
 */
import { sniffEncoding } from '../encoding-sniff.js';

/** The encodings a profile names (`encoding:`). */
export type ProfileEncoding = 'utf-8' | 'shift_jis' | 'euc-jp' | 'utf-16' | 'windows-1252';

export interface EncodingGuess {
  encoding: ProfileEncoding;
  /** The sample decoded (BOM removed), cut before a last line the sample's end cut. */
  text: string;
  /** Why, one line each (for the profile's comments). */
  why: string[];
  /** Another encoding that also reads the sample: a commented choice. */
  alternative: { encoding: ProfileEncoding; why: string } | null;
}

/** The sample is not text: the one line saying why. */
export interface NotText {
  notText: string;
}

const hex = (b: number): string => `0x${b.toString(16).padStart(2, '0')}`;

/** Characters Japanese text is made of: kana, kanji, full-width forms, CJK punctuation, ▲△. */
function japaneseShare(text: string): number {
  let wide = 0;
  let japanese = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0;
    if (c < 0x80) continue;
    wide++;
    if (
      (c >= 0x3000 && c <= 0x30ff) || // CJK punctuation, hiragana, katakana
      (c >= 0x4e00 && c <= 0x9fff) || // kanji
      (c >= 0xff01 && c <= 0xff5e) || // full-width ASCII
      c === 0x25b2 ||
      c === 0x25b3 ||
      c === 0x25cb ||
      c === 0x25cf
    )
      japanese++;
  }
  return wide === 0 ? 0 : japanese / wide;
}

/** Control bytes that no CSV or fixed-width text holds (tab, CR, LF, FF, ESC, SUB allowed). */
function controlShare(bytes: Uint8Array): { nul: number; share: number } {
  let nul = -1;
  let control = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] ?? 0;
    if (b === 0 && nul === -1) nul = i;
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1a && b !== 0x1b) control++;
  }
  return { nul, share: bytes.length === 0 ? 0 : control / bytes.length };
}

/** Without the last line when the sample's end cut it. */
function wholeLines(text: string, complete: boolean): string {
  if (complete) return text;
  const end = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'));
  return end === -1 ? text : text.slice(0, end + 1);
}

/**
 * The bytes as the reader decodes them: streamed, then flushed when the sample is the whole file
 * (Node's one-shot windows-1252 decode reads 0x80–0x9F as control characters, `€` as U+0080;
 * the streaming one, which the reader uses, as the code page has them).
 */
function decode(label: string, bytes: Uint8Array, complete: boolean): string {
  const decoder = new TextDecoder(label, { fatal: false, ignoreBOM: true });
  const text = decoder.decode(bytes, { stream: true }) + (complete ? decoder.decode() : '');
  return wholeLines(text, complete);
}

/** The encoding of `sample` (the first bytes of the content; `complete`: all of it). */
export function guessEncoding(sample: Uint8Array, complete: boolean): EncodingGuess | NotText {
  if (sample.length === 0) return { notText: 'the file is empty: nothing to guess from' };
  const b0 = sample[0];
  const b1 = sample[1];
  if ((b0 === 0xff && b1 === 0xfe) || (b0 === 0xfe && b1 === 0xff)) {
    const le = b0 === 0xff;
    return {
      encoding: 'utf-16',
      text: decode(le ? 'utf-16le' : 'utf-16be', sample.subarray(2), complete),
      why: [`byte order mark ${le ? 'FF FE' : 'FE FF'}: UTF-16 ${le ? 'little' : 'big'}-endian`],
      alternative: null,
    };
  }
  const { nul, share } = controlShare(sample);
  if (nul !== -1)
    return { notText: `not a text file (a NUL byte at offset ${nul}); guess reads CSV, fixed-width text, JSON Lines and xlsx workbooks` };
  if (share > 0.05)
    return {
      notText: `not a text file (${Math.round(share * 100)}% control bytes); guess reads CSV, fixed-width text, JSON Lines and xlsx workbooks`,
    };
  if (b0 === 0xef && b1 === 0xbb && sample[2] === 0xbf) {
    return {
      encoding: 'utf-8',
      text: decode('utf-8', sample.subarray(3), complete),
      why: ['byte order mark EF BB BF: UTF-8'],
      alternative: null,
    };
  }
  const evidence = sniffEncoding(sample, complete);
  const invalid = evidence.invalidUtf8;
  if (invalid === null) {
    const text = decode('utf-8', sample, complete);
    const multibyte = Array.from(text).filter((c) => (c.codePointAt(0) ?? 0) >= 0x80).length;
    return {
      encoding: 'utf-8',
      text,
      why: [
        multibyte === 0
          ? `every byte of the ${sample.length} read is ASCII`
          : `valid UTF-8 (${multibyte} multi-byte characters in ${sample.length} bytes)`,
      ],
      alternative: null,
    };
  }
  const at = `${hex(invalid.byte)} at byte ${invalid.offset} (line ${invalid.line}) is not UTF-8`;
  const cp1252 = decode('windows-1252', sample, complete);
  const candidates = evidence.fits.map((name) => {
    const encoding: ProfileEncoding = name === 'Shift_JIS' ? 'shift_jis' : 'euc-jp';
    const text = decode(encoding, sample, complete);
    return { encoding, name, text, share: japaneseShare(text) };
  });
  candidates.sort((a, b) => b.share - a.share);
  const [best, second] = candidates;
  const latin = [...new Set(Array.from(cp1252).filter((c) => (c.codePointAt(0) ?? 0) >= 0x80))].slice(0, 6).join(' ');
  if (best !== undefined && best.share >= 0.7) {
    const pct = (s: number) => `${Math.round(s * 100)}%`;
    const why = [
      at,
      `${best.name} decodes the whole sample; ${pct(best.share)} of its non-ASCII characters are kana, kanji or full-width forms`,
    ];
    let alternative: EncodingGuess['alternative'] = null;
    if (second !== undefined) {
      why.push(`${second.name} decodes it too (${pct(second.share)} Japanese characters)`);
      if (second.share >= best.share - 0.1)
        alternative = { encoding: second.encoding, why: `${second.name} reads the sample about as well` };
    } else {
      why.push(`${best.encoding === 'shift_jis' ? 'EUC-JP' : 'Shift_JIS'} does not decode it`);
    }
    return { encoding: best.encoding, text: best.text, why, alternative };
  }
  const why = [at];
  why.push(
    candidates.length === 0
      ? 'neither Shift_JIS nor EUC-JP decodes it'
      : `${candidates.map((c) => c.name).join(' and ')} decode${candidates.length === 1 ? 's' : ''} it, but hardly as Japanese text`,
  );
  why.push(`windows-1252 reads it (${latin})`);
  const alt = best === undefined ? null : { encoding: best.encoding, why: `${best.name} decodes the sample too` };
  return { encoding: 'windows-1252', text: cp1252, why, alternative: alt };
}
