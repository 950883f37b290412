import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempDir, writeTestFile } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { CLI as cli, runCli } from '../support/cli-run.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const run = (args: string[], env: Record<string, string> = {}) => runCli(args, { env, timeoutMs: 60_000 });

describe.skipIf(unavailable(NEEDS.cli))('the order-loader command (built CLI, embedded PGlite)', () => {
  it('is executable after a build, so that `npx order-loader` runs it (tsc writes it without the x bit)', () => {
    expect(statSync(cli).mode & 0o111).not.toBe(0);
  });

  it('loads the sample: exit 2, a summary, JSON logs on stderr; status --json tells the same', async () => {
    const { url: db } = await migratedPgliteDb();
    const load = await run(['load', 'fixtures/orders-sample.csv', '--db', db]);
    expect(load.code).toBe(2);
    expect(load.stdout).toMatch(/fixtures\/orders-sample\.csv\s+\d+\s+4\s+4\s+0\s+0\s+0\s+2\s+2\s+0/);
    expect(load.stdout).toContain('2 DONE, 2 ERROR (1 by validation, 1 by the database)');
    const logs = load.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; level: number });
    expect(logs.map((l) => l.msg)).toEqual(expect.arrayContaining(['staging', 'staged']));

    const status = await run(['status', '--json', '--db', db, '--log-level', 'silent']);
    expect(status.code).toBe(0);
    const report = JSON.parse(status.stdout) as { counts: Array<{ status: string; count: number }> };
    expect(report.counts.map((c) => [c.status, c.count]).sort()).toEqual([
      ['DONE', 2],
      ['ERROR', 2],
    ]);

    const corrected = await run(['load', 'fixtures/orders-corrected.csv', '--db', db, '--json', '--log-level', 'warn']);
    expect(corrected.code).toBe(0);
    expect(JSON.parse(corrected.stdout)).toMatchObject({ exitCode: 0, files: [{ counts: { updated: 2, unchanged: 2 } }] });

    const runs = await run(['runs', '--json', '--db', db, '--log-level', 'silent']);
    const history = JSON.parse(runs.stdout) as Array<{ status: string; events: Array<{ event: string }> }>;
    expect(history).toHaveLength(2);
    expect(history[1]?.events.map((e) => e.event)).toEqual(['invoked', 'staged_checkpoint', 'staged', 'processed', 'completed']);
  });

  it.each([
    [['load'], 'load: name at least one file'],
    [['load', 'x.csv', '--chunk-size', 'many'], '--chunk-size: --chunk-size must be a whole number'],
    [['load', 'x.csv', '--bogus'], "Unknown option '--bogus'"],
    [['frobnicate'], 'unknown command "frobnicate"'],
    [['load', '/nonexistent/orders.csv', '--db', 'pglite:memory'], '/nonexistent/orders.csv: no such file'],
    [['status', '--db', 'mysql://u:hunter2@h/d'], 'unsupported database "mysql"'],
  ])('%j: one clear line, exit 1, no stack trace', async (args, message) => {
    const result = await run(args);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
    expect(
      result.stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('order-loader:')),
    ).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr + result.stdout).not.toContain('hunter2');
  });

  it('says so in one line when the database is unreachable, without the password', async () => {
    const result = await run(['status', '--db', 'postgres://loader@127.0.0.1:1/nowhere'], { ORDER_LOADER_DB_PASSWORD: 'pw-Zq81-secret' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^order-loader: cannot (open database|prepare the schema on) postgres:\/\/loader@127\.0\.0\.1:1\/nowhere: .*ECONNREFUSED/m,
    );
    expect(result.stderr + result.stdout).not.toContain('pw-Zq81-secret');
  });

  it('a file with a missing column is refused before anything is written', async () => {
    const dir = tempDir();
    const result = await run(['load', writeTestFile('source_key,amount\nA,1\n'), '--db', `pglite:${dir}/db`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('line 1: missing required columns customer_id, order_date, currency');
  });
});
