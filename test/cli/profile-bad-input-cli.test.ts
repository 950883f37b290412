/**
 * Bad profiles and bad files from the command line, the cases not already run in
 * profile-cli.test.ts: a date mask that matches none of the first 1,000 lines is said once and
 * every line is still rejected on its own (nothing coerced); fixed fields out of range are
 * refused in one line before a database is made.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { humanLines } from '../support/cli-output.js';
import { CLI, runCli } from '../support/cli-run.js';
import { tempDir, writeTestFile } from '../support/files.js';

const EU = 'examples/profiles/eu-erp.yaml';

describe.skipIf(!existsSync(CLI))('load --profile with bad input', () => {
  it('a date mask that matches none of the first 1,000 lines: one warning, then each line rejected with its line number', async () => {
    // ISO dates where the profile says DD.MM.YYYY or YYYY/MM/DD
    const lines = Array.from({ length: 1200 }, (_, i) => `${i + 1};7;2026-12-01;5,00;EUR;offen;`);
    const file = writeTestFile(
      Buffer.from(`Banner\r\nAuftragsnr;Kunde;Datum;Betrag;Währung;Status;Bemerkung\r\n${lines.join('\r\n')}\r\n`, 'latin1'),
    );
    const dir = tempDir();
    for (const args of [
      ['load', '--dry-run', '--profile', EU, file, '--json'],
      ['load', '--profile', EU, file, '--db', `pglite:${join(dir, 'db')}`, '--json'],
    ]) {
      const result = await runCli(args);
      expect(result.code, args.join(' ')).toBe(2);
      // a warning of the log (a JSON line on stderr)
      const warnings = result.stderr.split('\n').filter((l) => l.includes('no value of the first'));
      expect(warnings, result.stderr).toHaveLength(1);
      expect((JSON.parse(warnings[0] ?? '{}') as { level: number; msg: string }).level).toBe(40);
      expect((JSON.parse(warnings[0] ?? '{}') as { msg: string }).msg).toContain(
        'profile eu-erp: columns.order_date: no value of the first 1000 line(s) fits date: DD.MM.YYYY,YYYY/MM/DD (column "Datum"; such as "2026-12-01"): each line is rejected',
      );
    }
    const rows = await runCli(['errors', '--db', `pglite:${join(dir, 'db')}`, '--format', 'json']);
    expect(rows.code).toBe(0);
    const errors = (JSON.parse(rows.stdout) as Array<{ lineNo: number; errorCode: string }>).map((e) => [e.lineNo, e.errorCode]);
    expect(errors).toHaveLength(1200);
    expect(errors[0]).toEqual([3, 'PARSE_ORDER_DATE']);
    expect(errors.at(-1)).toEqual([1202, 'PARSE_ORDER_DATE']);
  });

  it('fixed fields out of range (start 0, length 0, past the longest record) or overlapping: one line naming the key, exit 1, no database made', async () => {
    const fixed = (amount: string, when = '[1, 1]') => `version: 1
format: fixed
when: { at: ${when}, equals: "D" }
columns:
  source_key: { at: [2, 4] }
  customer_id: { at: [6, 4] }
  order_date: { at: [10, 8], date: "YYYYMMDD" }
  amount: { at: ${amount} }
  currency: { const: "JPY" }
`;
    const data = writeTestFile('DK001000120261201     5\n', 'f.dat');
    for (const [amount, when, message] of [
      ['[0, 6]', '[1, 1]', /columns\.amount\.at\[0\]: out of range: positions, lengths and column numbers count from 1 \(line 8\)/],
      ['[18, 0]', '[1, 1]', /columns\.amount\.at\[1\]: out of range: .* \(line 8\)$/],
      ['[18, 6]', '[0, 1]', /when\.at\[0\]: out of range: .* \(line 3\)$/],
      [
        '[2000000, 6]',
        '[1, 1]',
        /columns\.amount\.at: out of range: ends at 2000005, past the longest record read \(1048576\) \(line 8\)$/,
      ],
      ['[18, 6]', '[1048576, 2]', /when\.at: out of range: ends at 1048577, .* \(line 3\)$/],
      ['[16, 6]', '[1, 1]', /columns\.amount\.at: overlaps columns\.order_date \(10–17\) \(line 8\)$/],
    ] as const) {
      const profile = writeTestFile(fixed(amount, when), 'p.yaml');
      const dbDir = join(tempDir(), 'db');
      const result = await runCli(['load', '--profile', profile, data, '--db', `pglite:${dbDir}`]);
      expect(result.code, amount).toBe(1);
      const lines = humanLines(result.stderr);
      expect(lines, result.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(message);
      expect(existsSync(dbDir)).toBe(false);
    }
  });
});
