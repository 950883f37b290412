import { describe, expect, it } from 'vitest';
import { HEADER, writeTestFile } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { runCli } from '../support/cli-run.js';
import { NEEDS, unavailable } from '../support/requirements.js';

async function load(args: string[]) {
  const result = await runCli(['load', ...args, '--json', '--log-level', 'silent']);
  expect(result.stderr).toBe('');
  return {
    code: result.code,
    report: JSON.parse(result.stdout) as {
      files: Array<{
        loadId: number;
        skipped: string | null;
        counts: { read: number; rejected: number; inserted: number; unchanged: number };
      }>;
    },
  };
}

describe.skipIf(unavailable(NEEDS.cli))('load --encoding after a mistake, and --restage (built CLI, PGlite)', () => {
  it('stages the file read right, skips it when read the same way, stages it again with --restage', async () => {
    const { url: db } = await migratedPgliteDb();
    const file = writeTestFile(
      Buffer.concat([
        Buffer.from(`${HEADER}\r\n`),
        Buffer.from([0x92, 0x8d, 0x95, 0xb6, 0x2d, 0x88, 0xeb]),
        Buffer.from(',1,2026-01-01,1,JPY\r\n'),
      ]),
    );
    // read as UTF-8 (the default): refused before the database is touched, naming the option
    const wrong = await runCli(['load', file, '--db', db, '--log-level', 'silent']);
    expect([wrong.code, wrong.stdout]).toEqual([1, '']);
    expect(wrong.stderr).toBe(
      `order-loader: ${file}: not UTF-8 (byte 0x92 at offset ${HEADER.length + 2}, line 2); it reads as Shift_JIS: load it with --encoding shift_jis\n`,
    );
    const right = await load([file, '--db', db, '--encoding', 'shift_jis']);
    expect(right).toMatchObject({ code: 0, report: { files: [{ skipped: null, counts: { read: 1, inserted: 1 } }] } });
    const same = await load([file, '--db', db, '--encoding', 'shift_jis']);
    expect(same.report.files[0]?.skipped).toContain('already staged');
    const again = await load([file, '--db', db, '--encoding', 'shift_jis', '--restage']);
    expect(again).toMatchObject({ code: 0, report: { files: [{ skipped: null, counts: { read: 1, unchanged: 1 } }] } });
    expect(again.report.files[0]?.loadId).toBeGreaterThan(right.report.files[0]?.loadId ?? Infinity);
  });
});
