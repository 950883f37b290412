/**
 * `--profile` on the command line: a bad profile or a file that does not fit it is
 * refused in one line before anything is written; a `when` that discards every line exits 2
 * with a warning; the report and the metrics file name the profile.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { humanLines } from '../support/cli-output.js';
import { CLI, runCli } from '../support/cli-run.js';
import { tempDir, writeTestFile } from '../support/files.js';

const EU = 'examples/profiles/eu-erp.yaml';

async function refused(args: string[], message: RegExp): Promise<void> {
  const dbDir = join(tempDir(), 'db');
  const result = await runCli([...args, '--db', `pglite:${dbDir}`]);
  expect(result.code).toBe(1);
  const lines = humanLines(result.stderr);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(message);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(existsSync(dbDir)).toBe(false);
}

describe.skipIf(!existsSync(CLI))('load --profile', () => {
  it('an unknown key, a YAML number for text, a file that is not YAML: one line, exit 1, no database made', async () => {
    const csv = 'examples/profiles/eu-erp.csv';
    const unknown = writeTestFile(`${readFileSync(EU, 'utf8')}colour: red\n`, 'p.yaml');
    await refused(['load', '--profile', unknown, csv], /^order-loader: profile .*p\.yaml: colour: unknown key \(line \d+\)$/);
    const number = writeTestFile(readFileSync(EU, 'utf8').replace("default: 'EUR'", 'default: 978'), 'p.yaml');
    await refused(
      ['load', '--profile', number, csv],
      /columns\.currency\.default: YAML reads 978 as a number: quote it \("978"\) \(line \d+\)$/,
    );
    const notYaml = writeTestFile('version: 1\n  columns: : :\n\t- x', 'p.yaml');
    await refused(['load', '--profile', notYaml, csv], /^order-loader: profile .*p\.yaml: not a YAML or JSON profile: /);
    await refused(['stage', '--dry-run', '--profile', join(tempDir(), 'none.yaml'), csv], /profile .*none\.yaml: no such file$/);
  });

  it('a column named in the profile but missing from the header is refused before the database is opened', async () => {
    const file = writeTestFile(
      Buffer.from('Banner\nAuftragsnr;Kunde;Datum;Summe;Währung;Status\n1;2;01.12.2026;1,00;EUR;offen\n', 'latin1'),
    );
    await refused(
      ['load', '--profile', EU, file],
      /profile eu-erp: columns\.amount\.column: column "Betrag" is not in the header of .* \(line 2: Auftragsnr, Kunde, Datum, Summe, Währung, Status\)$/,
    );
  });

  it('a `when` that discards every line: exit 2 with a warning; the report and metrics name the profile', async () => {
    const dir = tempDir();
    const file = writeTestFile(
      Buffer.from('Banner\nAuftragsnr;Kunde;Datum;Betrag;Währung;Status\n1;2;01.12.2026;1,00;EUR;storniert\n', 'latin1'),
    );
    const metrics = join(dir, 'run.prom');
    const result = await runCli(['load', '--profile', EU, file, '--db', `pglite:${join(dir, 'db')}`, '--metrics-file', metrics]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/profile eu-erp discarded every line \(1\): nothing was loaded from it/);
    expect(result.stdout).toMatch(/read with profile eu-erp \(sha256 [0-9a-f]{12}\)/);
    expect(result.stdout).toMatch(/1 line\(s\) discarded by the profile/);
    // the closing hint says what happened: nothing is in `errors` to fix
    expect(result.stdout).toMatch(/1 file\(s\) had every line discarded by the profile/);
    expect(result.stdout).not.toMatch(/some rows are ERROR or were rejected/);
    expect(readFileSync(metrics, 'utf8')).toMatch(/^order_loader_last_run_exit_code\{command="load",profile="eu-erp"\} 2$/m);
    const dry = await runCli(['load', '--dry-run', '--profile', EU, file]);
    expect(dry.code).toBe(2);
  });
});

describe.skipIf(!existsSync(CLI))('lines that are not orders', () => {
  const PIPE = `version: 1
delimiter: "|"
when: { column: "No", not_in: ["TOTAL"] }
columns:
  source_key: { column: "No" }
  customer_id: { column: "Customer" }
  order_date: { column: "Date", date: "YYYY-MM-DD" }
  amount: { column: "Amount" }
  currency: { column: "Currency" }
`;

  it('a trailer with fewer fields is discarded by when:, not rejected for its field count', async () => {
    const profile = writeTestFile(PIPE, 'pipe.yaml');
    const file = writeTestFile('No|Customer|Date|Amount|Currency\nA-1|1|2026-12-01|16399.50|JPY\nTOTAL|1|16399.50\n', 'orders.txt');
    const dry = await runCli(['load', '--dry-run', '--profile', profile, file, '--json']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/"rejected":0/);
    expect(dry.stdout).toMatch(/"discarded":1/);
  });

  it('a file whose every line was discarded: the warning and the closing hint name the rule that did it', async () => {
    const dir = tempDir();
    const byWhen = writeTestFile(PIPE, 'pipe.yaml');
    const totals = writeTestFile('No|Customer|Date|Amount|Currency\nTOTAL|0|0\n', 'orders.txt');
    const when = await runCli(['load', '--profile', byWhen, totals, '--db', `pglite:${join(dir, 'db')}`]);
    expect(when.code).toBe(2);
    expect(when.stderr).toMatch(/discarded every line \(1\): nothing was loaded from it \(check when: \(1 line\(s\)\)\)/);
    expect(when.stdout).toMatch(/1 file\(s\) had every line discarded by the profile \(when: 1 line\(s\)\): .*check the profile's when:/);
    const byComment = writeTestFile(PIPE.replace('when: { column: "No", not_in: ["TOTAL"] }', 'comment: "#"'), 'pipe.yaml');
    const comments = writeTestFile('No|Customer|Date|Amount|Currency\n#A-1|1|2026-12-01|1|JPY\n', 'orders.txt');
    const comment = await runCli(['load', '--profile', byComment, comments, '--db', `pglite:${join(dir, 'db')}`]);
    expect(comment.code).toBe(2);
    expect(comment.stderr).toMatch(/discarded every line \(1\): nothing was loaded from it \(check comment: \\?"#\\?" \(1 line\(s\)\)\)/);
    expect(comment.stdout).toMatch(
      /had every line discarded by the profile \(comment: or skip_lines: 1 line\(s\)\): .*check the profile's comment: and skip_lines:/,
    );
  });
});
