/**
 * Mistakes in the arguments are refused in one line, exit 1, before any work: no stack trace,
 * and nothing done (the database is not even created).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderFile, tempDir, writeTestFile } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { humanLines } from '../support/cli-output.js';
import { CLI as cli, runCli } from '../support/cli-run.js';
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

  it('a log file that fails in the middle (a full device) does not fail the command: said once, the load goes on', async () => {
    const { url: db } = await migratedPgliteDb();
    const result = await run([
      'load',
      orderFile([['LF-1', '1', '2026-01-01', '1', 'EUR']]),
      '--db',
      db,
      '--log-file',
      '/dev/full',
      '--log-level',
      'info',
    ]);
    expect(humanLines(result.stderr)).toEqual([
      'order-loader: cannot write to --log-file /dev/full (ENOSPC: no space left on the device): logging stops, the command goes on',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('1 DONE');
  });
});

/** A tiny file system, filled up: root only (mount). */
const full = join(tempDir(), 'full');
let mounted = false;
try {
  if (process.getuid?.() === 0 && existsSync(cli)) {
    execFileSync('mkdir', ['-p', full]);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8k', 'tmpfs', full], { stdio: 'ignore' });
    mounted = true;
  }
} catch {
  mounted = false;
}

describe.skipIf(unavailable(NEEDS.cli) || !mounted)('--log-file on a full device', () => {
  beforeAll(() => {
    try {
      for (let i = 0; ; i++) writeFileSync(join(full, `fill${i}`), Buffer.alloc(4096));
    } catch {
      // full
    }
  });
  afterAll(() => {
    execFileSync('umount', [full]);
    rmSync(full, { recursive: true, force: true });
  });
  it('is refused before any work', async () => {
    const log = join(full, 'x.log');
    await expectRefused(['status', '--log-file', log], `--log-file ${log}: the device is full`);
    expect(readFileSync(log, 'utf8')).toBe('');
  });
});
