/** guess's detectors (src/input/guess/), each on its own: bytes or lines in, evidence out. */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { guessEncoding } from '../../src/input/guess/encoding.js';
import { delimiterCandidates, fixedLayout, framing, splitLines } from '../../src/input/guess/layout.js';
import { nameSimilarity, proposeFields } from '../../src/input/guess/fields.js';
import { currencyEvidence, dateEvidence, hasFullWidth, numberEvidence } from '../../src/input/guess/values.js';
import { guessFromSample } from '../../src/input/guess/index.js';

describe('guessEncoding', () => {
  it('says the BOM, valid UTF-8, Shift_JIS by its fit, windows-1252 when no Japanese encoding fits, and NUL bytes as no text', () => {
    expect(guessEncoding(Buffer.from('\ufeffa;b\n'), true)).toMatchObject({
      encoding: 'utf-8',
      text: 'a;b\n',
      why: ['byte order mark EF BB BF: UTF-8'],
    });
    expect(guessEncoding(Buffer.from([0xff, 0xfe, 0x61, 0, 0x0a, 0]), true)).toMatchObject({ encoding: 'utf-16', text: 'a\n' });
    expect(guessEncoding(Buffer.from('注文,1\n'), true)).toMatchObject({ encoding: 'utf-8' });
    // 注文 in Shift_JIS
    const sjis = guessEncoding(Buffer.from([0x92, 0x8d, 0x95, 0xb6, 0x2c, 0x31, 0x0a]), true);
    expect(sjis).toMatchObject({ encoding: 'shift_jis', text: '注文,1\n', alternative: null });
    expect('why' in sjis && sjis.why[0]).toBe('0x92 at byte 0 (line 1) is not UTF-8');
    const latin = guessEncoding(Buffer.from('Stra\xdfe;W\xe4hrung\n', 'latin1'), true);
    expect(latin).toMatchObject({ encoding: 'windows-1252', text: 'Straße;Währung\n' });
    expect(guessEncoding(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x01]), true)).toEqual({
      notText: 'not a text file (a NUL byte at offset 4); guess reads CSV, fixed-width text, JSON Lines and xlsx workbooks',
    });
    expect(guessEncoding(Buffer.alloc(0), true)).toEqual({ notText: 'the file is empty: nothing to guess from' });
  });
});

describe('layout', () => {
  it('counts line endings and ranks the delimiters by how consistent their field counts are', () => {
    const { lines, endings } = splitLines('a;b;c\r\n1;2,5;3\r\n4;5;6\n');
    expect(endings).toEqual({ crlf: 2, lf: 1, cr: 0 });
    const [best, next] = delimiterCandidates(lines);
    expect(best).toEqual({ delimiter: ';', fields: 3, lines: 3, of: 3 });
    expect(next).toEqual({ delimiter: ',', fields: 2, lines: 1, of: 3 });
  });

  it('finds a banner before the first record and a trailer after the last', () => {
    const f = framing(['Export of 2026-12-01', 'a,b,c', '1,2,3', '4,5,6', 'END 2'], ',', 3);
    expect(f).toMatchObject({ banner: 1, trailer: ['END 2'], records: ['a,b,c', '1,2,3', '4,5,6'] });
  });

  it('sees fixed-width boundaries in bytes for Shift_JIS, and the record type column', () => {
    const lines = ['H20261201', 'D0001１２20261201  12.00JPY', 'D0002３４20261202▲ 3.50JPY', 'T2'];
    const f = fixedLayout(lines, 'shift_jis');
    expect(f).toMatchObject({ units: 'bytes', recordType: { equals: 'D', others: ['H', 'T'] } });
    expect(f?.fields).toEqual([
      [1, 1],
      [2, 4],
      [6, 4],
      [10, 8],
      [18, 7],
      [25, 3],
    ]);
  });
});

describe('values', () => {
  it('gives each date mask its hit rate and says day/month ambiguity instead of deciding', () => {
    const mixed = dateEvidence(['01.12.2026', '13.12.2026', '2026/12/04', '']);
    expect(mixed.masks).toEqual([
      { mask: 'DD.MM.YYYY', hits: 2 },
      { mask: 'YYYY/MM/DD', hits: 1 },
    ]);
    expect(mixed.chosen).toEqual(['DD.MM.YYYY', 'YYYY/MM/DD']);
    const ambiguous = dateEvidence(['01/02/2026', '03/04/2026']);
    expect(ambiguous.ambiguous).toEqual({ masks: ['DD/MM/YYYY', 'MM/DD/YYYY'], example: '01/02/2026' });
    expect(ambiguous.chosen).toBeNull();
    // one value only day-first reads decides it
    expect(dateEvidence(['01/02/2026', '13/02/2026']).chosen).toEqual(['DD/MM/YYYY']);
    expect(dateEvidence(['20261301']).masks).toEqual([]);
  });

  it('tells 1.234,50 from 1,234.50, leaves 1,234 undecided, and finds the negative forms', () => {
    expect(numberEvidence(['1.234,50', '99,00', '-5,00'])).toMatchObject({ decimal: ',', group: '.', negative: ['-'] });
    expect(numberEvidence(['1,234.50', '(12.00)', '▲300'])).toMatchObject({ decimal: '.', group: ',', negative: ['()', '▲'] });
    const undecided = numberEvidence(['1,234', '5,678']);
    expect(undecided.decimal).toBeNull();
    expect(undecided.why).toContain('"1,234"');
    expect(numberEvidence(['12', '300'])).toMatchObject({ decimal: '.', group: null, digitsOnly: 2 });
    expect(numberEvidence(['12-'])).toMatchObject({ negative: ['trailing -'] });
  });

  it('finds currency codes and full-width characters', () => {
    expect(currencyEvidence(['EUR', '', 'EUR', 'CHF'])).toEqual({ codes: 3, known: 3, of: 3, top: 'EUR' });
    expect(hasFullWidth('１００１')).toBe(true);
    expect(hasFullWidth('1001 ▲')).toBe(false);
  });
});

describe('fields', () => {
  it('knows English, German and Japanese names of the five fields', () => {
    expect(nameSimilarity('Order No', 'source_key').score).toBe(1);
    expect(nameSimilarity('Bestellnr.', 'source_key').score).toBe(1);
    expect(nameSimilarity('注文番号', 'source_key').score).toBe(1);
    expect(nameSimilarity('顧客', 'customer_id').score).toBe(1);
    expect(nameSimilarity('Kundennummer', 'customer_id').score).toBe(1);
    expect(nameSimilarity('日付', 'order_date').score).toBe(1);
    expect(nameSimilarity('金額', 'amount').score).toBe(1);
    expect(nameSimilarity('Währung', 'currency').score).toBe(1);
    expect(nameSimilarity('Cur', 'currency').score).toBe(1);
    expect(nameSimilarity('Bemerkung', 'amount').score).toBe(0);
  });

  it('proposes by values without names: dates, amounts with fractions, codes, then the key and the customer', () => {
    const col = (index: number, values: string[]) => ({ index, name: null, at: null, values });
    const p = proposeFields([
      col(1, ['X-1', 'X-2', 'X-3']),
      col(2, ['7', '7', '8']),
      col(3, ['12.50', '3', '4']),
      col(4, ['USD', 'USD', 'EUR']),
      col(5, ['2026-01-02', '2026-01-03', '2026-01-04']),
    ]);
    expect(p.map((f) => [f.field, f.column?.index])).toEqual([
      ['source_key', 1],
      ['customer_id', 2],
      ['order_date', 5],
      ['amount', 3],
      ['currency', 4],
    ]);
  });
});

describe('guessFromSample', () => {
  it('writes YAML that parses, every text value quoted', () => {
    const g = guessFromSample('x.csv', Buffer.from('Order No,Customer,Date,Total,Cur\nA1,1,20261201,1.5,EUR\nA2,2,20261202,2,EUR\n'), true);
    const profile = parse(g.yaml) as { columns: { order_date: { column: string; date: string[] } } };
    expect(profile.columns.order_date).toEqual({ column: 'Date', date: ['YYYYMMDD'] });
    expect(g.yaml).toContain('date: ["YYYYMMDD"]');
  });
});
