/**
 * `order-loader guess` on the example data files (examples/profiles/, the mapping
 * their profiles hold) and on the files the issue names: a European semicolon file, ambiguous
 * day/month dates, a binary file, a gzip file. The draft must parse as YAML.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ProfileGuess } from '../../src/input/guess/index.js';
import { runCli } from '../support/cli-run.js';
import { tempDir, writeTestFile } from '../support/files.js';

/** guess FILE, as JSON and as YAML; `code` 2: the draft is expected to leave choices open (said on stderr). */
async function guess(file: string, code = 0): Promise<{ guessed: ProfileGuess; yaml: Record<string, unknown>; text: string }> {
  const json = await runCli(['guess', file, '--json', '--log-level', 'silent']);
  expect(json.code).toBe(code);
  const guessed = JSON.parse(json.stdout) as ProfileGuess;
  if (code === 0) expect(json.stderr).toBe('');
  else
    expect(json.stderr).toBe(
      `order-loader: the draft leaves ${guessed.open.length} choice(s) open (load refuses it until each is decided):\n${guessed.open.map((o) => `  - ${o}\n`).join('')}`,
    );
  const plain = await runCli(['guess', file, '--log-level', 'silent']);
  expect(plain.code).toBe(code);
  expect(plain.stdout).toBe(guessed.yaml);
  return { guessed, yaml: parse(guessed.yaml) as Record<string, unknown>, text: guessed.yaml };
}

describe('guess on the example data files proposes the mapping of their profiles', () => {
  it('eu-erp.csv: windows-1252, ";", a banner line, German names, DD.MM.YYYY and YYYY/MM/DD, decimal comma', async () => {
    const { guessed, yaml, text } = await guess('examples/profiles/eu-erp.csv');
    expect(yaml).toMatchObject({ version: 1, format: 'csv', encoding: 'windows-1252', delimiter: ';', header: true, skip_lines: 1 });
    expect(yaml.columns).toEqual({
      source_key: { column: 'Auftragsnr' },
      customer_id: { column: 'Kunde' },
      order_date: { column: 'Datum', date: ['DD.MM.YYYY', 'YYYY/MM/DD'] },
      amount: { column: 'Betrag', decimal: ',', group: '.' },
      currency: { column: 'Währung' },
    });
    expect(guessed.columns.amount).toMatchObject({ decimal: ',', group: '.' });
    expect(text).toContain('# encoding: neither Shift_JIS nor EUC-JP decodes it');
    expect(text).toContain('# date masks that fit: DD.MM.YYYY 3/4 (75%), YYYY/MM/DD 1/4 (25%)');
    // an empty currency: the most frequent code offered as a commented default
    expect(text).toContain('    # default: "EUR"');
  });

  it('headerless.csv: no header, columns by number, YYYYMMDD, no currency column (a commented const)', async () => {
    const { yaml, text } = await guess('examples/profiles/headerless.csv', 2);
    expect(yaml).toMatchObject({ format: 'csv', encoding: 'utf-8', delimiter: ',', header: false });
    expect(yaml.skip_lines).toBeUndefined();
    expect(yaml.columns).toEqual({
      source_key: { column: 1 },
      customer_id: { column: 3 },
      order_date: { column: 2, date: ['YYYYMMDD'] },
      amount: { column: 4, decimal: '.' },
      currency: { open: expect.stringMatching(/^currency: no column holds currency codes/) as unknown },
    });
    expect(text).toContain(
      '    open: "currency: no column holds currency codes, the amounts carry no currency sign and the file name holds no currency code: write const: with the file\'s currency code"\n    # const: "<code>"   # the file\'s currency (ISO 4217, such as JPY or USD): the file does not say it',
    );
  });

  it('mainframe-sjis.dat: Shift_JIS fixed width in bytes, D records between H and T, full-width digits, ▲', async () => {
    const { yaml, text } = await guess('examples/profiles/mainframe-sjis.dat');
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
    expect(text).toContain('field boundaries seen: 1–1, 2–11, 12–19, 20–27, 28–39, 40–42, 43–50');
    expect(text).toContain('#   at [43, 8]: "東京支店", "大阪支店", "名古屋"');
  });
});

describe('guess on partner-shaped files', () => {
  it('a European semicolon file: English names, DD.MM.YYYY, 1.234,50, a banner; written with --out, never over a file', async () => {
    const file = writeTestFile(
      'Export 2026-12-01\r\nOrder No;Customer;Date;Total;Cur\r\nEU-1;1001;01.12.2026;1.234,50;EUR\r\nEU-2;1002;31.12.2026;-99,00;EUR\r\nEU-3;1003;15.11.2026;12,00;CHF\r\n',
      'eu.csv',
    );
    const out = join(tempDir(), 'profile.yaml');
    const written = await runCli(['guess', file, '--out', out, '--log-level', 'silent']);
    expect(written.code).toBe(0);
    expect(written.stdout).toBe(`draft profile of ${file} written to ${out}: check it before loading with it\n`);
    const yaml = parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
    expect(yaml).toMatchObject({ encoding: 'utf-8', delimiter: ';', header: true, skip_lines: 1 });
    expect(yaml.columns).toEqual({
      source_key: { column: 'Order No' },
      customer_id: { column: 'Customer' },
      order_date: { column: 'Date', date: ['DD.MM.YYYY'] },
      amount: { column: 'Total', decimal: ',', group: '.', negative: ['-'] },
      currency: { column: 'Cur' },
    });
    expect(readFileSync(out, 'utf8')).toContain('# line endings: CRLF (5 lines)');
    const again = await runCli(['guess', file, '--out', out, '--log-level', 'silent']);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`order-loader: --out ${out} exists: remove it or name another file\n`);
  });

  it('01/02/2026 dates: said ambiguous, both masks commented, an open choice that load and preview refuse, naming it', async () => {
    const file = writeTestFile('id,customer,date,amount,currency\nA1,1,01/02/2026,5.00,USD\nA2,2,03/04/2026,6.00,USD\n', 'us.csv');
    const { guessed, yaml, text } = await guess(file, 2);
    const open =
      'date: day first or month first? every value reads as DD/MM/YYYY and as MM/DD/YYYY: write date: with the one the file is in';
    expect(guessed.open).toEqual([`columns.order_date: ${open}`]);
    expect(yaml.columns).toMatchObject({ order_date: { column: 'date', open } });
    const profile = join(tempDir(), 'p.yaml');
    expect((await runCli(['guess', file, '--out', profile, '--log-level', 'silent'])).code).toBe(2);
    const refusal = `order-loader: profile ${profile}: columns.order_date: an open choice guess left: ${open} (line 27); decide it and remove its open: line\n`;
    for (const command of [['load', '--dry-run'], ['preview']]) {
      const r = await runCli([...command, '--profile', profile, file, '--log-level', 'silent']);
      expect(r, command[0]).toMatchObject({ code: 1, stderr: refusal });
    }
    // decided: the draft loads
    writeFileSync(profile, readFileSync(profile, 'utf8').replace(`    open: ${JSON.stringify(open)}\n`, '    date: "MM/DD/YYYY"\n'));
    expect((await runCli(['load', '--dry-run', '--profile', profile, file, '--log-level', 'silent'])).code).toBe(0);
    expect((yaml.columns as { order_date: Record<string, unknown> }).order_date.date).toBeUndefined();
    expect(guessed.columns.order_date.date).toBeNull();
    expect(text).toContain('# ambiguous: every value reads both as DD/MM/YYYY and as MM/DD/YYYY ("01/02/2026": day first or month first?)');
    expect(text).toContain('    # date: "DD/MM/YYYY"\n    # date: "MM/DD/YYYY"');
  });

  it('a gzip file: its content is read', async () => {
    const file = writeTestFile(gzipSync(readFileSync('examples/profiles/headerless.csv')), 'partner.csv.gz');
    const { guessed, yaml } = await guess(file, 2);
    expect(guessed.gzip).toBe(true);
    expect(guessed.yaml).toContain('bytes of its decompressed gzip content read: the whole file');
    expect(yaml.columns).toMatchObject({ order_date: { column: 2, date: ['YYYYMMDD'] } });
  });

  it('a binary file, a missing one: exit 1, one line saying why, nothing on stdout', async () => {
    const bin = writeTestFile(Buffer.from([0x01, 0x02, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00]), 'archive.bin');
    const r = await runCli(['guess', bin, '--log-level', 'silent']);
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toBe(
      `order-loader: ${bin}: not a text file (a NUL byte at offset 5); guess reads CSV, fixed-width text, JSON Lines and xlsx workbooks\n`,
    );
    const missing = join(tempDir(), 'nope.csv');
    expect(existsSync(missing)).toBe(false);
    const m = await runCli(['guess', missing, '--log-level', 'silent']);
    expect(m).toMatchObject({ code: 1, stdout: '', stderr: `order-loader: ${missing}: no such file\n` });
    const none = await runCli(['guess', '--log-level', 'silent']);
    expect(none).toMatchObject({ code: 1, stderr: 'order-loader: guess: name one file to read\n' });
  });
});

describe('guess on the vocabulary examples (examples/profiles/): their mapping, and open what the file cannot tell', () => {
  it('us-erp.csv: $, C$, £ and () around the amounts; day or month first and the $ currency left open', async () => {
    const { guessed, yaml } = await guess('examples/profiles/us-erp.csv', 2);
    expect(yaml.columns).toMatchObject({
      source_key: { column: 'Order Ref' },
      customer_id: { column: 'Customer' },
      order_date: { column: 'Ordered' },
      amount: { column: 'Total', decimal: '.', group: ',', negative: ['()'], currency_signs: { $: null, C$: 'CAD', '£': 'GBP' } },
    });
    // 12/01/2026 … 12/03/2026: every value reads both ways; "$" is the sign of several currencies
    expect(guessed.open.map((o) => o.slice(0, o.indexOf(':')))).toEqual(['columns.order_date', 'columns.currency']);
    expect(guessed.open[0]).toContain('DD/MM/YYYY h:mm A and as MM/DD/YYYY h:mm A');
  });

  it('shop_JPY_20261201.tsv: ="…" keys, ¥ ￥ 円, the TOTAL trailer left out; offsets +09:00 and Z: the zone left open', async () => {
    const { guessed, yaml } = await guess('examples/profiles/shop_JPY_20261201.tsv', 2);
    expect(yaml).toMatchObject({ name: 'shop', match: 'shop_???_*.tsv', delimiter: '\t', when: { column: 'id', not_in: ['TOTAL'] } });
    expect(yaml.columns).toMatchObject({
      source_key: { column: 'id' },
      customer_id: { column: 'customer' },
      order_date: { column: 'created_at', date: ['YYYY-MM-DDTHH:mm:ssZ'] },
      amount: { column: 'total', group: ',', currency_signs: { '¥': 'JPY', '￥': 'JPY', 円: 'JPY' } },
      currency: { amount_sign: true },
    });
    expect(guessed.open).toEqual([
      'timezone: the dates carry the offsets "+09:00", "Z": in which zone is an order\'s date counted? write timezone: with its IANA name',
    ]);
  });

  it('jp-ledger.dat: fixed width apart by blanks, era dates in three forms (the one out of its era rejected), ▲ and 円; the currency of unsigned amounts left open', async () => {
    const { guessed, yaml, text } = await guess('examples/profiles/jp-ledger.dat', 2);
    expect(yaml).toMatchObject({ format: 'fixed', encoding: 'utf-8', units: 'chars' });
    expect(yaml.columns).toMatchObject({
      source_key: { at: [1, 6] },
      customer_id: { at: [7, 4] },
      order_date: { at: [11, 16], date: ['GE年M月D日', 'GE.MM.D', 'GEE/MM/DD'] },
      amount: { at: [27, 6], group: ',', negative: ['▲'], currency_signs: { 円: 'JPY' } },
    });
    expect(text).toContain('# 1 of 5 values no mask reads ("R1.4.30"): their lines will be rejected (PARSE_ORDER_DATE)');
    expect(guessed.open).toHaveLength(1);
    expect(guessed.open[0]).toMatch(/^columns\.currency: .*"円"\) name JPY, but 2 amount\(s\) carry none/);
  });
});

describe('a draft guess writes with exit 0 routes an inbox as it is (--profiles)', () => {
  it("name and match from the file name, the currency from it: the next day's file and another currency's are taken too", async () => {
    const root = tempDir();
    const inbox = join(root, 'inbox');
    const profiles = join(root, 'profiles');
    mkdirSync(inbox);
    mkdirSync(profiles);
    const rows = (k: string) => `order,customer,date,amount\n${k}-1,9001,2026-12-01,100.00\n${k}-2,9002,2026-12-02,59.90\n`;
    writeFileSync(join(inbox, 'orders_USD_20261201.csv'), rows('U'));
    writeFileSync(join(inbox, 'orders_EUR_20261202.csv'), rows('E'));
    const g = await runCli([
      'guess',
      join(inbox, 'orders_USD_20261201.csv'),
      '--out',
      join(profiles, 'orders.yaml'),
      '--log-level',
      'silent',
    ]);
    expect(g).toMatchObject({ code: 0, stderr: '' });
    const db = `pglite:${join(root, 'db')}`;
    const r = await runCli(['load', inbox, '--profiles', profiles, '--settle', '0', '--db', db, '--log-level', 'silent']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/orders_USD_20261201\.csv: read with profile orders \(sha256 [0-9a-f]{12}\)/);
    expect(r.stdout).toMatch(/orders_EUR_20261202\.csv: read with profile orders \(sha256 [0-9a-f]{12}\)/);
    const pglite = await PGlite.create(join(root, 'db'));
    try {
      const orders = await pglite.query<{ source_key: string; currency: string }>(
        'SELECT source_key, currency FROM orders ORDER BY source_key',
      );
      expect(orders.rows).toEqual([
        { source_key: 'E-1', currency: 'EUR' },
        { source_key: 'E-2', currency: 'EUR' },
        { source_key: 'U-1', currency: 'USD' },
        { source_key: 'U-2', currency: 'USD' },
      ]);
    } finally {
      await pglite.close();
    }
  });
});

describe('guess on files it recognises but does not read as order text: one line saying what and what to do, exit 1', () => {
  const saveAs = 'save it as an Excel Workbook (File › Save As › .xlsx) or the sheet as CSV UTF-8, and guess that file';
  const json =
    'not CSV: order-loader reads JSON Lines (one object per line, format: jsonl), not one JSON document; export the orders one object per line, or as CSV';
  const cases: Array<[string, Buffer, string]> = [
    ['orders.json', Buffer.from('[\n  {"id": 1, "total": "5.00"}\n]\n'), `a JSON document, ${json}`],
    [
      'orders.xls',
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]),
      `an Excel 97-2003 workbook (xls), a password-protected workbook or another OLE document, not a text file: order-loader reads xlsx workbooks (format: xlsx) without a password, CSV and text; ${saveAs}`,
    ],
    [
      'orders.ods',
      Buffer.concat([
        Buffer.from([0x50, 0x4b, 0x03, 0x04]),
        Buffer.alloc(26),
        Buffer.from('mimetypeapplication/vnd.oasis.opendocument.spreadsheet'),
      ]),
      `an OpenDocument spreadsheet (ods), not a text file: order-loader reads CSV, fixed-width text, JSON Lines and xlsx workbooks; ${saveAs}`,
    ],
    [
      'orders.zip',
      Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(26), Buffer.from('orders-1.csv')]),
      'a zip archive, not a text file: unpack it and guess each file in it (gzip files are read as they are)',
    ],
    [
      'orders.pdf',
      Buffer.from('%PDF-1.7\n%\xe2\xe3\n1 0 obj\n', 'latin1'),
      'a PDF document, not a text file: order-loader reads CSV, fixed-width text, JSON Lines and xlsx workbooks; ask the partner for an export of the orders in one of those',
    ],
  ];
  it.each(cases)('%s', async (name, content, said) => {
    const file = writeTestFile(content, name);
    const r = await runCli(['guess', file, '--out', join(tempDir(), 'p.yaml'), '--log-level', 'silent']);
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: `order-loader: ${file}: ${said}\n` });
    const gz = writeTestFile(gzipSync(content), `${name}.gz`);
    expect((await runCli(['guess', gz, '--log-level', 'silent'])).stderr).toBe(`order-loader: ${gz}: ${said}\n`);
  });
});

describe('guess against the example profiles themselves (read from examples/profiles/*.yaml)', () => {
  // headerless.csv holds no currency at all: its profile's const is the user's choice, left open by guess (exit 2)
  const examples = [
    ['eu-erp.csv', 'eu-erp.yaml', 0],
    ['headerless.csv', 'headerless.yaml', 2],
    ['mainframe-sjis.dat', 'mainframe-sjis.yaml', 0],
  ] as const;
  const asList = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  it.each(examples)('%s: every field where %s has it, the format, encoding and record filter', async (data, profileFile, code) => {
    const profile = parse(readFileSync(join('examples/profiles', profileFile), 'utf8')) as Record<string, unknown>;
    const { yaml } = await guess(join('examples/profiles', data), code);
    for (const key of ['format', 'encoding', 'delimiter', 'header', 'units', 'when'] as const) {
      // the record filter of a fixed file is guessed; a CSV `when` (a business rule) is not
      if (profile[key] !== undefined && !(key === 'when' && profile.format === 'csv')) expect(yaml[key], key).toEqual(profile[key]);
    }
    const want = profile.columns as Record<string, Record<string, unknown>>;
    const got = yaml.columns as Record<string, Record<string, unknown> | null>;
    for (const [field, spec] of Object.entries(want)) {
      if (spec.const !== undefined) continue; // a constant is the user's choice: offered as a comment
      const proposed = got[field] ?? {};
      if (spec.column !== undefined) expect(asList(spec.column), field).toContain(proposed.column);
      if (spec.at !== undefined) expect(proposed.at, field).toEqual(spec.at);
      if (spec.date !== undefined) expect(asList(proposed.date), field).toEqual(asList(spec.date));
      for (const style of ['decimal', 'group'] as const)
        if (spec[style] !== undefined) expect(proposed[style], `${field}.${style}`).toEqual(spec[style]);
    }
  });
});
