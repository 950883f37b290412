/**
 * previewFile (`order-loader preview`): each line of a file as a load would judge it
 * — skipped, discarded by `when`, staged with its values (raw, as the profile reads it, staged),
 * or rejected with the code and message a load logs — and totals over the whole file, with the
 * exit code of `load --dry-run`. No database: the same reader, mapping and rules as a load.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadProfileFile, parseProfileText } from '../../src/input/profile/load-profile.js';
import { OrderLoader } from '../../src/loader.js';
import { previewFile, type PreviewLine } from '../../src/pipeline/preview.js';
import { HEADER, writeTestFile } from '../support/files.js';

const EU = loadProfileFile('examples/profiles/eu-erp.yaml');
const f = (raw: string, normalized: string | null, staged: string | null, from?: 'const' | 'default') => ({
  raw,
  normalized,
  staged,
  ...(from === undefined ? {} : { from }),
});

describe('preview through a profile', () => {
  it('eu-erp: the banner and header skipped, cancelled orders discarded, each field read, normalised and staged', async () => {
    const p = await previewFile('examples/profiles/eu-erp.csv', { profile: EU, rows: 20 });
    expect(p.profile).toEqual({ name: 'eu-erp', sha256: EU.sha256 });
    expect(p.lines.map((l) => [l.line, l.kind])).toEqual([
      [1, 'skip'],
      [2, 'skip'],
      [3, 'stage'],
      [4, 'stage'],
      [5, 'discard'],
      [6, 'stage'],
    ]);
    expect(p.lines[0]).toEqual({ line: 1, kind: 'skip', reason: 'skip_lines', raw: 'Auftragsexport vom 01.12.2026 über alle Werke' });
    expect(p.lines[1]).toMatchObject({ kind: 'skip', reason: 'header', raw: 'Auftragsnr;Kunde;Datum;Betrag;Währung;Status;Bemerkung' });
    expect(p.lines[2]).toEqual({
      line: 3,
      kind: 'stage',
      raw: '50001;1001;01.12.2026;1.234,50;EUR;offen;Straße 5',
      fields: {
        source_key: f('50001', '50001', 'EU-50001'),
        customer_id: f('1001', '1001', '1001'),
        order_date: f('01.12.2026', '01.12.2026', '2026-12-01'),
        amount: f('1.234,50', '1.234,50', '1234.5'),
        currency: f('EUR', 'EUR', 'EUR'),
      },
      invalid: null,
    });
    // an empty currency: missing, then the profile's default
    expect((p.lines[3] as Extract<PreviewLine, { kind: 'stage' }>).fields.currency).toEqual(f('', null, 'EUR', 'default'));
    expect(p.lines[4]).toEqual({
      line: 5,
      kind: 'discard',
      reason: 'when',
      value: 'storniert',
      raw: '50003;1003;03.12.2026;10,00;EUR;storniert;doppelt',
    });
    // the second date mask, and a group separator twice
    expect((p.lines[5] as Extract<PreviewLine, { kind: 'stage' }>).fields).toMatchObject({
      order_date: f('2026/12/04', '2026/12/04', '2026-12-04'),
      amount: f('2.000.000,00', '2.000.000,00', '2000000'),
    });
    expect(p.totals).toEqual({
      lines: 6,
      read: 3,
      stage: 3,
      invalid: 0,
      rejected: 0,
      stagedAsError: 0,
      discarded: 1,
      skipped: { skip_lines: 1, comment: 0, header: 1 },
      byCode: [],
    });
    expect(p.extraColumns).toEqual(['Bemerkung']);
    expect(p.exitCode).toBe(0);
  });

  it('headerless: a const field is not read from the file', async () => {
    const profile = loadProfileFile('examples/profiles/headerless.yaml');
    const p = await previewFile('examples/profiles/headerless.csv', { profile, rows: 1 });
    expect(p.lines).toEqual([
      {
        line: 1,
        kind: 'stage',
        raw: 'A-1,20261201,501,1200',
        fields: {
          source_key: f('A-1', 'A-1', 'LG-A-1'),
          customer_id: f('501', '501', '501'),
          order_date: f('20261201', '20261201', '2026-12-01'),
          amount: f('1200', '1200', '1200'),
          currency: { raw: null, normalized: null, staged: 'JPY', from: 'const' },
        },
        invalid: null,
      },
    ]);
    // --rows limits the lines shown, never the totals
    expect(p.totals).toMatchObject({ lines: 3, read: 3, stage: 3 });
  });

  it('mainframe-sjis: header and trailer records discarded, full-width digits and ▲ read, the negative amount ERROR by validation', async () => {
    const profile = loadProfileFile('examples/profiles/mainframe-sjis.yaml');
    const p = await previewFile('examples/profiles/mainframe-sjis.dat', { profile, rows: 20 });
    expect(p.lines.map((l) => [l.line, l.kind])).toEqual([
      [1, 'discard'],
      [2, 'stage'],
      [3, 'stage'],
      [4, 'stage'],
      [5, 'discard'],
    ]);
    expect(p.lines[0]).toMatchObject({ kind: 'discard', value: 'H' });
    const second = p.lines[2] as Extract<PreviewLine, { kind: 'stage' }>;
    expect(second.fields).toEqual({
      source_key: f('0000000102', '0000000102', 'MF-0000000102'),
      customer_id: f('１００２', '1002', '1002'),
      order_date: f('20261201', '20261201', '2026-12-01'),
      amount: f('▲    300.00', '▲    300.00', '-300'),
      currency: f('JPY', 'JPY', 'JPY'),
    });
    expect(second.invalid).toEqual({ code: 'INVALID_AMOUNT', message: 'amount must be zero or greater' });
    expect(p.totals).toMatchObject({ lines: 5, read: 3, stage: 3, invalid: 1, discarded: 2 });
    expect(p.totals.byCode).toEqual([{ code: 'INVALID_AMOUNT', phase: 'VALIDATE', lines: 1, firstLine: 3 }]);
    expect(p.exitCode).toBe(2);
  });

  it('a value no mask reads, a line with too few fields, a comment: each as a load logs it; totals by code', async () => {
    const profile = parseProfileText(
      [
        'version: 1',
        'delimiter: ";"',
        'comment: "#"',
        'columns:',
        '  source_key: { column: "No" }',
        '  customer_id: { column: "Kunde" }',
        '  order_date: { column: "Date", date: ["DD.MM.YYYY", "YYYY/MM/DD"] }',
        '  amount: { column: "Total", decimal: ",", group: "." }',
        '  currency: { column: "Cur" }',
      ].join('\n'),
      'p.yaml',
      'p',
    );
    const file = writeTestFile(
      'No;Kunde;Date;Total;Cur\n# a remark\nA1;1;2026/13/01;1,00;EUR\nA2;2;01.12.2026\n;3;01.12.2026;1,00;EUR\nA4;4;02.12.2026;5,00;EUR\n',
    );
    const p = await previewFile(file, { profile, rows: 20 });
    expect(p.lines[1]).toEqual({ line: 2, kind: 'skip', reason: 'comment', raw: '# a remark' });
    expect(p.lines[2]).toMatchObject({
      line: 3,
      kind: 'reject',
      code: 'PARSE_ORDER_DATE',
      message: 'order_date: "2026/13/01" matches none of DD.MM.YYYY, YYYY/MM/DD (column "Date")',
      stagedAsError: true,
      fields: { order_date: f('2026/13/01', '2026/13/01', null), source_key: f('A1', 'A1', 'A1') },
    });
    expect(p.lines[3]).toEqual({
      line: 4,
      kind: 'reject',
      raw: 'A2;2;01.12.2026',
      code: 'PARSE_FIELD_COUNT',
      message: 'expected 5 fields as in the header, found 3',
      stagedAsError: false,
    });
    expect(p.lines[4]).toMatchObject({ kind: 'reject', code: 'PARSE_SOURCE_KEY', stagedAsError: false });
    expect(p.totals).toMatchObject({ lines: 6, read: 4, stage: 1, rejected: 3, stagedAsError: 1 });
    expect(p.totals.byCode).toEqual([
      { code: 'PARSE_ORDER_DATE', phase: 'PARSE', lines: 1, firstLine: 3 },
      { code: 'PARSE_FIELD_COUNT', phase: 'PARSE', lines: 1, firstLine: 4 },
      { code: 'PARSE_SOURCE_KEY', phase: 'PARSE', lines: 1, firstLine: 5 },
    ]);
    expect(p.exitCode).toBe(2);
    // the same judgement as load --dry-run: its counts, its exit code
    const [dry] = await OrderLoader.dryRunFiles([file], { profile });
    expect(p.dryRun).toEqual(dry?.counts);
  });
});

describe('preview of the built-in format', () => {
  it('the seed file: the header, four rows staged, one ERROR by validation; the exit code of load --dry-run', async () => {
    const p = await previewFile('fixtures/orders-sample.csv', { rows: 20 });
    expect(p.profile).toBeNull();
    expect(p.lines[0]).toEqual({ line: 1, kind: 'skip', reason: 'header', raw: HEADER });
    expect(p.lines[2]).toMatchObject({
      line: 3,
      kind: 'stage',
      fields: { source_key: f('SRC-102', 'SRC-102', 'SRC-102'), amount: f('', null, null) },
      invalid: { code: 'INVALID_AMOUNT', message: 'amount is missing' },
    });
    expect(p.totals).toMatchObject({ lines: 5, read: 4, stage: 4, invalid: 1, rejected: 0 });
    expect(p.exitCode).toBe(2);
  });

  it('blanks around a value and a quoted line over two lines; a gzip file is read decompressed', async () => {
    const text = `${HEADER}\n" K1 ",1,2026-01-01,"1\n2",JPY\nK2, 2 ,2026-01-01,1.5,EUR\n`;
    for (const content of [text, gzipSync(text)]) {
      const p = await previewFile(writeTestFile(content), { rows: 20 });
      expect(p.lines[1]).toMatchObject({
        line: 2,
        endLine: 3,
        kind: 'reject',
        code: 'PARSE_AMOUNT',
        stagedAsError: true,
        fields: { source_key: f(' K1 ', 'K1', 'K1'), amount: f('1\n2', '1\n2', null) },
      });
      expect(p.lines[2]).toMatchObject({
        line: 4,
        kind: 'stage',
        fields: { customer_id: f(' 2 ', '2', '2'), amount: f('1.5', '1.5', '1.5') },
      });
      expect(p.exitCode).toBe(2);
    }
  });

  it('a line the file cannot be read past: the line that stops it, exit 1', async () => {
    const p = await previewFile(writeTestFile(`${HEADER}\nK1,1,2026-01-01,1,JPY\n"K2,1,2026-01-01,1,JPY\n`), { rows: 20 });
    expect(p.lines[2]).toMatchObject({ line: 3, kind: 'reject', code: 'CSV_QUOTE_NOT_CLOSED', stopsFile: true });
    expect(p.stoppedAt).toMatchObject({ line: 3 });
    expect(p.exitCode).toBe(1);
  });
});
