/**
 * guess on the shapes real exports take: date masks that read every value (unpadded parts, 年月日,
 * Japanese eras, times with fractions, 12-hour clocks and offsets), amounts with currency signs
 * and the separators exports write, the profile's name, match and currency from the file's name,
 * the files it recognises and refuses, `#` order names, and open choices that load refuses.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { UserError } from '../../src/errors.js';
import { numberEvidence, strip } from '../../src/input/guess/amounts.js';
import { dateEvidence, zoneOfOffsets } from '../../src/input/guess/dates.js';
import { fileNameFacts } from '../../src/input/guess/file-name.js';
import { binaryFormat, jsonFormat } from '../../src/input/guess/formats.js';
import { guessFromSample } from '../../src/input/guess/index.js';
import { hashComments } from '../../src/input/guess/layout.js';
import { KNOWN_CURRENCIES, unguard } from '../../src/input/guess/values.js';
import { parseProfileText } from '../../src/input/profile/load-profile.js';

const CORPUS = 'test/fixtures/guess-corpus';
const corpus = (name: string) => guessFromSample(join('/in', name), readFileSync(join(CORPUS, name)), true);

describe('date masks that read every value', () => {
  it('proposes YYYY/M/D where 2026/12/1 and 2026/12/10 are in one column, not YYYY/MM/DD that reads 3 of 5', () => {
    const e = dateEvidence(['2026/12/1', '2026/12/10', '2026/12/11', '2026/1/2', '2026/12/25']);
    expect(e).toMatchObject({ chosen: ['YYYY/M/D'], of: 5, readable: 5, ambiguous: null });
    expect(e.masks).toEqual([{ mask: 'YYYY/M/D', hits: 5 }]);
    // every value two-digit: the two-digit mask
    expect(dateEvidence(['2026/12/01', '2026/12/10']).chosen).toEqual(['YYYY/MM/DD']);
  });

  it('reads 年月日 and the Japanese eras, within each era', () => {
    expect(dateEvidence(['2026年12月1日', '2026年1月15日']).chosen).toEqual(['YYYY年M月D日']);
    expect(dateEvidence(['R8.12.1', 'R8.1.30']).chosen).toEqual(['GE.M.D']);
    expect(dateEvidence(['R8.12.1', 'R8.11.30']).chosen).toEqual(['GE.MM.D']);
    expect(dateEvidence(['R08/12/01', 'R08/11/30']).chosen).toEqual(['GEE/MM/DD']);
    expect(dateEvidence(['令和8年12月1日', '令和元年5月1日']).chosen).toEqual(['GE年M月D日']);
    expect(dateEvidence(['H31.4.30']).chosen).toEqual(['GEE.M.DD']);
    // Reiwa 1 begins 2019-05-01; Heisei ends 2019-04-30
    for (const outside of ['R1.4.30', '平成31年5月1日', 'R8.2.30']) expect(dateEvidence([outside]).readable, outside).toBe(0);
  });

  it('reads the time, its fraction, a 12-hour clock and the offset after a date, and says the offsets', () => {
    expect(dateEvidence(['2026-12-01 14:03:22.000', '2026-12-02 08:12:00.000']).chosen).toEqual(['YYYY-MM-DD HH:mm:ss.SSS']);
    const iso = dateEvidence(['2026-12-01T09:15:00+09:00', '2026-12-01T00:15:00+09:00']);
    expect(iso).toMatchObject({ chosen: ['YYYY-MM-DDTHH:mm:ssZ'], offsets: ['+09:00'] });
    expect(dateEvidence(['2026-12-01 09:15:00 +0900']).chosen).toEqual(['YYYY-MM-DD HH:mm:ss Z']);
    expect(dateEvidence(['12/01/2026 9:15 PM', '12/13/2026 11:05 AM']).chosen).toEqual(['MM/DD/YYYY h:mm A']);
    expect(dateEvidence(['20261201091500', '20261202235959']).chosen).toEqual(['YYYYMMDDHHmmss']);
    // a time out of range is no time
    expect(dateEvidence(['2026-12-01 24:00:00']).readable).toBe(0);
    expect(dateEvidence(['2026-12-01 13:00 PM']).readable).toBe(0);
    // UTC (and GMT) written for the zero offset: an offset the mask's Z reads
    expect(dateEvidence(['2026-12-01 21:34:02 UTC', '2026-12-02 00:00:01 UTC'])).toMatchObject({
      chosen: ['YYYY-MM-DD HH:mm:ss Z'],
      offsets: ['UTC'],
    });
    // a suffix no mask can write: not read (an open choice in the draft)
    expect(dateEvidence(['2026-12-01 21:34:02 CET']).readable).toBe(0);
    // 12/01 reads both ways, 12/15 only month first: month first reads every value
    expect(dateEvidence(['12/01/2026 14:49:42', '12/15/2026 02:46:29']).chosen).toEqual(['MM/DD/YYYY HH:mm:ss']);
  });

  it('turns one whole-hour offset into the zone whose date is the date written, and leaves several undecided', () => {
    expect(zoneOfOffsets(['+09:00'])).toBe('Etc/GMT-9');
    expect(zoneOfOffsets(['-0500'])).toBe('Etc/GMT+5');
    expect(zoneOfOffsets(['Z'])).toBe('UTC');
    expect(zoneOfOffsets(['+00:00', 'Z'])).toBe('UTC');
    expect(zoneOfOffsets(['UTC'])).toBe('UTC');
    expect(zoneOfOffsets(['UTC', 'GMT', 'Z'])).toBe('UTC');
    expect(zoneOfOffsets(['+09:00', 'Z'])).toBeNull();
    expect(zoneOfOffsets(['+05:30'])).toBeNull();
  });
});

describe('amounts as exports write them', () => {
  it('reads $1,234.50 and ($45.00) as amounts with a sign, not as words or whole numbers', () => {
    const e = numberEvidence(['$1,234.50', '($45.00)', '$980.00', '$12,000.00']);
    expect(e).toMatchObject({ numeric: 4, decimal: '.', group: ',', negative: ['()'], signs: { $: 4 }, signed: 4, fractions: 4 });
    expect(strip('-$5.00')).toEqual({ body: '5.00', sign: '$', negative: '-' });
    expect(strip('$-5.00')).toEqual({ body: '5.00', sign: '$', negative: '-' });
    expect(strip('1,200円')).toEqual({ body: '1,200', sign: '円', negative: null });
    expect(strip('€ 12,50')).toEqual({ body: '12,50', sign: '€', negative: null });
    expect(strip('12.00 USD')).toEqual({ body: '12.00', sign: 'USD', negative: null });
    // Japanese Excel's yen sign in Shift_JIS (byte 0x5C) reads as a backslash: a sign of JPY
    expect(numberEvidence(['\\1,200', '\\980'])).toMatchObject({ numeric: 2, signs: { '\\': 2 } });
    expect(parse(corpus('excel-jp-datetime.csv').yaml)).toMatchObject({
      columns: { order_date: { date: ['YYYY/MM/D H:mm'] }, amount: { currency_signs: { '\\': 'JPY' } }, currency: { amount_sign: true } },
    });
    // a key is no signed amount
    expect(numberEvidence(['SO-50001', 'SO-50002'])).toMatchObject({ numeric: 0, signed: 0 });
  });

  it('decides 1,200 only by evidence: a currency without minor units, else undecided', () => {
    expect(numberEvidence(['¥1,200', '¥980'])).toMatchObject({ decimal: null });
    expect(numberEvidence(['¥1,200', '¥980'], { wholeCurrency: true })).toMatchObject({ decimal: '.', group: ',' });
    expect(numberEvidence(['△1,200', '(3,500)', '45,000'], { wholeCurrency: true })).toMatchObject({
      decimal: '.',
      group: ',',
      negative: ['△', '()'],
    });
  });

  it('reads the blank groups (space, no-break, narrow no-break) and the apostrophe', () => {
    expect(numberEvidence(['1\u00a0234,50', '89,90', '12\u202f500,00'])).toMatchObject({ decimal: ',', group: ' ', numeric: 3 });
    expect(numberEvidence(["1'234.50", '980.00'])).toMatchObject({ decimal: '.', group: "'" });
  });
});

describe('the file name', () => {
  it('gives the name, a match pattern for the next files, and a currency code with the pattern that takes it', () => {
    expect(fileNameFacts('/in/orders_USD_20261201.csv', KNOWN_CURRENCIES)).toEqual({
      name: 'orders',
      match: 'orders_???_*.csv',
      currency: { code: 'USD', pattern: 'orders_(?<currency>[A-Z]{3})_\\d{8}\\.csv' },
    });
    expect(fileNameFacts('nightly-orders.csv.gz', KNOWN_CURRENCIES)).toEqual({
      name: 'nightly-orders',
      match: 'nightly-orders.csv.gz',
      currency: null,
    });
    // no code inside a word; a name of no ASCII letters is still a valid profile name
    expect(fileNameFacts('EUROPE_1.csv', KNOWN_CURRENCIES)).toMatchObject({ name: 'EUROPE', currency: null, match: 'EUROPE_*.csv' });
    expect(fileNameFacts('受注データ.csv', KNOWN_CURRENCIES).name).toBe('partner');
  });

  it('a file whose currency is only in its name: file_pattern and file_group, never a const offered', () => {
    const g = corpus('orders_USD_20261201.csv');
    const yaml = parse(g.yaml) as Record<string, unknown>;
    expect(yaml).toMatchObject({
      name: 'orders',
      match: 'orders_???_*.csv',
      file_pattern: 'orders_(?<currency>[A-Z]{3})_\\d{8}\\.csv',
      columns: { currency: { file_group: 'currency' } },
    });
    expect(g.yaml).not.toContain('const');
    expect(g.open).toEqual([]);
  });
});

describe('files guess recognises but does not read as order text', () => {
  it('says workbooks, PDF and zip by their first bytes, JSON and JSON Lines by their text', () => {
    // a workbook reaches binaryFormat only compressed: guessProfile drafts one read from its own file
    expect(binaryFormat(readFileSync(join(CORPUS, 'partner-orders.xlsx')))).toMatch(
      /^an Excel workbook \(xlsx\) inside gzip: decompress it/,
    );
    // what it reads: every format, not the two of before JSON Lines and xlsx
    expect(binaryFormat(Buffer.from('%PDF-1.4'))).toMatch(/^a PDF document, .*reads CSV, fixed-width text, JSON Lines and xlsx workbooks;/);
    expect(binaryFormat(Buffer.from('id,amount\n'))).toBeNull();
    expect(jsonFormat('{"a":1}\n{"a":2}\n{"a":', false)).toMatch(/^JSON Lines \(one JSON object per line, 2 in the sample\)/);
    expect(jsonFormat('[1, 2]', true)).toMatch(/^a JSON document/);
    // a banner in brackets is no JSON
    expect(jsonFormat('[Orders]\nid,amount\n1,2\n', true)).toBeNull();
    // JSON Lines is drafted as format: jsonl (test/unit/guess-jsonl.test.ts), its fields by path
    expect(corpus('shop-export.jsonl')).toMatchObject({ format: 'jsonl', columns: { customer_id: { column: 'customer.id' } } });
  });
});

describe('what the newcomer saw guess get wrong', () => {
  it('#1001 order names are data, not comment lines; a # block above a few records is comments', () => {
    expect(hashComments(['Name,Total', '#1001,5', '#1002,6'])).toBe(false);
    expect(hashComments(['# exported', 'id,total', 'A,5', 'B,6'])).toBe(true);
    const g = corpus('shopify-orders.csv');
    expect(g.yaml).not.toContain('comment:');
    expect(g.columns.source_key.column).toBe('Name');
  });

  it('EUC-JP over windows-1252 for kanji text; windows-1252 decoded as the reader decodes it (0x80 is €)', () => {
    expect(corpus('eucjp-fixed.dat').encoding).toBe('euc-jp');
    const euro = corpus('euro-signs.csv');
    expect(euro.encoding).toBe('windows-1252');
    expect(parse(euro.yaml)).toMatchObject({ columns: { amount: { currency_signs: { '€': 'EUR' } }, currency: { amount_sign: true } } });
  });

  it('BigQuery timestamps (2026-12-01 21:34:02 UTC): the mask with its offset, the zone whose dates are those written', () => {
    const g = corpus('bigquery-utc.csv');
    expect(g.open).toEqual([]);
    expect(parse(g.yaml)).toMatchObject({
      timezone: 'UTC',
      columns: { order_date: { column: 'created_at', date: ['YYYY-MM-DD HH:mm:ss Z'] } },
    });
  });

  it('fields whose digits run together (K0000001|100101|20261201): no amount proposed in them, the draft says why it cannot split them', () => {
    const g = corpus('eucjp-fixed.dat');
    // 21 digits: more than any amount holds (order_stage.amount has 16 before the point)
    expect(g.columns.amount.at).not.toEqual([2, 21]);
    expect(g.open.map((o) => o.slice(0, o.indexOf(':')))).toEqual([
      'columns.source_key',
      'columns.customer_id',
      'columns.order_date',
      'columns.amount',
    ]);
    expect(g.open[0]).toContain('at [2, 21] holds 21 digits on every line: fields that run together, which guess cannot split');
  });

  it('Net, Tax and Total: the total by its sum, the others listed; Excel guards unwrapped before the values are judged', () => {
    const g = corpus('sqlserver-export.csv');
    expect(g.columns.amount.column).toBe('TotalAmount');
    expect(g.yaml).toContain('    # also fits: "NetAmount"');
    expect(unguard('="000123"')).toBe('000123');
    expect(unguard('="a""b"')).toBe('a"b');
    expect(corpus('excel-windows-cp932.csv').columns.customer_id.column).toBe('得意先コード');
  });

  it('every draft guess leaves no choice open in checks as a profile; every other one is refused naming its first open choice', () => {
    const files = readdirSync(CORPUS).filter((f) => !f.includes('.expected') && !/\.(xlsx|jsonl)$/.test(f));
    expect(files.length).toBeGreaterThanOrEqual(20);
    for (const f of files) {
      const g = corpus(f);
      if (g.open.length === 0) expect(() => parseProfileText(g.yaml, f, 'draft'), f).not.toThrow();
      else
        expect(() => parseProfileText(g.yaml, f, 'draft'), f).toThrow(
          /: an open choice guess left: .*; decide it and remove its open: line/,
        );
    }
  });
});

describe('open choices in a profile', () => {
  const base = (extra: string, currency = '{ const: "EUR" }') =>
    `version: 1\nname: p\n${extra}columns:\n  source_key: { column: 1 }\n  customer_id: { column: 2 }\n  order_date: { column: 3 }\n  amount: { column: 4 }\n  currency: ${currency}\n`;
  it('are refused before anything else, naming the field (or open at the top), the text and the line', () => {
    expect(() => parseProfileText(base(''), 'p.yaml', 'p')).not.toThrow();
    expect(() => parseProfileText(base('', '{ open: "currency: which one?" }'), 'p.yaml', 'p')).toThrow(
      new UserError(
        'profile p.yaml: columns.currency: an open choice guess left: currency: which one? (line 8); decide it and remove its open: line',
      ),
    );
    expect(() => parseProfileText(base('open: ["timezone: which zone?", "x"]\n'), 'p.yaml', 'p')).toThrow(
      new UserError(
        'profile p.yaml: open: an open choice guess left: timezone: which zone? (line 3); decide it and remove its open: line (and 1 more open choice(s))',
      ),
    );
  });
});
