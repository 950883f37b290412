/**
 * Workbooks the xlsx reader cannot read, through the CLI on PGlite and on server PostgreSQL
 * (when ORDER_LOADER_TEST_PG is set): a zip archive that is no workbook (a zip of CSV files named
 * .xlsx) and a sheet whose cells leave out their reference (the `r` attribute) are refused in
 * one line naming the file, exit 1 as every file that cannot be read, nothing written; with
 * --failed-dir the file is moved there beside its note and the run ends with exit 2.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-run.js';
import { cliTargets, expectNothingWritten, type CliDb } from '../support/cli-targets.js';
import { tempDir, writeTestFile } from '../support/files.js';
import { NEEDS, unavailable } from '../support/requirements.js';
import { NAMED_COLUMNS_PROFILE, storedZip, withoutReferences } from '../support/xlsx.js';

/** A zip of one CSV file, named .xlsx. */
function csvZip(dir: string): string {
  const zip = storedZip([
    { name: 'orders.csv', data: Buffer.from('source_key,customer_id,order_date,amount,currency\nA-1,1,2026-12-01,10,EUR\n') },
  ]);
  const file = join(dir, 'orders.xlsx');
  writeFileSync(file, zip);
  return file;
}

/** A workbook whose cells carry no `r` attribute. */
async function unreferenced(dir: string): Promise<string> {
  const rows = [
    ['Order No', 'Customer', 'Date', 'Amount', 'Currency'],
    ['A-1', '1', '2026-12-01', 10, 'EUR'],
  ];
  const file = join(dir, 'norefs.xlsx');
  writeFileSync(file, await withoutReferences({ name: 'Orders', rows }, 1));
  return file;
}

describe.skipIf(unavailable(NEEDS.cli)).each(cliTargets('xlsx'))('workbooks the reader refuses, through the CLI on $kind', (target) => {
  let db: CliDb | undefined;
  afterEach(async () => {
    await db?.dispose();
    db = undefined;
  });

  it('a zip that is no workbook, and a sheet whose cells have no reference: one line naming the file, exit 1, nothing written', async () => {
    db = await target.create();
    const dir = tempDir();
    const profile = writeTestFile(NAMED_COLUMNS_PROFILE, 'p.yaml');
    const zip = csvZip(dir);
    const r1 = await runCli(['load', '--profile', profile, zip, '--db', db.url, '--log-level', 'silent']);
    expect(r1.code).toBe(1);
    expect(r1.stderr.trim().split('\n')).toEqual([`order-loader: ${zip}: not an xlsx workbook: the zip archive holds no worksheet`]);
    const norefs = await unreferenced(dir);
    const r2 = await runCli(['load', '--profile', profile, norefs, '--db', db.url, '--log-level', 'silent']);
    expect(r2.code).toBe(1);
    expect(r2.stderr.trim().split('\n')).toHaveLength(1);
    expect(r2.stderr).toContain(`sheet "Orders" of ${norefs}: cannot read the sheet (a cell without its reference (no r attribute)`);
    await expectNothingWritten(db);
  });

  it('with --failed-dir: both moved there beside their note, the run ends with exit 2', async () => {
    db = await target.create();
    const inbox = tempDir();
    const failed = tempDir();
    const profile = writeTestFile(NAMED_COLUMNS_PROFILE, 'p.yaml');
    csvZip(inbox);
    await unreferenced(inbox);
    const r = await runCli([
      'load',
      '--profile',
      profile,
      inbox,
      '--failed-dir',
      failed,
      '--settle',
      '0',
      '--db',
      db.url,
      '--log-level',
      'silent',
    ]);
    expect(r.code).toBe(2);
    expect(readdirSync(inbox)).toEqual([]);
    const notes = readdirSync(failed).filter((f) => f.endsWith('.error.txt'));
    expect(notes).toHaveLength(2);
    const text = notes.map((n) => readFileSync(join(failed, n), 'utf8')).join('\n');
    expect(text).toMatch(/orders\.xlsx: not an xlsx workbook: the zip archive holds no worksheet/);
    expect(text).toMatch(/norefs\.xlsx: cannot read the sheet \(a cell without its reference/);
    expect(existsSync(join(inbox, 'orders.xlsx'))).toBe(false);
  });
});
