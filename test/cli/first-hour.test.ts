import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempDir, writeTestFile } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { REPO_ROOT as root, runCli, spawnCli } from '../support/cli-run.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const run = (args: string[], env: Record<string, string> = {}) => runCli(args, { env });

const logRecords = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { level: number; msg: string; [k: string]: unknown });

describe.skipIf(unavailable(NEEDS.cli))('what a person meets in the first hour (built CLI)', () => {
  it.each([
    [['help'], 'Usage: order-loader <command>'],
    [['--help'], 'Usage: order-loader <command>'],
    [['-h'], 'Usage: order-loader <command>'],
    [['help', 'load'], 'Usage: order-loader load <file…>'],
    [['load', '--help'], 'Usage: order-loader load <file…>'],
    [['stage', '-h'], 'Usage: order-loader stage <file…>'],
    [['recover', '--help'], '--older-than <d>     a number with ms, s, m or h (a bare number is minutes); default 15m'],
    [['runs', '--help'], 'default 20'],
  ])('%j prints the usage and exits 0', async (args, text) => {
    const result = await run(args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(text);
  });

  it('the bin prints what the command line run in-process prints (the other tests run it in-process)', async () => {
    for (const args of [['--help'], ['help', 'frobnicate']]) expect(spawnCli(args)).toEqual(await run(args));
  });

  it('help for an unknown command is an error', async () => {
    const result = await run(['help', 'frobnicate']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('unknown command "frobnicate"');
  });

  it('the --encoding error lists the spellings docs/files.md documents', async () => {
    const result = await run(['load', 'x.csv', '--encoding', 'latin1']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('order-loader: --encoding: --encoding must be one of utf-8, shift_jis, cp932, windows-31j, euc-jp\n');
    const page = readFileSync(`${root}docs/files.md`, 'utf8');
    for (const name of ['utf-8', 'shift_jis', 'cp932', 'windows-31j', 'euc-jp']) expect(page).toContain(`\`${name}\``);
  });

  it('a file missing a column is refused before the database is opened: no database is created', async () => {
    const dir = tempDir();
    const result = await run(['load', writeTestFile('source_key,amount\nA,1\n'), '--db', `pglite:${dir}/db`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('line 1: missing required columns customer_id, order_date, currency');
    expect(existsSync(`${dir}/db`)).toBe(false);
  });

  it('the error that ends a command reaches --log-file, and an info line says how the run ended', async () => {
    const log = `${tempDir()}/run.log`;
    const result = await run(['status', '--db', 'postgres://loader@127.0.0.1:1/nowhere', '--log-file', log]);
    expect(result.code).toBe(1);
    const records = logRecords(log);
    const failure = records.find((r) => r.level === 50);
    expect(failure?.msg).toMatch(/^status failed: cannot .*postgres:\/\/loader@127\.0\.0\.1:1\/nowhere/);
    expect(records.at(-1)).toMatchObject({ level: 30, command: 'status', exitCode: 1, msg: 'status ended with exit code 1' });
    expect(records.at(-1)?.durationMs).toEqual(expect.any(Number));
  });

  it('the end-of-run line of a load names its run, counts and exit code', async () => {
    const log = `${tempDir()}/run.log`;
    const result = await run(['load', 'fixtures/orders-sample.csv', '--db', (await migratedPgliteDb()).url, '--log-file', log]);
    expect(result.code).toBe(2);
    expect(logRecords(log).at(-1)).toMatchObject({
      level: 30,
      command: 'load',
      exitCode: 2,
      runIds: [1],
      msg: 'load ended with exit code 2',
      files: [{ file: 'fixtures/orders-sample.csv', loadId: 1, read: 4, inserted: 4, rejected: 0, tally: { DONE: 2, ERROR: 2 } }],
      process: { done: 2, error: 2 },
    });
  });
});
