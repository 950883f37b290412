/**
 * guess (src/input/guess/) beyond its detectors' first cases (test/unit/guess.test.ts): whole
 * files drafted in this process, each line of the evidence, the bounds of the values it reads.
 * Written against the survivors of the first StrykerJS run of src/input/guess/ (docs/mutation.md):
 * not yet in the reader group's test list, which it would stale (measure it with the next run).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { UserError } from '../../src/errors.js';
import { guessEncoding } from '../../src/input/guess/encoding.js';
import {
  delimiterCandidates,
  delimiterName,
  describeEndings,
  framing,
  isConsistent,
  sliceUnits,
  splitFields,
  splitLines,
  unitWidth,
} from '../../src/input/guess/layout.js';
import { currencyEvidence, dateEvidence, dateShare, hasFullWidth, numberEvidence } from '../../src/input/guess/values.js';
import { guessFromSample, guessProfile } from '../../src/input/guess/index.js';
import { tempDir, writeTestFile } from '../support/files.js';

/**
 * The draft of whole files, in this process (test/cli/guess-cli.test.ts asserts the same through
 * the command in a child process, which StrykerJS cannot see): the example data files, the partner
 * shapes profiles were made for, and the files guess refuses.
 */
describe('guessProfile on whole files', () => {
  const example = (name: string) => fileURLToPath(new URL(`../../examples/profiles/${name}`, import.meta.url));
  const draft = async (path: string) => {
    const guessed = await guessProfile(path);
    return { guessed, yaml: parse(guessed.yaml) as Record<string, unknown>, text: guessed.yaml };
  };

  it('eu-erp.csv: windows-1252, ";", a banner line, German names, DD.MM.YYYY and YYYY/MM/DD, decimal comma', async () => {
    const { guessed, yaml, text } = await draft(example('eu-erp.csv'));
    expect(yaml).toMatchObject({ version: 1, format: 'csv', encoding: 'windows-1252', delimiter: ';', header: true, skip_lines: 1 });
    expect(yaml.columns).toEqual({
      source_key: { column: 'Auftragsnr' },
      customer_id: { column: 'Kunde' },
      order_date: { column: 'Datum', date: ['DD.MM.YYYY', 'YYYY/MM/DD'] },
      amount: { column: 'Betrag', decimal: ',', group: '.' },
      currency: { column: 'Währung' },
    });
    expect(guessed).toMatchObject({ gzip: false, complete: true, format: 'csv', delimiter: ';', header: true, skipLines: 1, units: null });
    expect(guessed.columns.amount).toMatchObject({ column: 'Betrag', at: null, decimal: ',', group: '.' });
    expect(text).toContain('# encoding: neither Shift_JIS nor EUC-JP decodes it');
    expect(text).toContain('# date masks that fit: DD.MM.YYYY 3/4 (75%), YYYY/MM/DD 1/4 (25%)');
    expect(text).toContain('    # default: "EUR"');
  });

  it('headerless.csv: no header, columns by number, YYYYMMDD, no currency column (a commented const)', async () => {
    const { guessed, yaml, text } = await draft(example('headerless.csv'));
    expect(yaml).toMatchObject({ format: 'csv', encoding: 'utf-8', delimiter: ',', header: false });
    expect(yaml.skip_lines).toBeUndefined();
    expect(yaml.columns).toEqual({
      source_key: { column: 1 },
      customer_id: { column: 3 },
      order_date: { column: 2, date: ['YYYYMMDD'] },
      amount: { column: 4, decimal: '.' },
      currency: { open: expect.stringMatching(/^currency: no column holds currency codes/) as unknown },
    });
    expect(guessed.columns.source_key.column).toBe(1);
    expect(guessed.columns.currency).toEqual({ column: null, at: null, date: null, decimal: null, group: null, negative: [] });
    // no column, sign or file name gives the currency: an open choice (load refuses the draft until it is decided)
    expect(text).toContain(
      '  currency:\n    open: "currency: no column holds currency codes, the amounts carry no currency sign and the file name holds no currency code: write const: with the file\'s currency code"\n    # const: "<code>"   # the file\'s currency (ISO 4217, such as JPY or USD): the file does not say it',
    );
    expect(guessed.open).toEqual([
      "columns.currency: currency: no column holds currency codes, the amounts carry no currency sign and the file name holds no currency code: write const: with the file's currency code",
    ]);
  });

  it('mainframe-sjis.dat: Shift_JIS fixed width in bytes, D records between H and T, full-width digits, ▲', async () => {
    const { guessed, yaml, text } = await draft(example('mainframe-sjis.dat'));
    expect(yaml).toMatchObject({
      format: 'fixed',
      encoding: 'shift_jis',
      units: 'bytes',
      normalize: 'nfkc',
      when: { at: [1, 1], equals: 'D' },
    });
    expect(yaml.columns).toEqual({
      source_key: { at: [2, 10] },
      customer_id: { at: [12, 8] },
      order_date: { at: [20, 8], date: ['YYYYMMDD'] },
      amount: { at: [28, 12], decimal: '.', negative: ['▲'] },
      currency: { at: [40, 3] },
    });
    expect(guessed).toMatchObject({ format: 'fixed', delimiter: null, units: 'bytes', normalize: true, when: { at: [1, 1], equals: 'D' } });
    expect(guessed.columns.amount).toMatchObject({ column: null, at: [28, 12], negative: ['▲'] });
    expect(text).toContain('field boundaries seen: 1–1, 2–11, 12–19, 20–27, 28–39, 40–42, 43–50');
    expect(text).toContain('#   at [43, 8]: "東京支店", "大阪支店", "名古屋"');
  });

  it('a European semicolon file: English names, DD.MM.YYYY, 1.234,50, a banner, CRLF', () => {
    const content =
      'Export 2026-12-01\r\nOrder No;Customer;Date;Total;Cur\r\nEU-1;1001;01.12.2026;1.234,50;EUR\r\nEU-2;1002;31.12.2026;-99,00;EUR\r\nEU-3;1003;15.11.2026;12,00;CHF\r\n';
    const g = guessFromSample('eu.csv', Buffer.from(content), true);
    const yaml = parse(g.yaml) as Record<string, unknown>;
    expect(yaml).toMatchObject({ encoding: 'utf-8', delimiter: ';', header: true, skip_lines: 1 });
    expect(yaml.columns).toEqual({
      source_key: { column: 'Order No' },
      customer_id: { column: 'Customer' },
      order_date: { column: 'Date', date: ['DD.MM.YYYY'] },
      amount: { column: 'Total', decimal: ',', group: '.', negative: ['-'] },
      currency: { column: 'Cur' },
    });
    expect(g.yaml).toContain('# line endings: CRLF (5 lines)');
  });

  it('01/02/2026 dates: said ambiguous, both masks commented, none decided', () => {
    const g = guessFromSample(
      'us.csv',
      Buffer.from('id,customer,date,amount,currency\nA1,1,01/02/2026,5.00,USD\nA2,2,03/04/2026,6.00,USD\n'),
      true,
    );
    expect(parse(g.yaml)).toMatchObject({ columns: { order_date: { column: 'date' } } });
    expect(g.columns.order_date.date).toBeNull();
    expect(g.yaml).toContain(
      '# ambiguous: every value reads both as DD/MM/YYYY and as MM/DD/YYYY ("01/02/2026": day first or month first?)',
    );
    expect(g.yaml).toContain('    # date: "DD/MM/YYYY"\n    # date: "MM/DD/YYYY"');
  });

  it('a gzip file: its content is read', async () => {
    const file = writeTestFile(gzipSync(readFileSync(example('headerless.csv'))), 'partner.csv.gz');
    const { guessed, yaml } = await draft(file);
    expect(guessed.gzip).toBe(true);
    expect(guessed.yaml).toContain('bytes of its decompressed gzip content read: the whole file');
    expect(yaml.columns).toMatchObject({ order_date: { column: 2, date: ['YYYYMMDD'] } });
  });

  it('refuses a binary file, a missing one, a folder, and a gzip file with nothing readable in it, saying why', async () => {
    const bin = writeTestFile(Buffer.from([0x01, 0x02, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00]), 'archive.bin');
    await expect(guessProfile(bin)).rejects.toThrow(
      `${bin}: not a text file (a NUL byte at offset 5); guess reads CSV, fixed-width text, JSON Lines and xlsx workbooks`,
    );
    const missing = join(tempDir(), 'nope.csv');
    await expect(guessProfile(missing)).rejects.toThrow(new UserError(`${missing}: no such file`));
    const folder = tempDir();
    await expect(guessProfile(folder)).rejects.toThrow(new UserError(`${folder}: a directory, not a file`));
    const empty = writeTestFile(gzipSync(Buffer.alloc(0)), 'empty.csv.gz');
    await expect(guessProfile(empty)).rejects.toThrow(`${empty}: a gzip file whose content could not be read (damaged or empty)`);
  });
});

describe('layout, line by line', () => {
  it('splits lines at CRLF, LF and a lone CR, counts each, and says them', () => {
    expect(splitLines('a\rb\r\nc\nd')).toEqual({ lines: ['a', 'b', 'c', 'd'], endings: { crlf: 1, lf: 1, cr: 1 } });
    expect(splitLines('a\n\nb\n')).toEqual({ lines: ['a', '', 'b'], endings: { crlf: 0, lf: 3, cr: 0 } });
    expect(splitLines('')).toEqual({ lines: [], endings: { crlf: 0, lf: 0, cr: 0 } });
    expect(describeEndings({ crlf: 0, lf: 0, cr: 0 })).toBe('no line end in the sample (one line)');
    expect(describeEndings({ crlf: 0, lf: 2, cr: 0 })).toBe('LF (2 lines)');
    expect(describeEndings({ crlf: 0, lf: 0, cr: 3 })).toBe('CR (3 lines)');
    expect(describeEndings({ crlf: 1, lf: 2, cr: 0 })).toBe('mixed: CRLF 1, LF 2');
  });

  it('splits fields: a quote opens a field only at its start, "" inside is one quote', () => {
    expect(splitFields('"a,b",c', ',')).toEqual(['a,b', 'c']);
    expect(splitFields('"a""b";c', ';')).toEqual(['a"b', 'c']);
    expect(splitFields('a"b,c', ',')).toEqual(['a"b', 'c']);
    expect(splitFields('x,"y"', ',')).toEqual(['x', 'y']);
    expect(splitFields('a,', ',')).toEqual(['a', '']);
    expect(splitFields('', ',')).toEqual(['']);
    expect(delimiterName('\t')).toBe('tab');
    expect(delimiterName(';')).toBe('";"');
  });

  it('leaves blank and comment lines out of the delimiter counts; a tie of lines goes to more fields', () => {
    expect(delimiterCandidates(['# a,b,c', 'x|y', '', '1|2'])).toEqual([{ delimiter: '|', fields: 2, lines: 2, of: 2 }]);
    expect(delimiterCandidates(['a,b;c;d', 'e,f;g;h'])[0]).toEqual({ delimiter: ';', fields: 3, lines: 2, of: 2 });
    expect(delimiterCandidates(['a,b,c', 'a,b'])[0]).toEqual({ delimiter: ',', fields: 3, lines: 1, of: 2 });
    expect(delimiterCandidates(['abc', 'def'])).toEqual([]);
    expect(isConsistent({ delimiter: ',', fields: 2, lines: 3, of: 5 })).toBe(true);
    expect(isConsistent({ delimiter: ',', fields: 2, lines: 2, of: 4 })).toBe(false);
    expect(isConsistent({ delimiter: ',', fields: 2, lines: 1, of: 1 })).toBe(true);
    expect(isConsistent({ delimiter: ',', fields: 2, lines: 1, of: 1.5 })).toBe(false);
  });

  it('frames records between a banner, comment lines and a trailer', () => {
    expect(framing(['# exported', 'a,b', '1,2', '', 'TOTAL', ''], ',', 2)).toEqual({
      banner: 1,
      trailer: ['TOTAL'],
      comment: true,
      records: ['a,b', '1,2'],
    });
    expect(framing(['a,b', '# note', '1,2'], ',', 2)).toEqual({ banner: 0, trailer: [], comment: true, records: ['a,b', '1,2'] });
  });

  it('counts a character’s width in the units of its encoding, and slices fields by those units', () => {
    expect(unitWidth('注', 'shift_jis', 'chars')).toBe(1);
    expect(unitWidth('a', 'utf-8', 'bytes')).toBe(1);
    expect(unitWidth('ｱ', 'shift_jis', 'bytes')).toBe(1);
    expect(unitWidth('｡', 'shift_jis', 'bytes')).toBe(1);
    expect(unitWidth('ﾟ', 'shift_jis', 'bytes')).toBe(1);
    expect(unitWidth('｠', 'shift_jis', 'bytes')).toBe(2);
    expect(unitWidth('ￂ', 'shift_jis', 'bytes')).toBe(2);
    expect(unitWidth('注', 'shift_jis', 'bytes')).toBe(2);
    expect(unitWidth('ｱ', 'euc-jp', 'bytes')).toBe(2);
    expect(unitWidth('é', 'windows-1252', 'bytes')).toBe(1);
    expect(unitWidth('é', 'utf-8', 'bytes')).toBe(2);
    expect(unitWidth('注', 'utf-8', 'bytes')).toBe(3);
    expect(sliceUnits('AB注文 CD', 3, 5, 'shift_jis', 'bytes')).toBe('注文');
    expect(sliceUnits('AB注文 CD', 3, 2, 'utf-8', 'chars')).toBe('注文');
    expect(sliceUnits('AB注文 CD', 5, 3, 'utf-8', 'chars')).toBe('CD');
  });
});

describe('guessEncoding, its evidence', () => {
  it('says why, line by line: ASCII, UTF-8, EUC-JP against Shift_JIS, windows-1252 with the Japanese reading as the alternative', () => {
    expect(guessEncoding(Buffer.from('a,b\n'), true)).toEqual({
      encoding: 'utf-8',
      text: 'a,b\n',
      why: ['every byte of the 4 read is ASCII'],
      alternative: null,
    });
    expect(guessEncoding(Buffer.from('é,1\n'), true)).toMatchObject({ why: ['valid UTF-8 (1 multi-byte characters in 5 bytes)'] });
    // 注文 in EUC-JP: Shift_JIS reads it too, as half-width katakana and one kanji
    expect(guessEncoding(Buffer.from([0xc3, 0xed, 0xca, 0xb8, 0x2c, 0x31, 0x0a]), true)).toEqual({
      encoding: 'euc-jp',
      text: '注文,1\n',
      why: [
        '0xc3 at byte 0 (line 1) is not UTF-8',
        'EUC-JP decodes the whole sample; 100% of its non-ASCII characters are kana, kanji or full-width forms',
        'Shift_JIS decodes it too (33% Japanese characters)',
      ],
      alternative: null,
    });
    expect(guessEncoding(Buffer.from([0x92, 0x8d, 0x95, 0xb6, 0x2c, 0x31, 0x0a]), true)).toMatchObject({
      why: [
        '0x92 at byte 0 (line 1) is not UTF-8',
        expect.stringContaining('Shift_JIS decodes the whole sample'),
        'EUC-JP does not decode it',
      ],
    });
    expect(guessEncoding(Buffer.from('Stra\xdfe;W\xe4hrung\n', 'latin1'), true)).toEqual({
      encoding: 'windows-1252',
      text: 'Straße;Währung\n',
      why: ['0xdf at byte 4 (line 1) is not UTF-8', 'Shift_JIS decodes it, but hardly as Japanese text', 'windows-1252 reads it (ß ä)'],
      alternative: { encoding: 'shift_jis', why: 'Shift_JIS decodes the sample too' },
    });
    expect(guessEncoding(Buffer.from('caf\xe9,1\n', 'latin1'), true)).toEqual({
      encoding: 'windows-1252',
      text: 'café,1\n',
      why: ['0xe9 at byte 3 (line 1) is not UTF-8', 'neither Shift_JIS nor EUC-JP decodes it', 'windows-1252 reads it (é)'],
      alternative: null,
    });
  });

  it('reads UTF-16 either way round by its BOM, leaves out a last line the sample cut, and refuses control bytes', () => {
    expect(guessEncoding(Buffer.from([0xfe, 0xff, 0x00, 0x61, 0x00, 0x0a]), true)).toEqual({
      encoding: 'utf-16',
      text: 'a\n',
      why: ['byte order mark FE FF: UTF-16 big-endian'],
      alternative: null,
    });
    expect(guessEncoding(Buffer.from([0xff, 0xfe, 0x61, 0, 0x0a, 0]), true)).toMatchObject({
      why: ['byte order mark FF FE: UTF-16 little-endian'],
    });
    expect(guessEncoding(Buffer.from('a,b\n1,2\n3,'), false)).toMatchObject({ text: 'a,b\n1,2\n' });
    expect(guessEncoding(Buffer.from('a,b\r1,2\r3,'), false)).toMatchObject({ text: 'a,b\r1,2\r' });
    expect(guessEncoding(Buffer.from('a,b\n1,2\n3,'), true)).toMatchObject({ text: 'a,b\n1,2\n3,' });
    expect(guessEncoding(Buffer.from('a,b'), false)).toMatchObject({ text: 'a,b' });
    expect(guessEncoding(Buffer.from('a\x01b\x02\n', 'latin1'), true)).toEqual({
      notText: 'not a text file (40% control bytes); guess reads CSV, fixed-width text, JSON Lines and xlsx workbooks',
    });
    // tab, form feed, ESC and SUB are text; one other control byte in 22 is under 5%
    expect(guessEncoding(Buffer.from('a\tb\x0c\x1b\x1a\r\n0123456789\x01ab\n', 'latin1'), true)).toMatchObject({ encoding: 'utf-8' });
  });
});

describe('values, their bounds', () => {
  it('reads each mask’s own form, real calendar dates of 1900 to 2199 only', () => {
    const forms: Array<[string, string]> = [
      ['2026-02-28', 'YYYY-MM-DD'],
      ['2026/02/28', 'YYYY/MM/DD'],
      ['2026.02.28', 'YYYY.MM.DD'],
      ['20260228', 'YYYYMMDD'],
      ['28.02.2026', 'DD.MM.YYYY'],
      ['28/02/2026', 'DD/MM/YYYY'],
      ['02/28/2026', 'MM/DD/YYYY'],
      ['28-02-2026', 'DD-MM-YYYY'],
      ['02-28-2026', 'MM-DD-YYYY'],
    ];
    for (const [value, mask] of forms) expect(dateEvidence([value]).chosen, value).toEqual([mask]);
    // a dot is a dot, not any character
    expect(dateEvidence(['2026x02x28', '28x02x2026']).masks).toEqual([]);
    // a one-digit month is read by M (a mask as it is written), not by MM
    expect(dateEvidence(['2026-1-01']).chosen).toEqual(['YYYY-M-DD']);
    for (const bad of ['2026-02-29', '2026-13-01', '2026-00-10', '2026-01-00', '2026-04-31', '1899-12-31', '2200-01-01', '2026-1-001'])
      expect(dateEvidence([bad]), bad).toMatchObject({ masks: [], of: 1, readable: 0, chosen: null });
    for (const good of ['2024-02-29', '1900-01-01', '2199-12-31', '2026-12-31'])
      expect(dateEvidence([good]), good).toMatchObject({ readable: 1, chosen: ['YYYY-MM-DD'] });
    const e = dateEvidence(['2026-12-01', 'soon', '', '2026-12-02']);
    expect(e).toMatchObject({ of: 3, readable: 2 });
    expect(dateShare(e)).toBeCloseTo(2 / 3);
    expect(dateShare(dateEvidence(['', '']))).toBe(0);
    expect(dateEvidence([]).chosen).toBeNull();
  });

  it('counts amounts, fractions and whole numbers, and says why it decided the separators or not', () => {
    expect(numberEvidence(['1.234.567', '12'])).toEqual({
      numeric: 2,
      of: 2,
      decimal: ',',
      group: '.',
      why: 'decimal comma: 1 value(s) such as "1.234.567"',
      negative: [],
      fractions: 0,
      digitsOnly: 1,
      signs: {},
      signed: 0,
    });
    expect(numberEvidence(['1,234,567', '3.25', 'n/a', ''])).toEqual({
      numeric: 2,
      of: 3,
      decimal: '.',
      group: ',',
      why: 'decimal point: 2 value(s) such as "3.25"',
      negative: [],
      fractions: 1,
      digitsOnly: 0,
      signs: {},
      signed: 0,
    });
    expect(numberEvidence(['1,50', '2.50'])).toMatchObject({
      decimal: null,
      group: null,
      why: 'values read both ways (1 with a decimal comma, 1 with a decimal point)',
    });
    expect(numberEvidence(['1,234'])).toMatchObject({
      decimal: null,
      why: '"1,234" reads as a thousands separator or as a decimal with 3 digits',
    });
    expect(numberEvidence(['7', '1 000'])).toMatchObject({
      decimal: '.',
      group: ' ',
      why: 'whole numbers with a group separator',
      digitsOnly: 1,
    });
    expect(numberEvidence(['7', '12'])).toMatchObject({ decimal: '.', group: null, why: 'no separator in the sample (whole numbers)' });
    expect(numberEvidence(["1'234.50"])).toMatchObject({ decimal: '.', fractions: 1 });
    expect(numberEvidence(['-', 'abc', '▲'])).toMatchObject({ numeric: 0, of: 3 });
  });

  it('finds currency codes: three capitals, the known ones apart, the most frequent on top', () => {
    expect(currencyEvidence(['ABC', 'USD', 'ABC', 'eur', 'EURO', ''])).toEqual({ codes: 3, known: 1, of: 5, top: 'ABC' });
    expect(currencyEvidence(['', 'x'])).toEqual({ codes: 0, known: 0, of: 1, top: null });
    for (const code of ['JPY', 'GBP', 'CNY', 'ISK', 'UAH']) expect(currencyEvidence([code]).known, code).toBe(1);
    expect(hasFullWidth('！')).toBe(true);
    expect(hasFullWidth('～')).toBe(true);
    expect(hasFullWidth('｟')).toBe(false);
  });
});
