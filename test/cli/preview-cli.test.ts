/**
 * `order-loader preview` on the command line: one JSON document when stdout is not a
 * terminal (or with --json), the table on a terminal (fitted to its width) or with --format text;
 * the exit codes of `load --dry-run`; no database opened, nothing written.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli as runCommandLine } from '../../src/cli/run-cli.js';
import { displayWidth } from '../../src/cli/render-preview.js';
import type { PreviewResult } from '../../src/pipeline/preview.js';
import { CLEAN_ENV, runCli } from '../support/cli-run.js';
import { HEADER, tempDir, writeTestFile } from '../support/files.js';

const EU = ['--profile', 'examples/profiles/eu-erp.yaml', 'examples/profiles/eu-erp.csv'];

/** The command line with stdout a terminal `columns` wide. */
async function onTerminal(args: string[], columns: number): Promise<{ code: number; stdout: string }> {
  const chunks: string[] = [];
  const stdout = Object.assign(
    new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        chunks.push(chunk.toString());
        callback();
      },
    }),
    { isTTY: true, columns },
  );
  const stderr = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  const code = await runCommandLine(args, { stdout, stderr, env: { ...CLEAN_ENV } });
  return { code, stdout: chunks.join('') };
}

describe('preview', () => {
  it('not on a terminal: one JSON document, the same with --json; nothing written, no database made', async () => {
    const dir = tempDir();
    const db = join(dir, 'db');
    const metrics = join(dir, 'run.prom');
    const plain = await runCli(['preview', ...EU, '--db', `pglite:${db}`, '--metrics-file', metrics, '--log-level', 'warn']);
    expect(plain.stderr).toBe('');
    expect(plain.code).toBe(0);
    const doc = JSON.parse(plain.stdout) as PreviewResult;
    expect(doc.lines.map((l) => l.kind)).toEqual(['skip', 'skip', 'stage', 'stage', 'discard', 'stage']);
    expect(doc.totals).toMatchObject({ lines: 6, read: 3, stage: 3, discarded: 1, skipped: { skip_lines: 1, header: 1 } });
    expect(doc.exitCode).toBe(0);
    expect(existsSync(db)).toBe(false);
    expect(existsSync(metrics)).toBe(false);
    const json = await runCli(['preview', ...EU, '--json']);
    expect(json.stdout).toBe(plain.stdout);
  });

  it('--rows limits the lines shown; the totals still cover the whole file', async () => {
    const r = await runCli(['preview', ...EU, '--rows', '2', '--format', 'text']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('the first 2 of 6 lines shown (--rows 2); the totals cover the whole file');
    expect(r.stdout).toContain(
      [
        'totals over the whole file: 6 lines',
        '  3 data lines: 3 would stage (0 of them ERROR by validation), 0 rejected (0 of them staged as ERROR)',
        '  1 discarded by when; 2 skipped (1 skip_lines, 1 header)',
      ].join('\n'),
    );
    const doc = JSON.parse((await runCli(['preview', ...EU, '--rows', '2'])).stdout) as PreviewResult;
    expect(doc.lines).toHaveLength(2);
    expect(doc.totals.lines).toBe(6);
  });

  it('on a terminal: a table fitted to its width, long values cut with an ellipsis', async () => {
    const file = writeTestFile(`${HEADER}\nK1,1,2026-01-01,12.50,JPY\n${'L'.repeat(70)},2,2026-01-02,x,JPY\n`);
    const { code, stdout } = await onTerminal(['preview', file], 72);
    expect(code).toBe(2);
    const lines = stdout.trimEnd().split('\n');
    expect(lines.every((l) => displayWidth(l) <= 72)).toBe(true);
    const at = lines.findIndex((l) => l.startsWith('line  what'));
    expect(lines.slice(at, at + 8)).toEqual([
      'line  what     field        raw            normalised     staged',
      '   1  skip     header: source_key,customer_id,order_date,amount,currency',
      '   2  stage    source_key   K1             K1             K1',
      '               customer_id  1              1              1',
      '               order_date   2026-01-01     2026-01-01     2026-01-01',
      '               amount       12.50          12.50          12.5',
      '               currency     JPY            JPY            JPY',
      '   3  reject   PARSE_AMOUNT: amount is not a decimal number: "x"',
    ]);
    expect(lines[at + 8]).toMatch(/^ {15}source_key {3}L{12}… {2}L{12}… {2}L{12}…$/);
    expect(lines[at + 13]).toBe(`${' '.repeat(15)}staged as ERROR (usable source_key), listed by errors`);
    expect(stdout).toContain('  PARSE_AMOUNT (PARSE): 1 line(s), the first line 3');
    expect(stdout).toContain('exit code 2, as load --dry-run');
    // the same command into a pipe: JSON
    expect(() => {
      JSON.parse(stdout);
    }).toThrow();
  });

  it('on a terminal, full-width characters take two columns: the columns stay aligned', async () => {
    const { code, stdout } = await onTerminal(
      ['preview', '--profile', 'examples/profiles/mainframe-sjis.yaml', 'examples/profiles/mainframe-sjis.dat'],
      80,
    );
    expect(code).toBe(2);
    const lines = stdout.trimEnd().split('\n');
    expect(lines.every((l) => displayWidth(l) <= 80)).toBe(true);
    const key = lines.findIndex((l) => l.includes('source_key   0000000102'));
    const keyLine = lines[key] ?? '';
    const customer = lines[key + 1] ?? '';
    expect(customer).toContain('１００２');
    // the normalised column starts at the same terminal column on both lines
    const at = (line: string, i: number) => displayWidth(line.slice(0, i));
    expect(at(customer, customer.indexOf('1002'))).toBe(at(keyLine, keyLine.indexOf('0000000102', keyLine.indexOf('0000000102') + 1)));
  });

  it('exit codes as load --dry-run: 2 for a line that would end ERROR, 2 when `when` discards every line, 1 when the file cannot be read', async () => {
    expect((await runCli(['preview', 'fixtures/orders-sample.csv'])).code).toBe(2);
    expect((await runCli(['load', '--dry-run', 'fixtures/orders-sample.csv'])).code).toBe(2);
    expect((await runCli(['preview', 'fixtures/orders-corrected.csv'])).code).toBe(0);

    const cancelled = writeTestFile(
      Buffer.from('Banner\nAuftragsnr;Kunde;Datum;Betrag;Währung;Status\n1;2;01.12.2026;1,00;EUR;storniert\n', 'latin1'),
    );
    const all = await runCli(['preview', '--profile', 'examples/profiles/eu-erp.yaml', cancelled]);
    expect(all.code).toBe(2);
    expect((JSON.parse(all.stdout) as PreviewResult).warnings).toEqual([
      `${cancelled}: profile eu-erp discarded every line (1): nothing would be loaded from it (check when: (1 line(s)))`,
    ]);

    const stops = writeTestFile(`${HEADER}\n"K1,1,2026-01-01,1,JPY\n`);
    const stopped = await runCli(['preview', stops]);
    expect(stopped.code).toBe(1);
    expect((JSON.parse(stopped.stdout) as PreviewResult).stoppedAt).toMatchObject({ line: 2 });

    const missing = await runCli(['preview', writeTestFile('source_key,customer_id\nK1,1\n')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/missing required columns order_date, amount, currency/);
    expect(missing.stdout).toBe('');
    const none = await runCli(['preview', join(tempDir(), 'none.csv'), '--json']);
    expect(none.code).toBe(1);
    expect(JSON.parse(none.stdout)).toMatchObject({ error: { kind: 'user' }, exitCode: 1 });
    const two = await runCli(['preview', 'fixtures/orders-sample.csv', 'fixtures/orders-corrected.csv', '--log-level', 'silent']);
    expect(two.code).toBe(1);
    expect(two.stderr).toBe('order-loader: preview: name one file to read\n');
    const badFormat = await runCli(['preview', 'fixtures/orders-sample.csv', '--format', 'csv', '--log-level', 'silent']);
    expect(badFormat.stderr).toBe('order-loader: preview --format takes text or json (got csv)\n');
    const dryRun = await runCli(['preview', 'fixtures/orders-sample.csv', '--dry-run']);
    expect(dryRun.stderr).toMatch(/preview does not take --dry-run/);
  });
});

describe('preview of a line with several problems', () => {
  it('says the first code once, then each problem', async () => {
    const file = writeTestFile(`${HEADER}\nK-1,x,2026-13-45,1.00,JPY\n`);
    const out = await onTerminal(['preview', file, '--format', 'text'], 200);
    expect(out.stdout).toContain('PARSE_CUSTOMER_ID: customer_id is not an integer: "x"; PARSE_ORDER_DATE:');
    expect(out.stdout).not.toContain('PARSE_CUSTOMER_ID: PARSE_CUSTOMER_ID');
  });
});

describe('preview of values the profile takes from elsewhere', () => {
  it('a currency from the amount sign or from the file name is said so', async () => {
    const us = await onTerminal(
      ['preview', 'examples/profiles/us-erp.csv', '--profile', 'examples/profiles/us-erp.yaml', '--format', 'text'],
      200,
    );
    expect(us.stdout).toMatch(/currency +\(amount sign\) +\(amount sign\) +USD/);
    const shop = await onTerminal(
      ['preview', 'examples/profiles/shop_JPY_20261201.tsv', '--profile', 'examples/profiles/web-shop.yaml', '--format', 'text'],
      200,
    );
    expect(shop.stdout).toMatch(/currency +\(file name\) +\(file name\) +JPY/);
  });
});
