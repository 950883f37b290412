/**
 * A workbook and a JSON Lines file where every other file goes, through the CLI on PGlite and on
 * server PostgreSQL (when ORDER_LOADER_TEST_PG is set): an inbox routed by `--profiles` (each read
 * with the profile whose `match:` takes its name), `stage` then `process`, a rerun that skips both;
 * and the morning-after loop for a row that came from a workbook: its line of `errors --format csv`
 * corrected and loaded as it is, with the built-in format.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-run.js';
import { cliTargets, type CliDb } from '../support/cli-targets.js';
import { tempDir } from '../support/files.js';
import { NEEDS, unavailable } from '../support/requirements.js';
import { badPartnerWorkbook } from '../support/xlsx.js';

const EXAMPLES = 'examples/profiles';
const KEYS = 'SELECT source_key, amount::text AS amount, process_status AS status FROM order_stage ORDER BY source_key';

/** The example profile with a `match:` for an inbox routed by name. */
function routed(dir: string, name: string, match: string): void {
  writeFileSync(join(dir, name), `match: '${match}'\n${readFileSync(join(EXAMPLES, name), 'utf8')}`);
}

describe.skipIf(unavailable(NEEDS.cli)).each(cliTargets('formats'))('xlsx and JSON Lines wherever a file goes, on $kind', (target) => {
  let db: CliDb | undefined;
  afterEach(async () => {
    await db?.dispose();
    db = undefined;
  });

  it('an inbox routed by --profiles: `stage` reads each with its profile, `process` merges them, a rerun skips both', async () => {
    db = await target.create();
    const root = tempDir();
    const inbox = join(root, 'inbox');
    const profiles = join(root, 'profiles');
    mkdirSync(inbox);
    mkdirSync(profiles);
    copyFileSync(join(EXAMPLES, 'partner-workbook.xlsx'), join(inbox, 'PARTNER_20261201.xlsx'));
    copyFileSync(join(EXAMPLES, 'web-orders.jsonl'), join(inbox, 'WEB_20261201.jsonl'));
    routed(profiles, 'partner-workbook.yaml', 'PARTNER_*.xlsx');
    routed(profiles, 'web-orders.yaml', 'WEB_*.jsonl*');

    const staged = await runCli(['stage', inbox, '--profiles', profiles, '--settle', '0', '--db', db.url, '--json']);
    expect(staged.code, staged.stderr).toBe(0);
    const report = JSON.parse(staged.stdout) as { files: Array<{ file: string; profile?: { name: string } }> };
    expect(report.files.map((f) => [f.file.slice(inbox.length + 1), f.profile?.name])).toEqual([
      ['PARTNER_20261201.xlsx', 'partner-workbook'],
      ['WEB_20261201.jsonl', 'web-orders'],
    ]);
    const rows = await db.sql<{ source_key: string; amount: string; status: string }>(KEYS);
    // the workbook's four orders and the JSON Lines file's, numbers as written (1234.50, 0.1)
    expect(rows.map((r) => r.source_key)).toEqual(expect.arrayContaining(['000123', 'PW-1002', '10000000000000000001', 'W-1002']));
    expect(rows.find((r) => r.source_key === 'PW-1002')?.amount).toBe('1357.95');
    expect(rows.find((r) => r.source_key === 'W-1002')?.amount).toBe('0.10');
    expect(new Set(rows.map((r) => r.status))).toEqual(new Set(['READY']));

    const processed = await runCli(['process', '--db', db.url]);
    expect(processed.code, processed.stderr).toBe(0);
    expect((await db.sql<{ n: number }>('SELECT count(*)::int AS n FROM orders'))[0]?.n).toBe(rows.length);

    const again = await runCli(['load', inbox, '--profiles', profiles, '--settle', '0', '--db', db.url]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr.match(/already staged by load \d+/g)).toHaveLength(2);
  });

  it("the morning-after loop for a workbook's row: its line of `errors --format csv`, corrected, loads with the built-in format", async () => {
    db = await target.create();
    const dir = tempDir();
    const file = await badPartnerWorkbook(dir);
    const loaded = await runCli(['load', '--profile', join(EXAMPLES, 'partner-workbook.yaml'), file, '--db', db.url]);
    expect(loaded.code, loaded.stderr).toBe(2);
    const errors = await runCli(['errors', '--format', 'csv', '--db', db.url]);
    expect(errors.code, errors.stderr).toBe(0);
    const [header = '', ...lines] = errors.stdout.trim().split('\n');
    const line = lines.find((l) => l.includes('PARSE_AMOUNT')) ?? '';
    expect(line).toMatch(/^B-4,7,2026-12-01,twelve,EUR,PARSE_AMOUNT,/);
    const fixed = join(dir, 'fixed.csv');
    writeFileSync(fixed, `${header}\n${line.replace(',twelve,', ',12.00,')}\n`);
    const reloaded = await runCli(['load', fixed, '--db', db.url]);
    expect(reloaded.code, reloaded.stderr).toBe(0);
    const orders = await db.sql<{ source_key: string; amount: string; attributes: string | null }>(
      'SELECT source_key, amount::text AS amount, attributes::text AS attributes FROM orders ORDER BY source_key',
    );
    expect(orders.map((o) => [o.source_key, o.amount])).toEqual([
      ['B-1', '5.25'],
      ['B-4', '12.00'],
      ['B-5', '12.00'],
    ]);
    // the workbook's other column came back with the row, as it was kept the first time
    expect(JSON.parse(orders[1]?.attributes ?? 'null')).toEqual({ Channel: 'shop' });
  });
});
