/**
 * guess: the draft a user reads (src/input/guess/index.ts). Whole drafts compared line by line
 * (each expected draft below was read line by line against its file: the evidence of each
 * decision, the commented choices), how the header is told from data, the sample's bounds, the
 * read errors; and that a draft parses back into a profile that loads its file. Written against
 * the survivors of the reader group's StrykerJS run (docs/mutation.md, "Scores of the reader group").
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { UserError } from '../../src/errors.js';
import { GUESS_SAMPLE_BYTES, guessFromSample, guessProfile } from '../../src/input/guess/index.js';
import { openOrderFile, type FileItem } from '../../src/input/order-file.js';
import { parseProfileText } from '../../src/input/profile/load-profile.js';
import { tempDir, writeTestFile } from '../support/files.js';

const draftOf = (name: string, content: string | Buffer, complete = true) =>
  guessFromSample(name, typeof content === 'string' ? Buffer.from(content) : content, complete);
const lines = (...l: string[]) => `${l.join('\n')}\n`;

/** The records a file gives through the profile a draft parses into (the draft as written, unedited). */
async function loadWith(yaml: string, content: string): Promise<unknown[]> {
  const profile = parseProfileText(yaml, 'draft.yaml', 'draft');
  const file = await openOrderFile(writeTestFile(content), { encoding: 'utf-8', delimiter: ',', profile });
  const items: FileItem[] = [];
  try {
    for await (const item of file.items) items.push(item);
  } finally {
    file.close();
  }
  return items.map((i) => (i.kind === 'record' ? { line: i.lineNo, ...i.fields } : { line: i.lineNo, reject: i.code }));
}

const FORTY = `${'x'.repeat(38)}yz`;
/** A CSV export with everything around its records: a banner, a comment, a trailer, padded names and values, null markers, notes. */
const EXPORT = lines(
  'Export of 2026-12-01',
  '# written by the ERP',
  ' Order No , Kunde,Datum,Betrag,Whg,Note,Comment,Spare',
  `A-1, 1001 ,2026-12-01,"1,234",EUR,NULL,${FORTY},`,
  `A-2,1002,2026-12-02,5-,,null,${FORTY}!,`,
  'A-3,1003,2026-12-03,7,EUR,n/a,short,',
  'A-4,1004,2026-12-04,8,CHF,N/A,,',
  'A-5,1005,2026-12-05,9,EUR,-,,',
  'A-6,1006,2026-12-06,10,EUR,#N/A,,',
  'TOTAL 6',
);

/** Fixed width: a record type in column 1 (digits: data "1", header "0", trailer "9"). */
const FIXED = lines(
  '0HEADER,20261201',
  '1KAAA 0007 20261201 0012.50 EUR',
  '1KAAB 0008 20261202 0003.00 EUR',
  '1KAAC 0007 20261203 0100.00 USD',
  '9TRAILER 0003',
);

describe('the draft of a CSV file, line by line', () => {
  it('says each decision with its evidence: banner, comments, header, trailer, null markers, an undecided amount, a currency with gaps, the columns left', () => {
    const g = draftOf('export.csv', EXPORT);
    expect(g.yaml).toBe(
      lines(
        '# Draft load profile written by `order-loader guess` from export.csv',
        '# (390 bytes read: the whole file). Check every line before using it;',
        '# what it could not decide is an open: line (load refuses the draft until each is decided).',
        'version: 1',
        'name: "export"',
        '# match: the files this profile takes in an inbox (--profiles): this name with its digits left open',
        'match: "export.csv"',
        'format: csv',
        '# encoding: every byte of the 390 read is ASCII',
        'encoding: "utf-8"',
        '# line endings: LF (10 lines) (every kind is read)',
        '# delimiter candidates: ",": 8 fields on 7 of 9 lines (78%)',
        '# delimiter: ",": 8 fields on 7 of 9 lines (78%)',
        'delimiter: ","',
        `# header: the first record holds names (5 like a field's: " Order No ", " Kunde", "Datum"), 3 of its columns hold numbers or dates below`,
        'header: true',
        '# 2 line(s) before the header (a banner): "Export of 2026-12-01", "# written by the ERP"',
        'skip_lines: 2',
        '# lines starting with "#" are there',
        'comment: "#"',
        '# 1 line(s) after the last record (a trailer: its field count differs): "TOTAL 6"',
        'when: { column: "Order No", not_in: ["TOTAL 6"] }   # leaves the trailer out (the key column)',
        'null_if: ["", "NULL", "null", "n/a", "N/A", "-", "#N/A"]   # seen in the sample',
        'columns:',
        '  source_key:',
        '    # name "Order No" is "order no"; samples: "A-1", "A-2", "A-3"',
        '    column: "Order No"',
        '    # prefix: "XX-"   # optional: put before every key, when keys of several systems share the table',
        '  customer_id:',
        '    # name "Kunde" is "kunde"; samples: "1001", "1002", "1003"',
        '    column: "Kunde"',
        '  order_date:',
        '    # name "Datum" is "datum"; 6 of 6 values read as dates; samples: "2026-12-01", "2026-12-02", "2026-12-03"',
        '    column: "Datum"',
        '    # date masks that fit: YYYY-MM-DD 6/6 (100%)',
        '    date: ["YYYY-MM-DD"]',
        '  amount:',
        '    open:',
        '      - "decimal: \\",\\" or \\".\\"? the sample does not tell (see the number style above)"',
        '      - "amount: a trailing minus (1234-) is in the sample: no profile form reads it"',
        '    # name "Betrag" is "betrag"; samples: "1,234", "5-", "7"',
        '    column: "Betrag"',
        '    # number style: "1,234" reads as a thousands separator or as a decimal with 3 digits',
        '    # decimal: ","',
        '    # decimal: "."',
        '    # negative: ["-", "▲", "△", "()"]   # no negative amount in the sample; "-" is read by default',
        '  currency:',
        '    # name "Whg" is "whg"; samples: "EUR", "CHF"',
        '    column: "Whg"',
        '    # 1 of 6 values are empty or not a code; when empty:',
        '    # default: "EUR"',
        '# columns not mapped (left out; extra: "ignore" says so, without a warning on every run):',
        '#   "Note": "NULL", "null", "n/a"',
        `#   "Comment": "${FORTY}", "${FORTY}…", "short"`,
        '#   "Spare": (all empty)',
        'extra: "ignore"',
      ),
    );
    expect(g).toMatchObject({
      file: 'export.csv',
      gzip: false,
      sampledBytes: 390,
      complete: true,
      encoding: 'utf-8',
      format: 'csv',
      delimiter: ',',
      header: true,
      skipLines: 2,
      normalize: false,
      units: null,
      when: null,
    });
    expect(g.columns).toEqual({
      source_key: { column: 'Order No', at: null, date: null, decimal: null, group: null, negative: [] },
      customer_id: { column: 'Kunde', at: null, date: null, decimal: null, group: null, negative: [] },
      order_date: { column: 'Datum', at: null, date: ['YYYY-MM-DD'], decimal: null, group: null, negative: [] },
      // the trailing minus is said in a comment, not proposed
      amount: { column: 'Betrag', at: null, date: null, decimal: null, group: null, negative: [] },
      currency: { column: 'Whg', at: null, date: null, decimal: null, group: null, negative: [] },
    });
  });

  it('is refused while a choice is open; decided, it loads the file: the banner and comment skipped, the trailer left out', async () => {
    const g = draftOf('export.csv', EXPORT);
    expect(parse(g.yaml)).toMatchObject({ skip_lines: 2, comment: '#', null_if: ['', 'NULL', 'null', 'n/a', 'N/A', '-', '#N/A'] });
    expect(() => parseProfileText(g.yaml, 'draft.yaml', 'draft')).toThrow(
      new UserError(
        'profile draft.yaml: columns.amount: an open choice guess left: decimal: "," or "."? the sample does not tell (see the number style above) (line 39); decide it and remove its open: line (and 1 more open choice(s))',
      ),
    );
    const decided = g.yaml.replace(/ {4}open:\n( {6}- .*\n)+/, '    decimal: "."\n');
    const records = await loadWith(decided, EXPORT);
    expect(records).toHaveLength(6);
    expect(records[0]).toEqual({
      line: 4,
      source_key: 'A-1',
      customer_id: '1001',
      order_date: '2026-12-01',
      amount: '1,234',
      currency: 'EUR',
    });
    expect(records[1]).toMatchObject({ line: 5, source_key: 'A-2', amount: '5-', currency: '' });
    expect(records.map((r) => (r as { line: number }).line)).toEqual([4, 5, 6, 7, 8, 9]);
  });

  it('a header-less file: a banner before the first record, at most 8 columns offered for a field not found, an incomplete sample', () => {
    const content = lines('Partner export', 'p1,q,r,s,t,u,v,w,y,z', 'p2,q,r,s,t,u,v,w,y,z', 'p3,q,r,s,t,u,v,w,y,z');
    const choose = (field: string) => {
      const out = [
        `    open: "${field}: no column was found for it: write column: (or at: for fixed width)"`,
        '    # column: 1   # "p1", "p2", "p3"',
      ];
      for (const [i, c] of ['q', 'r', 's', 't', 'u', 'v', 'w'].entries()) out.push(`    # column: ${i + 2}   # "${c}"`);
      return out;
    };
    // a line break in the file's name stays out of the comment's next line
    const g = draftOf('partner\r\nexport.csv', content, false);
    expect(g.yaml).toBe(
      lines(
        '# Draft load profile written by `order-loader guess` from partner export.csv',
        '# (78 bytes read). Check every line before using it;',
        '# what it could not decide is an open: line (load refuses the draft until each is decided).',
        'version: 1',
        'name: "partner-export"',
        '# match: the files this profile takes in an inbox (--profiles): this name with its digits left open',
        'match: "partner\\r\\nexport.csv"',
        'format: csv',
        '# encoding: every byte of the 78 read is ASCII',
        'encoding: "utf-8"',
        '# line endings: LF (4 lines) (every kind is read)',
        '# delimiter candidates: ",": 10 fields on 3 of 4 lines (75%)',
        '# delimiter: ",": 10 fields on 3 of 4 lines (75%)',
        'delimiter: ","',
        '# header: the first record looks like the others',
        'header: false',
        '# 1 line(s) before the first record (a banner): "Partner export"',
        'skip_lines: 1',
        '# null_if: ["", "NULL", "n/a"]   # values read as empty (default [""]); none other seen',
        'columns:',
        '  source_key:',
        '    # the first column whose values are all distinct; samples: "p1", "p2", "p3"',
        '    column: 1',
        '    # prefix: "XX-"   # optional: put before every key, when keys of several systems share the table',
        '  customer_id:',
        ...choose('customer_id'),
        '  order_date:',
        ...choose('order_date'),
        '  amount:',
        ...choose('amount'),
        '  currency:',
        `    open: "currency: no column holds currency codes, the amounts carry no currency sign and the file name holds no currency code: write const: with the file's currency code"`,
        '    # const: "<code>"   # the file\'s currency (ISO 4217, such as JPY or USD): the file does not say it',
        '# columns not mapped (left out; extra: "ignore" says so, without a warning on every run):',
        ...['q', 'r', 's', 't', 'u', 'v', 'w', 'y', 'z'].map((c, i) => `#   column ${i + 2}: "${c}"`),
        'extra: "ignore"',
      ),
    );
    expect(g).toMatchObject({ complete: false, header: false, skipLines: 1 });
    expect(g.columns.source_key.column).toBe(1);
    expect(g.columns.customer_id).toEqual({ column: null, at: null, date: null, decimal: null, group: null, negative: [] });
    // what it could not decide is left to the user, named: as written, the draft is no profile yet
    expect(g.open).toHaveLength(4);
    expect(() => parseProfileText(g.yaml, 'draft.yaml', 'draft')).toThrow(
      /^profile draft\.yaml: columns\.customer_id: an open choice guess left: customer_id: no column was found for it: .*\(line 26\); decide it and remove its open: line \(and 3 more open choice\(s\)\)$/,
    );
  });

  it('a named date no mask reads, a group separator and a negative form, every currency value a code', () => {
    const g = draftOf('t.csv', lines('Date,Total,Cur', 'soon,1.234.567,EUR', 'later,-3,USD'));
    expect(g.yaml.slice(g.yaml.indexOf('  order_date:'))).toBe(
      lines(
        '  order_date:',
        '    open: "date: 2 of 2 values read with no mask guess knows: write date: with the mask they are in"',
        '    # name "Date" is "date"; 0 of 2 values read as dates; samples: "soon", "later"',
        '    column: "Date"',
        '    # date masks that fit: none',
        '  amount:',
        '    # name "Total" is "total"; samples: "1.234.567", "-3"',
        '    column: "Total"',
        '    # number style: decimal comma: 1 value(s) such as "1.234.567"',
        '    decimal: ","',
        '    group: "."',
        '    negative: ["-"]',
        '  currency:',
        '    # name "Cur" is "cur"; samples: "EUR", "USD"',
        '    column: "Cur"',
      ),
    );
    expect(g.yaml).toContain(
      `\n# header: the first record holds names (3 like a field's: "Date", "Total", "Cur"), 1 of its columns hold numbers or dates below\nheader: true\n# null_if:`,
    );
    expect(g.columns.amount).toEqual({ column: 'Total', at: null, date: null, decimal: ',', group: '.', negative: ['-'] });
    expect(g.columns.order_date.date).toBeNull();
  });

  it('full-width characters: NFKC proposed, the values read after it; a trailing minus left out of the forms', async () => {
    const content = lines(
      'Ｎｏ,顧客,日付,金額,通貨',
      'Ａ１,１０,2026/12/01,１２,JPY',
      'Ａ２,１１,2026/12/02,▲３,JPY',
      'Ａ３,１２,2026/12/03,4-,JPY',
    );
    const g = draftOf('jp.csv', content);
    expect(g.yaml).toContain(
      '\nheader: true\n# full-width characters (digits, letters, signs) are in the file: NFKC makes them ASCII before values are read\nnormalize: nfkc\n',
    );
    expect(g.yaml).toContain('    # name "顧客" is "顧客"; samples: "10", "11", "12"\n');
    expect(g.yaml).toContain('  amount:\n    open: "amount: a trailing minus (1234-) is in the sample: no profile form reads it"\n');
    expect(g.yaml).toContain('    negative: ["▲"]\n');
    // every column mapped: no list of the others
    expect(g.yaml.endsWith('  currency:\n    # name "通貨" is "通貨"; samples: "JPY"\n    column: "通貨"\n')).toBe(true);
    expect(g).toMatchObject({ normalize: true, columns: { amount: { negative: ['▲'] } } });
    const records = await loadWith(g.yaml.replace(/ {4}open: .*\n/, ''), content);
    expect(records[0]).toEqual({ line: 2, source_key: 'Ａ１', customer_id: '10', order_date: '2026-12-01', amount: '12', currency: 'JPY' });
    expect(records[1]).toMatchObject({ amount: '-3' });
  });

  it('a file of one column: a CSV of one field, said to be checked', () => {
    const g = draftOf('one.txt', lines('one', 'two', 'three'));
    expect(g.yaml).toContain(
      lines(
        '# line endings: LF (3 lines) (every kind is read)',
        '# delimiter candidates: none',
        '# no delimiter splits the lines and no fixed-width boundary was seen: check the format',
        '# delimiter: ",": 1 fields on 3 of 3 lines (100%)',
        'delimiter: ","',
      ),
    );
    expect(g).toMatchObject({ format: 'csv', delimiter: ',', header: true });
  });

  it('says the other encoding that reads the sample, to choose', () => {
    const g = draftOf('w.csv', Buffer.from('Stra\xdfe;W\xe4hrung\n1;2\n', 'latin1'));
    expect(g.yaml).toContain(
      lines(
        '# encoding: windows-1252 reads it (ß ä)',
        'encoding: "windows-1252"',
        '# encoding: "shift_jis"   # Shift_JIS decodes the sample too: choose',
        '# line endings: LF (2 lines) (every kind is read)',
      ),
    );
  });
});

describe('the header: names or data', () => {
  const header = (content: string) =>
    draftOf('h.csv', content)
      .yaml.split('\n')
      .filter((l) => l.startsWith('# header: ') || l.startsWith('header: '));

  it('is data when the first record holds a value: a number, a date, a sign, full-width digits, a blank', () => {
    expect(header(lines('12,7', 'foo,bar', 'baz,qux'))).toEqual([
      '# header: the first record holds values, not names ("12", "7")',
      'header: false',
    ]);
    expect(header(lines(' 12,x', 'foo,bar', 'baz,qux'))).toEqual([
      '# header: the first record holds values, not names (" 12")',
      'header: false',
    ]);
    expect(header(lines('１２,x', 'foo,bar', 'baz,qux'))).toEqual([
      '# header: the first record holds values, not names ("１２")',
      'header: false',
    ]);
    expect(header(lines('-5,(3)', 'foo,bar', 'baz,qux'))).toEqual([
      '# header: the first record holds values, not names ("-5", "(3)")',
      'header: false',
    ]);
    expect(header(lines('▲5,3-', 'foo,bar', 'baz,qux'))).toEqual([
      '# header: the first record holds values, not names ("▲5", "3-")',
      'header: false',
    ]);
    // a blank name reads as a value (the rule as it is: a header with an unnamed column is not seen as one)
    expect(header(lines('Order No,,Datum', 'A1,,2026-12-01', 'A2,,2026-12-02'))).toEqual([
      '# header: the first record holds values, not names ((all empty))',
      'header: false',
    ]);
  });

  it('is names when some are like a field’s, or when a column holds numbers or dates below every name', () => {
    expect(header(lines('alpha,Total', 'x,y', 'z,w'))).toEqual([
      `# header: the first record holds names (1 like a field's: "Total")`,
      'header: true',
    ]);
    expect(header(lines('alpha,beta', 'x,1', 'y,2'))).toEqual([
      `# header: the first record holds names (0 like a field's: (all empty)), 1 of its columns hold numbers or dates below`,
      'header: true',
    ]);
  });

  it('is names when they are all different text that no record below repeats in its place, else data', () => {
    expect(header(lines('Q1,1st', 'foo,bar', 'baz,qux'))).toEqual([
      '# header: the first record holds only text, all different: read as names',
      'header: true',
    ]);
    // a column with a number on one line only holds no numbers "below"
    expect(header(lines('alpha,beta', 'x,1', 'y,z'))).toEqual([
      '# header: the first record holds only text, all different: read as names',
      'header: true',
    ]);
    expect(header(lines('alpha,beta', 'alpha,x', 'gamma,y'))).toEqual([
      '# header: the first record holds only text, all different: read as names',
      'header: true',
    ]);
    expect(header(lines('alpha,beta', 'alpha,x', 'alpha,y'))).toEqual([
      '# header: the first record looks like the others',
      'header: false',
    ]);
    expect(header(lines('a,a', 'b,c', 'd,e'))).toEqual(['# header: the first record looks like the others', 'header: false']);
    // one line: nothing below to compare with
    expect(header(lines('alpha,beta'))).toEqual(['# header: the first record looks like the others', 'header: false']);
  });
});

describe('the draft of a fixed-width file', () => {
  it('says the record lengths, the boundaries, the record type column left out of the fields, and loads the file', async () => {
    const g = draftOf('fixed.dat', FIXED);
    expect(g.yaml).toBe(
      lines(
        '# Draft load profile written by `order-loader guess` from fixed.dat',
        '# (127 bytes read: the whole file). Check every line before using it;',
        '# what it could not decide is an open: line (load refuses the draft until each is decided).',
        'version: 1',
        'name: "fixed"',
        '# match: the files this profile takes in an inbox (--profiles): this name with its digits left open',
        'match: "fixed.dat"',
        'format: fixed',
        '# encoding: every byte of the 127 read is ASCII',
        'encoding: "utf-8"',
        '# line endings: LF (5 lines) (every kind is read)',
        '# delimiter candidates: ",": 2 fields on 1 of 5 lines (20%)',
        '# fixed width: no delimiter splits the lines; the data records are 31 chars long; field boundaries seen: 1–1, 2–6, 7–11, 12–20, 21–28, 29–31',
        '#   (where the kind of character — digit, letter, space, double-byte — changes alike on every record: check them against the record layout)',
        'units: chars',
        '# record type in column 1: data records "1"; other records (header, trailer) "0", "9" are left out',
        'when: { at: [1, 1], equals: "1" }',
        '# null_if: ["", "NULL", "n/a"]   # values read as empty (default [""]); none other seen',
        'columns:',
        '  source_key:',
        '    # the first column whose values are all distinct; samples: "KAAA", "KAAB", "KAAC"',
        '    at: [2, 5]',
        '    # prefix: "XX-"   # optional: put before every key, when keys of several systems share the table',
        '  customer_id:',
        // the record type column (digits too) is not the customer
        '    # the first column left whose values are digits; samples: "0007", "0008"',
        '    at: [7, 5]',
        '  order_date:',
        '    # 3 of 3 values read as dates; samples: "20261201", "20261202", "20261203"',
        '    at: [12, 9]',
        '    # date masks that fit: YYYYMMDD 3/3 (100%)',
        '    date: ["YYYYMMDD"]',
        '  amount:',
        '    # 3 of 3 values read as amounts (fractions, signs or separators); samples: "0012.50", "0003.00", "0100.00"',
        '    at: [21, 8]',
        '    # number style: decimal point: 3 value(s) such as "0012.50"',
        '    decimal: "."',
        '    # negative: ["-", "▲", "△", "()"]   # no negative amount in the sample; "-" is read by default',
        '  currency:',
        '    # 3 of 3 values are currency codes (EUR); samples: "EUR", "USD"',
        '    at: [29, 3]',
      ),
    );
    expect(g).toMatchObject({
      format: 'fixed',
      delimiter: null,
      header: null,
      skipLines: 0,
      units: 'chars',
      when: { at: [1, 1], equals: '1' },
    });
    expect(g.columns.customer_id).toEqual({ column: null, at: [7, 5], date: null, decimal: null, group: null, negative: [] });
    expect(await loadWith(g.yaml, FIXED)).toEqual([
      { line: 2, source_key: 'KAAA', customer_id: '0007', order_date: '2026-12-01', amount: '12.5', currency: 'EUR' },
      { line: 3, source_key: 'KAAB', customer_id: '0008', order_date: '2026-12-02', amount: '3', currency: 'EUR' },
      { line: 4, source_key: 'KAAC', customer_id: '0007', order_date: '2026-12-03', amount: '100', currency: 'USD' },
    ]);
  });

  it('Shift_JIS: the units are bytes, a double-byte character counting 2', async () => {
    const g = await guessProfile(fileURLToPath(new URL('../../examples/profiles/mainframe-sjis.dat', import.meta.url)));
    expect(g.yaml).toContain(
      lines(
        'units: bytes',
        '# units: bytes: a double-byte character counts 2, as a record layout for shift_jis counts it',
        '# record type in column 1: data records "D"; other records (header, trailer) "H", "T" are left out',
        'when: { at: [1, 1], equals: "D" }',
      ),
    );
    // records of different lengths: the shortest and the longest
    expect(g.yaml).toContain('the data records are 48–50 bytes long');
  });
});

describe('the sample’s bounds', () => {
  it('reads 520 lines and 500 records at most; the header is judged on the first 50 records below it', () => {
    // the amount column holds "n/a" on record 60 only: past the 50 the header is judged on
    const rows = Array.from({ length: 599 }, (_, i) => `K${i + 1},2026-12-01,${i === 59 ? 'n/a' : i + 1}`);
    const g = draftOf('big.csv', lines('Order No,Datum,Menge', ...rows));
    expect(g.yaml).toContain(
      lines(
        '# line endings: LF (600 lines) (every kind is read)',
        '# delimiter candidates: ",": 3 fields on 520 of 520 lines (100%)',
        '# delimiter: ",": 3 fields on 520 of 520 lines (100%)',
        'delimiter: ","',
        `# header: the first record holds names (2 like a field's: "Order No", "Datum"), 2 of its columns hold numbers or dates below`,
      ),
    );
    expect(g.yaml).toContain('    # name "Datum" is "datum"; 500 of 500 values read as dates; samples: "2026-12-01"\n');
    expect(g.yaml).toContain('    # 499 of 499 values read as numbers (the only column of numbers); samples: "1", "2", "3"\n');
    expect(g.yaml).toContain('null_if: ["", "n/a"]   # seen in the sample\n');
  });

  it('takes 500 records of a fixed-width file', () => {
    const rows = Array.from({ length: 600 }, (_, i) => `X${String(i + 1).padStart(4, '0')} 20261201 ${String(i + 1).padStart(4, '0')}.00`);
    const g = draftOf('big.dat', rows.join('\n'));
    expect(g.yaml).toContain(
      '# fixed width: no delimiter splits the lines; the data records are 22 chars long; field boundaries seen: 1–1, 2–6, 7–15, 16–22\n',
    );
    expect(g.yaml).toContain('    # 500 of 500 values read as dates; samples: "20261201"\n    at: [7, 9]\n');
    expect(g.yaml).toContain('# delimiter candidates: none split a line\n');
  });

  it('reads the first 64 KiB of a larger file, and says it did not read the whole file', async () => {
    const rows = Array.from({ length: 4000 }, (_, i) => `K${i + 1},${1000 + (i % 7)},2026-12-01,${i + 1}.50,EUR`);
    const path = writeTestFile(lines('source_key,customer_id,order_date,amount,currency', ...rows), 'large.csv');
    const g = await guessProfile(path);
    expect(GUESS_SAMPLE_BYTES).toBe(65_536);
    expect(g).toMatchObject({ sampledBytes: 65_536, complete: false, gzip: false });
    expect(g.yaml).toContain(`\n# (65536 bytes read). Check every line before using it;\n`);
  });

  it('refuses a sample of blank lines only', () => {
    expect(() => draftOf('blank.csv', '\n  \n\t\n')).toThrow(new UserError('blank.csv: no line of text in the first 6 bytes'));
  });
});

describe('guessProfile: files it cannot read', () => {
  const refusal = async (path: string): Promise<UserError> => {
    const error: unknown = await guessProfile(path).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UserError);
    return error as UserError;
  };

  it('says why in one line, the system error kept as its cause', async () => {
    const missing = join(tempDir(), 'nope.csv');
    const a = await refusal(missing);
    expect(a.message).toBe(`${missing}: no such file`);
    expect((a.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
    const folder = tempDir();
    const b = await refusal(folder);
    expect(b.message).toBe(`${folder}: a directory, not a file`);
    expect((b.cause as NodeJS.ErrnoException).code).toBe('EISDIR');
    // any other system error: its code
    const under = join(writeTestFile('a,b\n'), 'x.csv');
    const c = await refusal(under);
    expect(c.message).toBe(`${under}: cannot be read (ENOTDIR)`);
    expect((c.cause as NodeJS.ErrnoException).code).toBe('ENOTDIR');
    const loop = join(tempDir(), 'loop');
    mkdirSync(join(loop, '..'), { recursive: true });
    symlinkSync(loop, loop);
    const d = await refusal(loop);
    expect(d.message).toBe(`${loop}: cannot be read (ELOOP)`);
  });
});
