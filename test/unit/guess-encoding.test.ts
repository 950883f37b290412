/**
 * guess: the encoding of a sample (src/input/guess/encoding.ts, guessEncoding) at its bounds,
 * beside guess-files.test.ts (which drafts whole files): how Japanese a decoded text must look
 * (the characters counted, 70 % and the 10 points of an alternative), which of Shift_JIS and
 * EUC-JP reads a sample, the bytes that look like the start of a byte order mark, the share of
 * control bytes, and how the sample is decoded (a second BOM is text, a character cut by the
 * sample's end).
 */
import { describe, expect, it } from 'vitest';
import { guessEncoding, type EncodingGuess, type NotText } from '../../src/input/guess/encoding.js';

/** Bytes from text (each character one byte: latin1) and byte lists. */
const bytes = (...parts: Array<string | number[]>): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
const times = (pair: number[], n: number): number[] => Array.from({ length: n }, () => pair).flat();

function guess(sample: Buffer, complete = true): EncodingGuess {
  const g: EncodingGuess | NotText = guessEncoding(sample, complete);
  if ('notText' in g) throw new Error(`not text: ${g.notText}`);
  return g;
}

describe('how Japanese the text is: the characters counted', () => {
  it('the first and last of each range, and ▲ △ ○ ●, count; Greek letters do not: 8 of 10', () => {
    // Shift_JIS: U+3000 (81 40), ！ U+FF01 (81 49), ～ (81 60), 一 U+4E00 (88 EA), ▲ △ ○ ●, α β
    const sample = bytes(
      'a,',
      [0x81, 0x40, 0x81, 0x49, 0x81, 0x60, 0x88, 0xea, 0x81, 0xa3, 0x81, 0xa2, 0x81, 0x9b, 0x81, 0x9c, 0x83, 0xbf, 0x83, 0xc0],
      '\n',
    );
    const g = guess(sample);
    expect(g.encoding).toBe('shift_jis');
    expect(g.why).toEqual([
      '0x81 at byte 2 (line 1) is not UTF-8',
      'Shift_JIS decodes the whole sample; 80% of its non-ASCII characters are kana, kanji or full-width forms',
      'EUC-JP does not decode it',
    ]);
    expect(g.alternative).toBeNull();
  });

  it('70 % is Japanese enough; below it the sample is windows-1252', () => {
    // あ x7 (82 A0) and α β γ: 7 of 10
    const seventy = guess(bytes('a,', times([0x82, 0xa0], 7), [0x83, 0xbf, 0x83, 0xc0, 0x83, 0xc1], '\n'));
    expect([seventy.encoding, seventy.text, seventy.why[1]]).toEqual([
      'shift_jis',
      'a,あああああああαβγ\n',
      'Shift_JIS decodes the whole sample; 70% of its non-ASCII characters are kana, kanji or full-width forms',
    ]);
    // 6 of 10
    const sixty = guess(bytes('a,', times([0x82, 0xa0], 6), [0x83, 0xbf, 0x83, 0xc0, 0x83, 0xc1, 0x83, 0xc2], '\n'));
    expect([sixty.encoding, sixty.why[1]]).toEqual(['windows-1252', 'Shift_JIS decodes it, but hardly as Japanese text']);
  });
});

describe('Shift_JIS, EUC-JP or both', () => {
  it('both decode it, the second within 10 points of the first: it is the alternative', () => {
    // E0 A1 is a kanji in both; FA BE is 悊 in Shift_JIS, a compatibility ideograph (U+FA12) in EUC-JP
    const g = guess(bytes('a,', times([0xe0, 0xa1], 9), [0xfa, 0xbe], '\n'));
    expect(g).toEqual({
      encoding: 'shift_jis',
      text: 'a,爍爍爍爍爍爍爍爍爍悊\n',
      why: [
        '0xe0 at byte 2 (line 1) is not UTF-8',
        'Shift_JIS decodes the whole sample; 100% of its non-ASCII characters are kana, kanji or full-width forms',
        'EUC-JP decodes it too (90% Japanese characters)',
      ],
      alternative: { encoding: 'euc-jp', why: 'EUC-JP reads the sample about as well' },
    });
  });

  it('both decode it, the second 20 points behind: no alternative', () => {
    const g = guess(bytes('a,', times([0xe0, 0xa1], 8), [0xfa, 0xbe, 0xfa, 0xbe], '\n'));
    expect(g.why[2]).toBe('EUC-JP decodes it too (80% Japanese characters)');
    expect(g.alternative).toBeNull();
  });

  it('EUC-JP alone (FE is no Shift_JIS byte): Shift_JIS does not decode it', () => {
    // あ い (A4 A2, A4 A4) and 蔭 (B0 FE)
    const g = guess(bytes('a,', [0xa4, 0xa2, 0xa4, 0xa4, 0xb0, 0xfe], '\n'));
    expect(g).toEqual({
      encoding: 'euc-jp',
      text: 'a,あい蔭\n',
      why: [
        '0xa4 at byte 2 (line 1) is not UTF-8',
        'EUC-JP decodes the whole sample; 100% of its non-ASCII characters are kana, kanji or full-width forms',
        'Shift_JIS does not decode it',
      ],
      alternative: null,
    });
  });

  it('both decode it, neither as Japanese text: windows-1252, both named', () => {
    // A6 C1: ｦﾁ in Shift_JIS, α in EUC-JP
    const g = guess(bytes('a,', times([0xa6, 0xc1], 4), '\n'));
    expect(g).toEqual({
      encoding: 'windows-1252',
      text: 'a,¦Á¦Á¦Á¦Á\n',
      why: [
        '0xa6 at byte 2 (line 1) is not UTF-8',
        'Shift_JIS and EUC-JP decode it, but hardly as Japanese text',
        'windows-1252 reads it (¦ Á)',
      ],
      alternative: { encoding: 'shift_jis', why: 'Shift_JIS decodes the sample too' },
    });
  });

  it('windows-1252 names at most six of the characters it reads past ASCII', () => {
    // ÿ: no byte of Shift_JIS or EUC-JP
    const g = guess(bytes('a,', [0xe0, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xff], '\n'));
    expect(g.encoding).toBe('windows-1252');
    expect(g.why).toEqual([
      '0xe0 at byte 2 (line 1) is not UTF-8',
      'neither Shift_JIS nor EUC-JP decodes it',
      'windows-1252 reads it (à á â ã ä å)',
    ]);
  });
});

describe('bytes that only look like a byte order mark', () => {
  it('FF or FE first, or FE or FF second, alone: not UTF-16', () => {
    for (const start of [
      [0xff, 0x61],
      [0x61, 0xfe],
      [0xfe, 0x61],
      [0x61, 0xff],
    ]) {
      const g = guess(bytes(start, ',b\n'));
      const name = start.map((b) => b.toString(16)).join(' ');
      expect([g.encoding, g.why.slice(1)], name).toEqual(['windows-1252', ['neither Shift_JIS nor EUC-JP decodes it', expect.any(String)]]);
    }
  });

  it('two of EF BB BF: not UTF-8 by a byte order mark', () => {
    const cases: Array<[number[], string, string]> = [
      [[0x61, 0x62, 0xbf], 'windows-1252', '0xbf at byte 2 (line 1) is not UTF-8'],
      [[0xef, 0x61, 0xbf], 'windows-1252', '0xef at byte 0 (line 1) is not UTF-8'],
      [[0x61, 0xbb, 0xbf], 'euc-jp', '0xbb at byte 1 (line 1) is not UTF-8'],
      [[0xef, 0xbb, 0x61], 'euc-jp', '0xef at byte 0 (line 1) is not UTF-8'],
    ];
    for (const [start, encoding, first] of cases) {
      const g = guess(bytes(start, ',b\n'));
      expect([g.encoding, g.why[0]], start.map((b) => b.toString(16)).join(' ')).toEqual([encoding, first]);
    }
  });
});

describe('control bytes', () => {
  it('5 % of the sample is still text; more is not', () => {
    // 1 of 20 bytes
    expect(guessEncoding(bytes('abcdefghijklmnopqr', [0x01], '\n'), true)).toMatchObject({ encoding: 'utf-8' });
    // 1 of 19
    expect(guessEncoding(bytes('abcdefghijklmnopq', [0x01], '\n'), true)).toEqual({
      notText: 'not a text file (5% control bytes); guess reads CSV, fixed-width text, JSON Lines and xlsx workbooks',
    });
  });
});

describe('how the sample is decoded', () => {
  it('U+0080 is a multi-byte character of UTF-8', () => {
    expect(guess(bytes('a,', [0xc2, 0x80], '\n')).why).toEqual(['valid UTF-8 (1 multi-byte characters in 5 bytes)']);
  });

  it('after a byte order mark, a second one is text (U+FEFF)', () => {
    expect(guess(bytes([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], 'a,b\n'))).toEqual({
      encoding: 'utf-8',
      text: '\uFEFFa,b\n',
      why: ['byte order mark EF BB BF: UTF-8'],
      alternative: null,
    });
  });

  it('UTF-16: what cannot be decoded is U+FFFD in a whole file; a character cut by the sample’s end is left out', () => {
    // a lone high surrogate (D800), then a
    expect(guess(bytes([0xff, 0xfe, 0x00, 0xd8, 0x61, 0x00])).text).toBe('\uFFFDa');
    // an odd last byte: the whole file, or the sample's end
    expect(guess(bytes([0xff, 0xfe, 0x61, 0x00, 0x62]), true).text).toBe('a\uFFFD');
    expect(guess(bytes([0xff, 0xfe, 0x61, 0x00, 0x62]), false).text).toBe('a');
  });

  it('UTF-8: a sample without a line end cut inside a character keeps the characters before it', () => {
    const g = guess(Buffer.from('日本', 'utf8').subarray(0, 5), false);
    expect([g.encoding, g.text, g.why]).toEqual(['utf-8', '日', ['valid UTF-8 (1 multi-byte characters in 5 bytes)']]);
  });
});
