/**
 * `bench --profile` writes the synthetic orders in a profile's shape (src/bench/profile-shape.ts):
 * the examples' shapes line by line, the built-in generator's file unchanged, and the profiles it
 * cannot write refused naming the key.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { profileShape, shapedLines } from '../../src/bench/profile-shape.js';
import { orderLines, syntheticOrders, writeLines, type SyntheticOrder } from '../../src/bench/synthetic-orders.js';
import { openOrderFile } from '../../src/input/order-file.js';
import { loadProfileFile, parseProfileText } from '../../src/input/profile/load-profile.js';
import { dryRunFile } from '../../src/pipeline/dry-run-file.js';
import { tempDir, writeTestFile } from '../support/files.js';

const order: SyntheticOrder = { n: 42, customerId: '1234', orderDate: '2021-03-07', amount: '123456.70', currency: 'EUR' };
const profile = (yaml: string) => parseProfileText(yaml, 'p.yaml', 'p');

describe('the synthetic file in a profile shape', () => {
  it('eu-erp: a banner, the header names, ";", DD.MM.YYYY, a decimal comma with "." for thousands, windows-1252, the value when keeps', () => {
    const shape = profileShape(loadProfileFile('examples/profiles/eu-erp.yaml'), 100);
    expect(shape.head).toEqual(['order-loader bench: synthetic orders', 'Auftragsnr;Kunde;Datum;Betrag;Währung;Status']);
    expect(shape.line(order)).toBe('SRC-000000042;1234;07.03.2021;123.456,70;EUR;D');
    expect([...shape.encode('Währung')]).toEqual([0x57, 0xe4, 0x68, 0x72, 0x75, 0x6e, 0x67]);
    expect(shape.line({ ...order, amount: '' })).toBe('SRC-000000042;1234;07.03.2021;;EUR;D');
  });

  it('headerless: columns by number, YYYYMMDD, the const currency not written', () => {
    const shape = profileShape(loadProfileFile('examples/profiles/headerless.yaml'), 100);
    expect(shape.head).toEqual([]);
    expect(shape.line(order)).toBe('SRC-000000042;20210307;1234;123456.70'.replaceAll(';', ','));
    expect(shape.notes).toEqual(['currency: not written (const "JPY")']);
  });

  it('mainframe-sjis: the fields at their byte positions, the key in the digits the field holds, no overflows in 12 positions', () => {
    const shape = profileShape(loadProfileFile('examples/profiles/mainframe-sjis.yaml'), 100);
    expect(shape.line(order)).toBe('D00000000421234    20210307   123456.70EUR');
    expect(shape.overflow).toBe(false);
    expect(shape.notes).toEqual([
      'source_key: the order number in 10 digits',
      'amount: 12 positions cannot hold an amount too large for orders.amount',
    ]);
  });

  it('a field holding the delimiter is quoted; a header name another encoding cannot hold, a field too narrow, two fields in one column: refused naming the key', () => {
    const dashed = profileShape(
      profile(
        'version: 1\ndelimiter: "-"\ncolumns:\n  source_key: { column: k }\n  customer_id: { column: c }\n  order_date: { column: d }\n  amount: { column: a }\n  currency: { column: x }\n',
      ),
      10,
    );
    expect(dashed.line(order)).toBe('"SRC-000000042"-1234-"2021-03-07"-123456.70-EUR');
    expect(() =>
      profileShape(
        profile(
          'version: 1\nencoding: windows-1252\ncolumns:\n  source_key: { column: 注文 }\n  customer_id: { column: c }\n  order_date: { column: d }\n  amount: { column: a }\n  currency: { column: x }\n',
        ),
        10,
      ),
    ).toThrow('bench --profile p: columns.source_key: "注文" cannot be written in windows-1252');
    expect(() =>
      profileShape(
        profile(
          'version: 1\nformat: fixed\ncolumns:\n  source_key: { at: [1, 2] }\n  customer_id: { at: [3, 8] }\n  order_date: { at: [11, 10] }\n  amount: { at: [21, 12] }\n  currency: { at: [33, 3] }\n',
        ),
        1000,
      ),
    ).toThrow('bench --profile p: columns.source_key.at: 2 positions cannot hold 1000 distinct keys');
    // nor a workbook's profile as CSV lines it would then read as a zip
    expect(() => profileShape(loadProfileFile('examples/profiles/partner-workbook.yaml'), 10)).toThrow(
      /^bench --profile partner-workbook: format: bench writes its file as lines of text \(CSV, fixed width, JSON Lines\) and an xlsx workbook is a zip archive of XML parts, which it has no writer for: measure a workbook with load --dry-run/,
    );
    expect(() =>
      profileShape(
        profile(
          'version: 1\nheader: false\ncolumns:\n  source_key: { column: 1 }\n  customer_id: { column: 1 }\n  order_date: { column: 2 }\n  amount: { column: 3 }\n  currency: { column: 4 }\n',
        ),
        10,
      ),
    ).toThrow("bench --profile p: columns.customer_id.column: column 1 is columns.source_key's too: bench writes one value per column");
  });

  it.each([
    [
      'UTF-16 with Japanese header names',
      'encoding: utf-16\ncolumns:\n  source_key: { column: 注文番号 }\n  customer_id: { column: 顧客 }\n  order_date: { column: 日付, date: "YYYY年M月D日" }\n  amount: { column: 金額 }\n  currency: { column: 通貨 }\n',
    ],
    [
      'Shift_JIS, numbered and named columns mixed, a when column',
      'encoding: shift_jis\ndelimiter: "\\t"\nwhen: { column: 区分, in: ["受注"] }\ncolumns:\n  source_key: { column: 3 }\n  customer_id: { column: 顧客 }\n  order_date: { column: 1, date: "D/M/YYYY" }\n  amount: { column: 金額, decimal: ",", group: " " }\n  currency: { column: 通貨 }\n',
    ],
    [
      'EUC-JP fixed width in bytes with a banner',
      'format: fixed\nencoding: euc-jp\nskip_lines: 2\nwhen: { at: [1, 2], not_in: ["D", "K"] }\ncolumns:\n  source_key: { at: [3, 13] }\n  customer_id: { at: [16, 6] }\n  order_date: { at: [30, 10], date: "YYYY.MM.DD" }\n  amount: { at: [40, 14], decimal: "," }\n  currency: { const: "EUR" }\n',
    ],
    [
      'a quote and a delimiter in header names, an escape',
      'delimiter: ";"\nescape: "\\\\"\ncolumns:\n  source_key: { column: "Order; No" }\n  customer_id: { column: \'Customer "id"\' }\n  order_date: { column: Date, date: "MM/DD/YYYY" }\n  amount: { column: Total, group: "," }\n  currency: { column: Cur }\n',
    ],
  ])('%s: the file reads back through the profile, every line a data line, none rejected', async (_what, yaml) => {
    const p = profile(`version: 1\n${yaml}`);
    const path = writeTestFile('', 'shaped.txt');
    await writeLines(path, shapedLines(profileShape(p, 500), { rows: 500, seed: 7 }), profileShape(p, 500).encode);
    const dry = await dryRunFile(await openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile: p }));
    expect(dry.counts).toMatchObject({ read: 500, rejected: 0, inserted: 500 });
    expect(dry.stoppedAt).toBeNull();
    // the missing amounts only
    expect(dry.counts.invalid).toBe([...syntheticOrders({ rows: 500, seed: 7 })].filter((o) => o.amount === '').length);
  });

  it('the built-in generator writes the same file as before the orders were split from their lines', () => {
    const text = [...orderLines({ rows: 2000, seed: 7 })].join('');
    // the sha256 of this file as generated before syntheticOrders existed
    expect(createHash('sha256').update(text).digest('hex')).toBe('b2e0302d0b3e561315778f07b996c9cb5d16502ea8202c4cc10644d01a05d8dc');
    expect([...syntheticOrders({ rows: 2000, seed: 7 })]).toHaveLength(2000);
  });
});

describe('the shapes of the profile vocabulary: the file reads back as the orders it was written from', () => {
  const orders = [...syntheticOrders({ rows: 300, seed: 7 })];
  /** Each line's fields as the profile reads them, beside the order it was written from. */
  async function readBack(p: ReturnType<typeof profile>) {
    const shape = profileShape(p, orders.length);
    const path = shape.fileName === null ? writeTestFile('', 'shaped.txt') : join(tempDir(), shape.fileName);
    await writeLines(path, shapedLines(shape, { rows: orders.length, seed: 7 }), shape.encode);
    const file = await openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile: p });
    const read: Array<{ problem: string | null; date: string; amount: string; currency: string }> = [];
    for await (const item of file.items)
      read.push(
        item.kind === 'record'
          ? {
              problem: item.problem?.message ?? null,
              date: item.fields.order_date,
              amount: item.fields.amount,
              currency: item.fields.currency,
            }
          : { problem: item.message, date: '', amount: '', currency: '' },
      );
    return { shape, read };
  }
  // 12.50 → 12.5, 12.00 → 12 (a profile without a number form leaves the canonical form to the parse)
  const plain = (amount: string) => (amount.includes('.') ? amount.replace(/\.?0+$/, '') : amount);
  /** Every line read without a problem, as the date and amount (and the currency, `currency`) of the order written on it. */
  const expectOrders = (read: Awaited<ReturnType<typeof readBack>>['read'], currency: boolean) => {
    expect(read).toHaveLength(orders.length);
    read.forEach((r, i) => {
      const o = orders[i] as SyntheticOrder;
      expect(r.problem, `line of order ${o.n}`).toBeNull();
      expect(r.date).toBe(o.orderDate);
      expect(plain(r.amount)).toBe(plain(o.amount));
      if (currency) expect(r.currency).toBe(o.currency);
    });
  };

  it('JSON Lines: each field at its path (nested, an array index, `when`), read back as the orders written; a clash of paths refused', async () => {
    const web = await readBack(loadProfileFile('examples/profiles/web-orders.yaml'));
    expectOrders(web.read, true);
    const first = orders[0] as SyntheticOrder;
    expect(JSON.parse(web.shape.line(first))).toMatchObject({
      id: 'SRC-000000001',
      customer: { id: first.customerId },
      total: { currency: first.currency },
    });
    const nested = profile(
      "version: 1\nformat: jsonl\nwhen: { column: 'kind', equals: 'O' }\ncolumns:\n  source_key: { column: 'lines[1].key' }\n  customer_id: { column: 'c' }\n  order_date: { column: 'd' }\n  amount: { column: 'a' }\n  currency: { column: 'x.cur' }\n",
    );
    expectOrders((await readBack(nested)).read, true);
    expect(JSON.parse(profileShape(nested, 10).line(orders[0] as SyntheticOrder))).toMatchObject({
      kind: 'O',
      lines: [null, { key: 'SRC-000000001' }],
    });
    const clash = profile(
      "version: 1\nformat: jsonl\ncolumns:\n  source_key: { column: 'a' }\n  customer_id: { column: 'a.b' }\n  order_date: { column: 'd' }\n  amount: { column: 'x' }\n  currency: { column: 'c' }\n",
    );
    expect(() => profileShape(clash, 10)).toThrow(
      /^bench --profile p: columns\.customer_id\.column: its path goes through another field's value/,
    );
  });

  it.each([
    ['us-erp: MM/DD/YYYY h:mm A, "$" and "C$" before the amounts, the currency given by the sign', 'examples/profiles/us-erp.yaml'],
    [
      'web-shop: ISO timestamps with the offset of Asia/Tokyo, ¥ signs, the currency from the file name, `when` on the key column',
      'examples/profiles/web-shop.yaml',
    ],
  ])('%s', async (_what, file) => {
    const p = loadProfileFile(file);
    const { shape, read } = await readBack(p);
    expectOrders(read, false);
    if (file.includes('web-shop')) {
      expect(shape.fileName).toMatch(/^shop_JPY_\d{8}\.tsv$/);
      expect(new Set(read.map((r) => r.currency))).toEqual(new Set(['JPY']));
      expect(shape.line(orders[0] as SyntheticOrder)).toMatch(
        /^SRC-000000001\t\d+\t\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+09:00\t¥[\d,]+\.\d{2}$/,
      );
    } else {
      const signed = read.filter((r) => r.amount !== '').map((r) => r.currency);
      expect(new Set(signed)).toEqual(new Set(['USD', 'CAD']));
      expect(shape.line({ ...(orders[0] as SyntheticOrder), currency: 'CAD' })).toMatch(
        /^SRC-000000001,\d+,\d{2}\/\d{2}\/\d{4} \d{1,2}:\d{2} [AP]M,"C\$[\d,]+\.\d{2}"$/,
      );
    }
  });

  it.each([
    ['era dates with their kanji name, 円 after the amount', 'GE年M月D日', "group: ',', currency_signs: { '円': JPY }", 'const: "JPY"', ''],
    ['era letters, two-digit era years', 'GEE/MM/DD', '', 'column: cur', ''],
    ['a timestamp with milliseconds', 'YYYY-MM-DD HH:mm:ss.SSS', '', 'column: cur', ''],
    ['a compact timestamp', 'YYYYMMDDHHmmss', '', 'column: cur', ''],
    [
      '12-hour times with an offset in New York',
      'MM/DD/YYYY hh:mm:ss A Z',
      "currency_signs: { 'USD': USD, '€': EUR }",
      'column: cur',
      'timezone: America/New_York\n',
    ],
    [
      'codes after the amount, a decimal comma and no-break spaces',
      'DD.MM.YYYY',
      "decimal: ',', group: '\u00a0', currency_signs: { 'EUR': EUR, 'CHF': CHF }",
      'column: cur',
      '',
    ],
  ])('%s (%s)', async (_what, mask, amount, currency, top) => {
    const p = profile(
      `version: 1\n${top}columns:\n  source_key: { column: k }\n  customer_id: { column: c }\n  order_date: { column: d, date: "${mask}" }\n` +
        `  amount: { column: a${amount === '' ? '' : `, ${amount}`} }\n  currency: { ${currency} }\n`,
    );
    const { read } = await readBack(p);
    expectOrders(read, currency === 'column: cur');
  });
});
