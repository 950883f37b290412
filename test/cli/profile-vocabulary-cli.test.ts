/**
 * The profile vocabulary of real exports, end to end through the CLI on PGlite and on server
 * PostgreSQL (when ORDER_LOADER_TEST_PG is set): amounts with currency signs and the currency
 * from the sign, timestamps with offsets taken to the profile's timezone, Japanese era dates in a
 * fixed-width file, Excel's ="…" guard in the built-in format and through a profile, the currency
 * from the file name (and a name that does not match refused before staging, also under
 * `--profiles`), a `when:` that drops a short trailer, header names with blanks folded. Each
 * asserted against `orders` and the error log as stored.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-run.js';
import { tempDir } from '../support/files.js';

const targets = cliTargets('vocab');
import { NEEDS, unavailable } from '../support/requirements.js';
import { cliTargets, type CliDb } from '../support/cli-targets.js';

const ORDERS =
  "SELECT source_key, customer_id::text AS customer_id, to_char(order_date, 'YYYY-MM-DD') AS order_date, amount::text AS amount, currency FROM orders ORDER BY source_key";
const ERRORS = 'SELECT source_key, error_code FROM order_bulk_error ORDER BY line_no';

type Row = [string, string, string, string, string];
const rowsOf = (rows: Array<Record<string, string>>): Row[] =>
  rows.map((r) => [r.source_key ?? '', r.customer_id ?? '', r.order_date ?? '', r.amount ?? '', r.currency ?? '']);

function write(dir: string, name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe.skipIf(unavailable(NEEDS.cli)).each(targets)('the profile vocabulary through the CLI on $kind', (target) => {
  let db: CliDb | undefined;
  afterEach(async () => {
    await db?.dispose();
    db = undefined;
  });

  it('a US ERP file: $ signs, ($45.00), 12-hour timestamps, the currency from the sign; a sign not named is rejected', async () => {
    db = await target.create();
    const dir = tempDir();
    const profile = write(
      dir,
      'us.yaml',
      `version: 1
extra: ignore
columns:
  source_key: { column: "Order  Ref" }
  customer_id: { column: "CUSTOMER" }
  order_date: { column: "Ordered", date: "MM/DD/YYYY h:mm A" }
  amount: { column: "Total", group: ",", negative: ["-", "()"], currency_signs: { "$": USD, "€": EUR } }
  currency: { amount_sign: true }
`,
    );
    const file = write(
      dir,
      'us.csv',
      'Order Ref,Customer,Ordered,Total,Memo\r\n' +
        'US-1,1,12/01/2026 9:15 PM,"$1,234.50",a\r\n' +
        'US-2,2,12/02/2026 12:05 AM,€ 12.00,b\r\n' +
        'US-3,3,12/03/2026 1:00 PM,($45.00),c\r\n' +
        'US-4,4,12/04/2026 1:00 PM,£5.00,d\r\n',
    );
    const r = await runCli(['load', file, '--profile', profile, '--db', db.url]);
    expect(r.code).toBe(2);
    // extra: ignore written: the Memo column is left out without a word
    expect(r.stderr + r.stdout).not.toMatch(/ignoring extra column/);
    expect(rowsOf(await db.sql(ORDERS))).toEqual([
      ['US-1', '1', '2026-12-01', '1234.50', 'USD'],
      ['US-2', '2', '2026-12-02', '12.00', 'EUR'],
    ]);
    expect(await db.sql(ERRORS)).toEqual([
      { source_key: 'US-3', error_code: 'INVALID_AMOUNT' },
      { source_key: 'US-4', error_code: 'PARSE_AMOUNT' },
    ]);
  });

  it('a web-shop TSV: the currency from the file name, offsets to Asia/Tokyo, ="…" keys, a TOTAL trailer dropped by when:', async () => {
    db = await target.create();
    const dir = tempDir();
    const profile = write(
      dir,
      'shop.yaml',
      `version: 1
delimiter: "\\t"
file_pattern: 'shop_(?<currency>[A-Z]{3})_\\d{8}\\.tsv'
timezone: Asia/Tokyo
when: { column: "id", not_in: ["TOTAL"] }
columns:
  source_key: { column: "id" }
  customer_id: { column: "customer" }
  order_date: { column: "created", date: "YYYY-MM-DDTHH:mm:ssZ" }
  amount: { column: "total", group: ",", currency_signs: { "¥": JPY, "￥": JPY, "円": JPY } }
  currency: { file_group: currency }
`,
    );
    const body =
      'id\tcustomer\tcreated\ttotal\r\n' +
      '="000123"\t7\t2026-12-01T00:15:00+09:00\t¥1,200\r\n' +
      '="000124"\t8\t2026-11-30T20:00:00Z\t1,500円\r\n' +
      '="000125"\t9\t2026-11-30T14:59:59Z\t￥300\r\n' +
      'TOTAL\t3\t3000\r\n';
    const file = write(dir, 'shop_JPY_20261201.tsv', body);
    const r = await runCli(['load', file, '--profile', profile, '--db', db.url]);
    expect(r.stderr).not.toMatch(/"level":(40|50)/);
    expect(r.code).toBe(0);
    expect(rowsOf(await db.sql(ORDERS))).toEqual([
      ['000123', '7', '2026-12-01', '1200.00', 'JPY'],
      ['000124', '8', '2026-12-01', '1500.00', 'JPY'],
      ['000125', '9', '2026-11-30', '300.00', 'JPY'],
    ]);
    // a name the pattern does not match: refused before staging, the pattern named, under --profiles too
    const stray = write(dir, 'shop_jpy_latest.tsv', body);
    const refused = await runCli(['load', stray, '--profile', profile, '--db', db.url]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(String.raw`does not match file_pattern /shop_(?<currency>[A-Z]{3})_\d{8}\.tsv/`);
    const profiles = join(dir, 'profiles');
    mkdirSync(profiles);
    write(profiles, 'shop.yaml', `name: shop\nmatch: "shop_*.tsv"\n${readFileSync(profile, 'utf8')}`);
    const inbox = join(dir, 'inbox');
    mkdirSync(inbox);
    write(
      inbox,
      'shop_EUR_20261202.tsv',
      body.replaceAll('="0001', '="0002').replaceAll('¥', '').replaceAll('￥', '').replaceAll('円', ''),
    );
    const routed = await runCli(['load', inbox, '--profiles', profiles, '--settle', '0', '--db', db.url]);
    expect(routed.code).toBe(0);
    expect(
      rowsOf(
        await db.sql(
          "SELECT source_key, customer_id::text AS customer_id, '' AS order_date, amount::text AS amount, currency FROM orders WHERE source_key LIKE '0002%' ORDER BY 1",
        ),
      ),
    ).toEqual([
      ['000223', '7', '', '1200.00', 'EUR'],
      ['000224', '8', '', '1500.00', 'EUR'],
      ['000225', '9', '', '300.00', 'EUR'],
    ]);
    write(inbox, 'shop_EUR_latest.tsv', body);
    const routedStray = await runCli(['load', inbox, '--profiles', profiles, '--settle', '0', '--db', db.url]);
    expect(routedStray.code).toBe(1);
    expect(routedStray.stderr).toMatch(/shop_EUR_latest\.tsv: the name "shop_EUR_latest\.tsv" does not match file_pattern/);
  });

  it('a Japanese fixed-width file: era dates checked against their spans, ▲ and 円 around amounts', async () => {
    db = await target.create();
    const dir = tempDir();
    const profile = write(
      dir,
      'jp.yaml',
      `version: 1
format: fixed
units: chars
columns:
  source_key: { at: [1, 6] }
  customer_id: { at: [7, 4] }
  order_date: { at: [11, 12], date: ["GE年M月D日", "GE.M.D", "GEE/MM/DD"] }
  amount: { at: [23, 10], group: ",", negative: ["▲"], currency_signs: { "円": JPY } }
  currency: { const: "JPY" }
`,
    );
    const line = (key: string, customer: string, date: string, amount: string) =>
      `${key.padEnd(6)}${customer.padEnd(4)}${date.padEnd(12)}${amount.padStart(10)}\n`;
    const file = write(
      dir,
      'jp.dat',
      line('JP-1', '1', '令和8年12月1日', '1,200円') +
        line('JP-2', '2', 'R8.12.2', '3,500') +
        line('JP-3', '3', 'R08/12/03', '▲300円') +
        line('JP-4', '4', '令和元年5月1日', '10円') +
        line('JP-5', '5', 'H31.4.30', '20') +
        line('JP-6', '6', 'R1.4.30', '30') +
        line('JP-7', '7', '平成31年5月1日', '40'),
    );
    const r = await runCli(['load', file, '--profile', profile, '--db', db.url]);
    expect(r.code).toBe(2);
    expect(rowsOf(await db.sql(ORDERS))).toEqual([
      ['JP-1', '1', '2026-12-01', '1200.00', 'JPY'],
      ['JP-2', '2', '2026-12-02', '3500.00', 'JPY'],
      ['JP-4', '4', '2019-05-01', '10.00', 'JPY'],
      ['JP-5', '5', '2019-04-30', '20.00', 'JPY'],
    ]);
    expect(await db.sql(ERRORS)).toEqual([
      { source_key: 'JP-3', error_code: 'INVALID_AMOUNT' },
      { source_key: 'JP-6', error_code: 'PARSE_ORDER_DATE' },
      { source_key: 'JP-7', error_code: 'PARSE_ORDER_DATE' },
    ]);
  });

  it('the built-in format: a key guarded as ="000123" (bare or CSV-quoted) is stored as 000123', async () => {
    db = await target.create();
    const dir = tempDir();
    const file = write(
      dir,
      'guarded.csv',
      'source_key,customer_id,order_date,amount,currency\r\n="000123",1,2026-12-01,5.00,JPY\r\n"=""000124""",2,2026-12-02,6.00,JPY\r\n',
    );
    const r = await runCli(['load', file, '--db', db.url]);
    expect(r.code).toBe(0);
    expect(rowsOf(await db.sql(ORDERS))).toEqual([
      ['000123', '1', '2026-12-01', '5.00', 'JPY'],
      ['000124', '2', '2026-12-02', '6.00', 'JPY'],
    ]);
  });

  it('the built-in format: --encoding euc-jp reads an EUC-JP file; without it the refusal names the option', async () => {
    db = await target.create();
    const dir = tempDir();
    // 東京 in EUC-JP
    const tokyo = Buffer.from([0xc5, 0xec, 0xb5, 0xfe]);
    const file = write(
      dir,
      'euc.csv',
      Buffer.concat([Buffer.from('source_key,customer_id,order_date,amount,currency\n'), tokyo, Buffer.from('-1,1,2026-12-01,5.00,JPY\n')]),
    );
    const refused = await runCli(['load', file, '--db', db.url]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/not UTF-8 \(byte 0xc5 at offset 50, line 2\); it reads as .*EUC-JP.*load it with --encoding euc-jp/);
    const r = await runCli(['load', file, '--encoding', 'euc-jp', '--db', db.url]);
    expect(r.code).toBe(0);
    expect(rowsOf(await db.sql(ORDERS))).toEqual([['東京-1', '1', '2026-12-01', '5.00', 'JPY']]);
  });

  it('errors --format excel survives an open-edit-save in Excel: keys keep their zeros, the fixed rows load onto their keys', async () => {
    db = await target.create();
    const dir = tempDir();
    const file = write(
      dir,
      'orders.csv',
      'source_key,customer_id,order_date,amount,currency\n000127,1,2026-12-01,x,JPY\n東京-1,2,2026-12-02,y,JPY\n1234567890123456,3,2026-12-03,z,JPY\n',
    );
    expect((await runCli(['load', file, '--db', db.url])).code).toBe(2);
    const exported = await runCli(['errors', '--format', 'excel', '--db', db.url]);
    expect(exported.code).toBe(0);
    // a byte order mark (Excel reads the file as UTF-8, not its ANSI code page), CRLF, keys as ="…" text
    expect(exported.stdout.startsWith('\uFEFFsource_key,customer_id,order_date,amount,currency,error_code,')).toBe(true);
    expect(exported.stdout).toContain('\r\n"=""000127""","=""1""","=""2026-12-01""","=""x""",JPY,"=""PARSE_AMOUNT""",');
    expect(exported.stdout).toContain('"=""1234567890123456"""');
    expect(exported.stdout.replaceAll('\r\n', '').includes('\n')).toBe(false);

    // What Excel writes when the operator fixes the amounts and saves: each cell as it showed it
    // (the guard gone, 000127 kept as text), CRLF; as "CSV UTF-8" with a BOM, or as "CSV" in the
    // ANSI code page (cp932 on a Japanese Windows), without one.
    const [header = '', ...rows] = exported.stdout
      .replace(/^\uFEFF/, '')
      .split('\r\n')
      .filter((l) => l !== '');
    const shown = (line: string, amount: string): string => {
      const values = [...line.matchAll(/(?:^|,)(?:"((?:[^"]|"")*)"|([^,]*))/g)]
        .slice(0, 5)
        .map((m) => (m[1] ?? m[2] ?? '').replaceAll('""', '"').replace(/^="(.*)"$/, '$1'));
      values[3] = amount;
      return `${values.join(',')},PARSE_AMOUNT,fixed,,,`;
    };
    const saved = [header, ...rows.map((l, i) => shown(l, ['10.00', '20.00', '30.00'][i] ?? ''))].join('\r\n') + '\r\n';
    const utf8 = write(dir, 'fixed-utf8.csv', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(saved)]));
    expect((await runCli(['load', utf8, '--db', db.url])).code).toBe(0);
    expect(rowsOf(await db.sql(ORDERS))).toEqual([
      ['000127', '1', '2026-12-01', '10.00', 'JPY'],
      ['1234567890123456', '3', '2026-12-03', '30.00', 'JPY'],
      ['東京-1', '2', '2026-12-02', '20.00', 'JPY'],
    ]);
    // the same fix saved as cp932: loaded with --encoding cp932, onto the same keys again
    const cp932 = (text: string) =>
      Buffer.from(
        Array.from(text).flatMap((ch) => {
          if (ch === '東') return [0x93, 0x8c];
          if (ch === '京') return [0x8b, 0x9e];
          const code = ch.charCodeAt(0);
          if (code > 0x7f) throw new Error(`no cp932 byte for ${ch} in this test`);
          return [code];
        }),
      );
    const sjis = write(dir, 'fixed-sjis.csv', cp932(saved.replace('10.00', '11.00')));
    expect((await runCli(['load', sjis, '--encoding', 'cp932', '--db', db.url])).code).toBe(0);
    expect(await db.sql("SELECT amount::text AS amount FROM orders WHERE source_key = '000127'")).toEqual([{ amount: '11.00' }]);
    // the export itself edited in a text editor (guards kept): unwrapped as well
    const kept = write(dir, 'fixed-kept.csv', exported.stdout.replace('"=""x"""', '12.00'));
    expect((await runCli(['load', kept, '--db', db.url])).code).toBe(2);
    expect(await db.sql("SELECT amount::text AS amount FROM orders WHERE source_key = '000127'")).toEqual([{ amount: '12.00' }]);
    expect(await db.sql("SELECT count(*)::int AS n FROM orders WHERE source_key IN ('127', '1.23457E+15')")).toEqual([{ n: 0 }]);
  });
});
