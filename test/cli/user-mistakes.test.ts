/**
 * Mistakes in the arguments are refused in one line, exit 1, before any work: no stack trace,
 * and nothing done (the database is not even created).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderFile, tempDir, writeTestFile } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { fullDeviceAvailable, mountFullDevice, type FullDevice } from '../support/full-device.js';
import { humanLines } from '../support/cli-output.js';
import { runCli, spawnCli } from '../support/cli-run.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const run = (args: string[]) => runCli(args);

async function expectRefused(args: string[], message: string | RegExp) {
  const dbDir = join(tempDir(), 'db');
  const result = await run([...args, '--db', `pglite:${dbDir}`]);
  expect(result.code).toBe(1);
  const lines = humanLines(result.stderr);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(
    typeof message === 'string' ? new RegExp(`^order-loader: .*${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) : message,
  );
  expect(result.stderr).not.toContain('unexpected error');
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(existsSync(dbDir)).toBe(false);
}

describe.skipIf(unavailable(NEEDS.cli))('mistakes in the arguments: one line, exit 1, nothing done', () => {
  it('--reason over 1000 characters', async () => {
    await expectRefused(['retry', '--all-errors', '--reason', 'x'.repeat(1001)], '--reason: --reason takes at most 1000 characters');
  });

  it.each([
    [
      ['retry', '--stage-id', '99999999999999999999', '--reason', 'r'],
      '--stage-id: --stage-id must be a whole number up to 9007199254740991',
    ],
    [['retry', '--stage-id', '9007199254740993', '--reason', 'r'], '--stage-id: --stage-id must be a whole number up to 9007199254740991'],
    [['errors', '--load-id', '18446744073709551616'], '--load-id: --load-id must be a whole number up to 9007199254740991'],
    [['process', '--max-errors', '99999999999999999999'], '--max-errors: --max-errors must be a whole number up to 9007199254740991'],
    [['recover', '--older-than', '99999999999999999999h'], '--older-than: --older-than takes at most 100 years'],
  ])('%j: a whole number too large to be exact', async (args, message) => {
    await expectRefused(args, message);
  });

  it.each([
    [['status', '--chunk-size', '10'], 'status does not take --chunk-size (order-loader help status lists its options)'],
    [['status', '--format', 'markdown'], 'status does not take --format (order-loader help status lists its options)'],
    [['init', '--dry-run'], 'init does not take --dry-run (order-loader help init lists its options)'],
    [['errors', '--reason', 'x'], 'errors does not take --reason (order-loader help errors lists its options)'],
    [['runs', '--all'], 'runs does not take --all (order-loader help runs lists its options)'],
  ])('%j: an option the command does not take', async (args, message) => {
    await expectRefused(args, message);
  });

  it.each([
    [['load', '--workers', '4'], 'load --workers is refused on PGlite: it has one connection, so one worker processes'],
    [['process', '--workers', '2'], 'process --workers is refused on PGlite: it has one connection, so one worker processes'],
    [['load', '--overlap'], 'load --overlap is refused on PGlite: it has one connection, so staging and processing take turns'],
  ])('%j on PGlite: an option the database cannot honour, before it is made', async (args, message) => {
    const command = args[0] === 'load' ? [...args, orderFile([])] : args;
    await expectRefused(command, message);
  });

  it('--workers 1 on PGlite asks for what it does: not refused', async () => {
    const result = await run(['process', '--workers', '1', '--db', (await migratedPgliteDb()).url]);
    expect(humanLines(result.stderr)).toEqual([]);
    expect(result.code).toBe(0);
  });

  it('--log-file in a folder that cannot be made', async () => {
    const notAFolder = writeTestFile('x');
    await expectRefused(
      ['status', '--log-file', join(notAFolder, 'x.log')],
      `--log-file ${join(notAFolder, 'x.log')}: cannot write there (EEXIST: a file stands where the folder should be)`,
    );
  });

  it('bench --chart in a folder that does not exist: refused before the benchmark runs', async () => {
    const chart = join(tempDir(), 'out', 'x.svg');
    await expectRefused(['bench', '--rows', '10', '--chart', chart], `--chart ${chart}: cannot write there (ENOENT: no such folder)`);
  });

  it('--log-file /dev/full (a device where every write fails) is refused before any work', async () => {
    await expectRefused(['status', '--log-file', '/dev/full'], '--log-file /dev/full: the device is full');
  });
});

/** A tiny file system, filled up: root only (mount). */
describe.skipIf(unavailable(NEEDS.cli) || !fullDeviceAvailable())('--log-file on a full device', () => {
  let full: FullDevice | null = null;
  beforeAll(() => {
    full = mountFullDevice();
  });
  afterAll(() => full?.unmount());

  it('is refused before any work', async () => {
    const log = join(full!.dir, 'x.log');
    await expectRefused(['status', '--log-file', log], `--log-file ${log}: the device is full`);
    expect(readFileSync(log, 'utf8')).toBe('');
  });

  it('a log file that fails in the middle (the device fills up) does not fail the command: said once, the load goes on', async () => {
    // one page free: the first lines of the log fit, the rest do not
    full!.freeOnePage();
    const log = join(full!.dir, 'mid.log');
    const { url: db } = await migratedPgliteDb();
    const rows = Array.from({ length: 40 }, (_, i): [string, string, string, string, string] => [`LF-${i}`, '1', '2026-01-01', '1', 'EUR']);
    // a process of its own: the log file's descriptor ends with it, so the device can be unmounted
    // a batch of one line each: a debug record for each (their rows DONE as they are staged on PGlite)
    const result = spawnCli(['load', orderFile(rows), '--db', db, '--log-file', log, '--log-level', 'debug', '--batch-size', '1']);
    expect(humanLines(result.stderr)).toEqual([
      `order-loader: cannot write to --log-file ${log} (ENOSPC: no space left on the device): logging stops, the command goes on`,
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('40 DONE');
    expect(readFileSync(log, 'utf8')).toMatch(/^\{"level"/);
  });
});
