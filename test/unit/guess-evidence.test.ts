/**
 * guess's draft (src/input/guess/index.ts) on the evidence the reader group's other tests did not
 * assert: a currency without minor units told by a sign, a code column or the file's name; the
 * trailer a `when:` leaves out (or cannot); dates with offsets; a workbook's head.
 */
import { describe, expect, it } from 'vitest';
import { guessFromSample, guessProfile } from '../../src/input/guess/index.js';
import { writeTestFile } from '../support/files.js';
import { workbookBytes } from '../support/xlsx.js';

const guess = (name: string, lines: string[], complete = true) => guessFromSample(name, Buffer.from(`${lines.join('\n')}\n`), complete);
const withAmounts = (amounts: string[], currencies?: string[]) =>
  guess('orders.csv', [
    `order_id,customer,date,amount${currencies === undefined ? '' : ',cur'}`,
    ...amounts.map((a, i) => `A-${i},50${i},2026-12-01,"${a}"${currencies === undefined ? '' : `,${currencies[i] ?? ''}`}`),
  ]);
const linesOf = (yaml: string, re: RegExp) => yaml.split('\n').filter((l) => re.test(l));

describe('guess: a currency without minor units makes "1,200" a group separator', () => {
  it('told by the amounts’ sign: each yen and won sign, not a dollar', () => {
    for (const sign of ['¥', '￥', '円', '\\', '₩', '원']) {
      const g = withAmounts([`${sign}1,200`, `${sign}980`, `${sign}3,400`]);
      expect(g.columns.amount, sign).toMatchObject({ decimal: '.', group: ',' });
      expect(g.open, sign).toEqual([]);
    }
    const dollar = withAmounts(['$1,200', '$980', '$3,400']);
    expect(dollar.columns.amount).toMatchObject({ decimal: null, group: null });
    expect(dollar.open[0]).toBe('columns.amount: decimal: "," or "."? the sample does not tell (see the number style above)');
  });

  it('told by a column of codes when every filled value is such a currency; one other code leaves it open', () => {
    expect(withAmounts(['1,200', '980', '3,400'], ['JPY', 'JPY', 'JPY']).columns.amount).toMatchObject({ decimal: '.', group: ',' });
    expect(withAmounts(['1,200', '980', '3,400'], ['KRW', '', 'KRW']).columns.amount).toMatchObject({ decimal: '.', group: ',' });
    expect(withAmounts(['1,200', '980', '3,400'], ['JPY', 'USD', 'JPY']).columns.amount).toMatchObject({ decimal: null, group: null });
  });

  it('told by the file’s name, which the match and file_pattern then leave open', () => {
    const lines = ['order_id,customer,date,amount', 'A-1,501,2026-12-01,"1,200"', 'A-2,502,2026-12-01,980', 'A-3,503,2026-12-02,"3,400"'];
    const named = guess('orders_JPY_20261201.csv', lines);
    expect(named.columns.amount).toMatchObject({ decimal: '.', group: ',' });
    expect(named.yaml).toContain(
      '# match: the files this profile takes in an inbox (--profiles): this name with its digits and currency code left open\nmatch: "orders_???_*.csv"\nfile_pattern: ',
    );
    const plain = guess('orders.csv', lines);
    expect(plain.columns.amount).toMatchObject({ decimal: null, group: null });
    expect(plain.yaml).toContain('# match: the files this profile takes in an inbox (--profiles): this name with its digits left open\n');
  });
});

describe('guess: a trailer after the records', () => {
  const records = ['A-1|501|2026-12-01|1200', 'A-2|502|2026-12-01|980'];

  it('left out by when: on its first field, a word no record has there; the key column said so', () => {
    const g = guess('orders.csv', [...records, 'TOTAL|2']);
    expect(g.yaml).toContain(
      '# 1 line(s) after the last record (a trailer: its field count differs): "TOTAL|2"\nwhen: { column: 1, not_in: ["TOTAL"] }   # leaves the trailer out (the key column)\n',
    );
  });

  it('by the header’s name of that column, each trailer word listed; no key-column note on another column', () => {
    const g = guess('orders.csv', ['date|customer|id|amount', '2026-12-01|501|A-1|1200', '2026-12-01|502|A-2|980', 'END|2', 'EOF']);
    expect(g.yaml).toContain(
      '# 2 line(s) after the last record (a trailer: its field count differs): "END|2", "EOF"\nwhen: { column: "date", not_in: ["END", "EOF"] }   # leaves the trailer out\n',
    );
  });

  it('not left out when its first field is one a record has there, or empty: said, rejected on load', () => {
    for (const trailer of ['A-1|2', '|2']) {
      const g = guess('orders.csv', [...records, trailer]);
      expect(linesOf(g.yaml, /trailer|not left out|^when:/).slice(0, 2), trailer).toEqual([
        `# 1 line(s) after the last record (a trailer: its field count differs): "${trailer}"`,
        '#   not left out: its first field is no word the records never have there (it will be rejected)',
      ]);
      expect(g.yaml).not.toMatch(/^when:/m);
    }
  });
});

describe('guess: dates written with an offset', () => {
  const orders = (a: string, b: string) =>
    guess('orders.csv', [
      'id,customer,ordered_at,amount,currency',
      `A-1,501,2026-12-01T10:00:00${a},1200,JPY`,
      `A-2,502,2026-12-01T11:00:00${b},980,JPY`,
    ]);

  it('one offset on every value: the zone of that offset, with its evidence', () => {
    const g = orders('+09:00', '+09:00');
    expect(g.timezone).toBe('Etc/GMT-9');
    expect(g.open).toEqual([]);
    expect(linesOf(g.yaml, /timezone|offset/)).toEqual([
      '# the dates carry the offset "+09:00" on every value: an order\'s date is the date written, in that zone',
      '#   (Etc/GMT-9; a named zone such as Asia/Tokyo reads the same dates where it has this offset all year)',
      'timezone: "Etc/GMT-9"',
    ]);
  });

  it('two offsets: an open choice, no zone', () => {
    const g = orders('+09:00', '+01:00');
    expect(g.timezone).toBeNull();
    expect(g.open).toEqual([
      'timezone: the dates carry the offsets "+09:00", "+01:00": in which zone is an order\'s date counted? write timezone: with its IANA name',
    ]);
    expect(g.yaml).toContain('# timezone: "Asia/Tokyo"   # an open choice (see open: below)\n');
  });

  it('the open choice of the zone is the draft’s own, after the columns; a column’s open choice stays in its column', () => {
    const g = guess('orders.csv', [
      'id,customer,ordered_at,amount,currency',
      'A-1,501,2026-12-01T10:00:00+09:00,"1,200",EUR',
      'A-2,502,2026-12-01T11:00:00+01:00,"3,400",EUR',
    ]);
    expect(g.open).toEqual([
      'timezone: the dates carry the offsets "+09:00", "+01:00": in which zone is an order\'s date counted? write timezone: with its IANA name',
      'columns.amount: decimal: "," or "."? the sample does not tell (see the number style above)',
    ]);
    expect(
      g.yaml.endsWith(
        '    column: "currency"\nopen: "timezone: the dates carry the offsets \\"+09:00\\", \\"+01:00\\": in which zone is an order\'s date counted? write timezone: with its IANA name"\n',
      ),
    ).toBe(true);
    expect(g.yaml).toContain('  amount:\n    open: "decimal: ');
  });

  it('no offset: no timezone line', () => {
    const g = guess('orders.csv', ['id,customer,date,amount,currency', 'A-1,501,2026-12-01,1200,JPY']);
    expect(g.timezone).toBeNull();
    expect(g.yaml).not.toContain('timezone');
  });
});

describe('guess: a totals row as wide as the records', () => {
  const header = ['Order No', 'Customer', 'Order Date', 'Amount', 'Currency'];

  it('in a workbook read to its end: set apart and proposed as the control trailer', async () => {
    const rows = [
      header,
      ['A-1', '501', '2026-12-01', 12.5, 'EUR'],
      ['A-2', '502', '2026-12-02', 3, 'EUR'],
      ['Total', null, null, 15.5, null],
    ];
    const g = await guessProfile(writeTestFile(await workbookBytes([{ name: 'Orders', rows }]), 'totals.xlsx'));
    expect(g.yaml).toContain('when: { column: "Order No", not_in: ["Total"] }   # leaves the trailer out (the key column)\n');
    expect(g.yaml).toContain('control:\n  trailer: { column: "A", equals: "Total" }\n  sum: { column: "D" }\n');
  });

  it('in a CSV file: a record (a CSV trailer is told by its field count)', () => {
    const csv = [header.join(','), 'A-1,501,2026-12-01,12.5,EUR', 'A-2,502,2026-12-02,3,EUR', 'Total,,,15.5,'];
    const g = guess('orders.csv', csv);
    expect(g.yaml).toContain('    # name "Order No" is "order no"; samples: "A-1", "A-2", "Total"\n');
    expect(g.yaml).not.toMatch(/^(when|control):/m);
  });
});

describe('guess: a date column read two ways', () => {
  it('day or month first: an open choice of the column, no mask in the summary', () => {
    const g = guess('orders.csv', ['id,customer,date,amount,currency', 'A-1,501,01/02/2026,12.00,EUR', 'A-2,502,03/04/2026,13.50,EUR']);
    expect(g.columns.order_date).toEqual({ column: 'date', at: null, date: null, decimal: null, group: null, negative: [] });
    expect(g.open).toEqual([
      'columns.order_date: date: day first or month first? every value reads as DD/MM/YYYY and as MM/DD/YYYY: write date: with the one the file is in',
    ]);
  });
});

describe('guess: the head of a draft', () => {
  it('a workbook: the rows and sheet read, the sheets passed over, no encoding or delimiter', async () => {
    const g = await guessProfile('examples/profiles/partner-workbook.xlsx');
    expect(g.yaml.split('\n').slice(0, 11)).toEqual([
      '# Draft load profile written by `order-loader guess` from examples/profiles/partner-workbook.xlsx',
      '# (rows 1–8 of its sheet "Orders" read). Check every line before using it;',
      '# what it could not decide is an open: line (load refuses the draft until each is decided).',
      'version: 1',
      'name: "partner-workbook"',
      'match: "partner-workbook.xlsx"',
      '# an Excel workbook: its cells are read (dates as calendar dates, numbers as Excel shows them)',
      'format: xlsx',
      '# passed over: sheet 1 "Summary": 1 row(s) with a cell, no table',
      '# sheet: the first with a table (sheet 2; a name or a 1-based position)',
      'sheet: "Orders"',
    ]);
    expect(g.yaml).not.toMatch(/delimiter|encoding|normalize/);
    expect(g).toMatchObject({ format: 'xlsx', gzip: false, complete: true });
  });

  it('a workbook with full-width characters: NFKC proposed for the sheet, its values read after it', async () => {
    const rows = [
      ['No', '顧客', '日付', '金額', '通貨'],
      ['Ａ１', '１０', '2026-12-01', '１２', 'JPY'],
      ['Ａ２', '１１', '2026-12-02', '３４', 'JPY'],
    ];
    const g = await guessProfile(writeTestFile(await workbookBytes([{ name: 'Orders', rows }]), 'wide.xlsx'));
    expect(g.normalize).toBe(true);
    expect(g.yaml).toContain(
      '\n# full-width characters (digits, letters, signs) are in the sheet: NFKC makes them ASCII before values are read\nnormalize: nfkc\n',
    );
    expect(g.yaml).toContain('    # name "顧客" is "顧客"; samples: "10", "11"\n');
  });

  it('JSON Lines: its objects counted and a trailer object shown, nothing of a delimiter', () => {
    const order = (i: number) => `{"id":"J-${i}","customer":"50${i}","date":"2026-12-01","total":${i}.5,"currency":"EUR"}`;
    const g = guess('SHOP.jsonl', [order(1), order(2), '{"n":2}']);
    expect(g.yaml).toContain(
      '# line endings: LF (3 lines) (every kind is read)\n# 2 JSON object(s), one per line; each field below is a path into the object (docs/files.md)\n# and a last object unlike them (a trailer: it lacks most of their paths): {"n":2}\n# null_if:',
    );
  });
});
