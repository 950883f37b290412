import { isUtf8 } from 'node:buffer';
import { readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { checkFileEncoding, encodingRefusal, readContentSample, sniffEncoding, SNIFF_BYTES } from '../../src/input/encoding-sniff.js';
import { HEADER, writeTestFile } from '../support/files.js';

const head = Buffer.from(`${HEADER}\r\n`);
const line = (key: number[] | string, rest = ',1,2026-01-01,1,JPY\r\n') =>
  Buffer.concat([typeof key === 'string' ? Buffer.from(key) : Buffer.from(key), Buffer.from(rest)]);
/** 注文 in Shift_JIS: 0x92 is no lead byte of EUC-JP. */
const SJIS = [0x92, 0x8d, 0x95, 0xb6];
/** 注文 in EUC-JP: also two half-width katakana and a kanji in Shift_JIS. */
const EUC_BOTH = [0xc3, 0xed, 0xca, 0xb8];
/** 珱 in EUC-JP: 0xfe is no trail byte of Shift_JIS. */
const EUC_ONLY = [0xe0, 0xfe];

describe('sniffEncoding', () => {
  it('finds nothing in UTF-8 (a BOM, multibyte characters) and does not look for other encodings', () => {
    const utf8 = Buffer.concat([Buffer.from('\ufeff'), head, line('注文-1'), line('𠮷-2')]);
    expect(sniffEncoding(utf8, true)).toEqual({ sampled: utf8.length, complete: true, invalidUtf8: null, fits: [] });
  });

  it('gives the first invalid byte, its offset and line, and that the sample reads as Shift_JIS', () => {
    const bytes = Buffer.concat([head, line('A-1'), line([...SJIS, 0x2d, 0x31])]);
    const offset = head.length + line('A-1').length;
    expect(sniffEncoding(bytes, true)).toEqual({
      sampled: bytes.length,
      complete: true,
      invalidUtf8: { offset, byte: 0x92, line: 3 },
      fits: ['Shift_JIS'],
    });
  });

  it('counts lines at CRLF, LF and a lone CR', () => {
    const bytes = Buffer.concat([Buffer.from('a\r\nb\nc\rd\r'), Buffer.from(SJIS)]);
    expect(sniffEncoding(bytes, true).invalidUtf8).toEqual({ offset: 9, byte: 0x92, line: 5 });
  });

  it('tells EUC-JP only, and both when both decode', () => {
    expect(sniffEncoding(Buffer.concat([head, line(EUC_ONLY)]), true).fits).toEqual(['EUC-JP']);
    expect(sniffEncoding(Buffer.concat([head, line(EUC_BOTH)]), true).fits).toEqual(['Shift_JIS', 'EUC-JP']);
  });

  it('fits nothing for bytes of neither (UTF-16, Latin-1 before a comma)', () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(HEADER, 'utf16le')]);
    expect(sniffEncoding(utf16, true)).toMatchObject({ invalidUtf8: { offset: 0, byte: 0xff, line: 1 }, fits: [] });
    expect(sniffEncoding(Buffer.concat([head, line('caf\u00e9', ',1,2026-01-01,1,JPY\n')]).subarray(0), true).invalidUtf8).toBeNull();
    const latin1 = Buffer.concat([head, Buffer.from('caf\xe9,1,2026-01-01,1,JPY\n', 'latin1')]);
    expect(sniffEncoding(latin1, true)).toMatchObject({ invalidUtf8: { byte: 0xe9, line: 2 }, fits: [] });
  });

  it('holds nothing against a multibyte sequence cut by the end of a partial sample, but does at the end of the content', () => {
    const utf8Cut = Buffer.concat([head, Buffer.from('注文')]).subarray(0, head.length + 4);
    expect(sniffEncoding(utf8Cut, false)).toMatchObject({ invalidUtf8: null });
    expect(sniffEncoding(utf8Cut, true)).toMatchObject({ invalidUtf8: { offset: head.length + 3, byte: 0xe6 } });
    // Shift_JIS cut after a lead byte: still Shift_JIS when the sample is partial
    const sjisCut = Buffer.concat([head, line([...SJIS, 0x2d]), Buffer.from([0x92])]);
    expect(sniffEncoding(sjisCut, false).fits).toEqual(['Shift_JIS']);
    expect(sniffEncoding(sjisCut, true).fits).toEqual([]);
  });
});

describe('encodingRefusal', () => {
  it('names the byte, the option to use, or the conversion for EUC-JP, and both when both fit', () => {
    const sjis = sniffEncoding(Buffer.concat([head, line(SJIS)]), true);
    expect(encodingRefusal('in/a.csv', sjis)).toBe(
      `in/a.csv: not UTF-8 (byte 0x92 at offset ${head.length}, line 2); it reads as Shift_JIS: load it with --encoding shift_jis`,
    );
    expect(encodingRefusal('b.csv', sniffEncoding(Buffer.concat([head, line(EUC_ONLY)]), true))).toBe(
      `b.csv: not UTF-8 (byte 0xe0 at offset ${head.length}, line 2); it reads as EUC-JP: load it with --encoding euc-jp`,
    );
    expect(encodingRefusal('c.csv', sniffEncoding(Buffer.concat([head, line(EUC_BOTH)]), true))).toBe(
      `c.csv: not UTF-8 (byte 0xc3 at offset ${head.length}, line 2); it reads as Shift_JIS or as EUC-JP: ` +
        'if Shift_JIS, load it with --encoding shift_jis; if EUC-JP, load it with --encoding euc-jp',
    );
  });

  it('refuses nothing for UTF-8 or for bytes that fit neither', () => {
    expect(encodingRefusal('a.csv', sniffEncoding(Buffer.concat([head, line('A')]), true))).toBeNull();
    expect(encodingRefusal('a.csv', sniffEncoding(Buffer.from([0xff, 0xfe, 0x41, 0x00]), true))).toBeNull();
  });
});

describe('checkFileEncoding', () => {
  it('refuses a Shift_JIS file read as UTF-8, plain or gzip (offsets into the content), and not when read as Shift_JIS', async () => {
    const content = Buffer.concat([head, line('A-1'), line(SJIS)]);
    const plain = writeTestFile(content, 'sjis.csv');
    await expect(checkFileEncoding(plain, 'utf-8')).rejects.toThrow(
      new UserError(
        `${plain}: not UTF-8 (byte 0x92 at offset ${head.length + line('A-1').length}, line 3); it reads as Shift_JIS: load it with --encoding shift_jis`,
      ),
    );
    const gz = writeTestFile(gzipSync(content), 'sjis.csv.gz');
    await expect(checkFileEncoding(gz, 'utf-8')).rejects.toThrow(`offset ${head.length + line('A-1').length}, line 3`);
    await expect(checkFileEncoding(plain, 'shift_jis')).resolves.toBeUndefined();
  });

  it('looks at the first 64 KiB only: bad bytes further on are left to the reader, line by line', async () => {
    const filler = line('A-1');
    const lines = Math.ceil(SNIFF_BYTES / filler.length) + 1;
    const file = writeTestFile(Buffer.concat([head, ...Array.from({ length: lines }, () => filler), line(SJIS)]));
    await expect(checkFileEncoding(file, 'utf-8')).resolves.toBeUndefined();
    const { sample, complete } = await readContentSample(file);
    expect([sample.length, complete]).toEqual([SNIFF_BYTES, false]);
  });

  it('leaves a missing file to the reader to say', async () => {
    await expect(checkFileEncoding('/nonexistent/x.csv', 'utf-8')).resolves.toBeUndefined();
  });
});

describe('sniffEncoding: where UTF-8 ends (the bounds of RFC 3629, checked against node:buffer isUtf8)', () => {
  /** Each after "ab\n": [bytes, valid UTF-8]. */
  const cases: Array<[number[], boolean]> = [
    [[0x7f], true],
    [[0x80], false], // a continuation byte alone
    [[0xbf], false],
    [[0xc0, 0x80], false], // overlong
    [[0xc1, 0xbf], false],
    [[0xc2, 0x80], true],
    [[0xc2, 0x7f], false],
    [[0xc2, 0xc0], false],
    [[0xdf, 0xbf], true],
    [[0xe0, 0x9f, 0xbf], false], // overlong
    [[0xe0, 0xa0, 0x80], true],
    [[0xe1, 0x80, 0x80], true],
    [[0xe1, 0x7f, 0x80], false],
    [[0xe1, 0xc0, 0x80], false],
    [[0xe1, 0x80, 0x7f], false],
    [[0xe1, 0x80, 0xc0], false],
    [[0xe1, 0xbf, 0xbf], true],
    [[0xec, 0xbf, 0xbf], true],
    [[0xed, 0x9f, 0xbf], true],
    [[0xed, 0xa0, 0x80], false], // a surrogate
    [[0xee, 0x80, 0x80], true],
    [[0xef, 0xbf, 0xbf], true],
    [[0xf0, 0x8f, 0xbf, 0xbf], false], // overlong
    [[0xf0, 0x90, 0x80, 0x80], true],
    [[0xf1, 0x80, 0x80, 0x80], true],
    [[0xf1, 0x80, 0x80, 0x7f], false],
    [[0xf1, 0x80, 0x80, 0xc0], false],
    [[0xf3, 0xbf, 0xbf, 0xbf], true],
    [[0xf4, 0x8f, 0xbf, 0xbf], true],
    [[0xf4, 0x90, 0x80, 0x80], false], // past U+10FFFF
    [[0xf5, 0x80, 0x80, 0x80], false],
    [[0xff], false],
  ];

  it.each(cases)('%j: valid %s', (bytes, valid) => {
    const sample = Buffer.from([0x61, 0x62, 0x0a, ...bytes, 0x0a, 0x7a]);
    expect(isUtf8(sample)).toBe(valid);
    const evidence = sniffEncoding(sample, true);
    expect(evidence.invalidUtf8).toEqual(valid ? null : { offset: 3, byte: bytes[0], line: 2 });
    // cut by a partial sample's end: a valid start is held against nothing, an invalid one is
    const cut = Buffer.from([0x61, 0x62, 0x0a, ...bytes.slice(0, -1)]);
    if (bytes.length > 1 && valid) expect(sniffEncoding(cut, false).invalidUtf8).toBeNull();
  });

  it('the first invalid byte after valid multibyte characters of each length', () => {
    const sample = Buffer.concat([Buffer.from('é注𠮷\r\n'), Buffer.from([0x80])]);
    expect(sniffEncoding(sample, true).invalidUtf8).toEqual({ offset: 11, byte: 0x80, line: 2 });
  });

  it('looks for the other encodings only when the sample is not UTF-8 (ASCII would read as both)', () => {
    expect(sniffEncoding(Buffer.from('source_key,amount\nA-1,1\n'), true).fits).toEqual([]);
    expect(sniffEncoding(Buffer.from([0x41, ...SJIS]), true).fits).toEqual(['Shift_JIS']);
  });

  it('refuses nothing for evidence without an invalid byte, whatever fits', () => {
    const evidence = { sampled: 2, complete: true, invalidUtf8: null, fits: ['Shift_JIS' as const] };
    expect(encodingRefusal('a.csv', evidence)).toBeNull();
    const none = { sampled: 2, complete: true, invalidUtf8: { offset: 0, byte: 0x80, line: 1 }, fits: [] };
    expect(encodingRefusal('a.csv', none)).toBeNull();
  });
});

describe('readContentSample: the first bytes of the content, and whether they are all of it', () => {
  it('a shorter file is complete; one of exactly the limit or longer is not (its end is not known)', async () => {
    const bytes = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz');
    expect(await readContentSample(writeTestFile(bytes.subarray(0, 9)), 10)).toEqual({ sample: bytes.subarray(0, 9), complete: true });
    expect(await readContentSample(writeTestFile(bytes.subarray(0, 10)), 10)).toEqual({ sample: bytes.subarray(0, 10), complete: false });
    expect(await readContentSample(writeTestFile(bytes), 10)).toEqual({ sample: bytes.subarray(0, 10), complete: false });
    expect(await readContentSample(writeTestFile(Buffer.alloc(0)))).toEqual({ sample: Buffer.alloc(0), complete: true });
    expect(await readContentSample(writeTestFile(bytes))).toEqual({ sample: bytes, complete: true });
  });

  it('of a gzip file: its decompressed content, cut at the limit however large a decompressed chunk is', async () => {
    const content = Buffer.from('x'.repeat(5000));
    const gz = writeTestFile(gzipSync(content), 'a.csv.gz');
    expect(await readContentSample(gz, 10)).toEqual({ sample: content.subarray(0, 10), complete: false });
    expect(await readContentSample(gz)).toEqual({ sample: content, complete: true });
  });

  it('of a damaged gzip file: what came out before the damage, not complete', async () => {
    const content = Buffer.from('y'.repeat(100_000));
    const gz = gzipSync(content, { level: 0 });
    const cut = writeTestFile(gz.subarray(0, 50_000), 'cut.csv.gz');
    const { sample, complete } = await readContentSample(cut);
    expect(complete).toBe(false);
    expect(sample.length).toBeGreaterThan(0);
    expect(sample.equals(content.subarray(0, sample.length))).toBe(true);
    // the check judges it on that much, as a partial sample
    await expect(checkFileEncoding(cut, 'utf-8')).resolves.toBeUndefined();
  });

  it.runIf(process.platform === 'linux')('closes the file also when it stops before its end', async () => {
    const file = writeTestFile(Buffer.alloc(1 << 20, 0x41));
    const open = () => readdirSync('/proc/self/fd').length;
    const before = open();
    for (let i = 0; i < 5; i++) await readContentSample(file, 16);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(open()).toBe(before);
  });
});
