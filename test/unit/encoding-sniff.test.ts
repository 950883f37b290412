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
      `b.csv: not UTF-8 (byte 0xe0 at offset ${head.length}, line 2); it reads as EUC-JP: convert it to UTF-8 first (iconv -f EUC-JP -t UTF-8), order-loader does not read EUC-JP`,
    );
    expect(encodingRefusal('c.csv', sniffEncoding(Buffer.concat([head, line(EUC_BOTH)]), true))).toBe(
      `c.csv: not UTF-8 (byte 0xc3 at offset ${head.length}, line 2); it reads as Shift_JIS or as EUC-JP: ` +
        'if Shift_JIS, load it with --encoding shift_jis; if EUC-JP, convert it to UTF-8 first (iconv -f EUC-JP -t UTF-8), order-loader does not read EUC-JP',
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
