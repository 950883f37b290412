import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { TEST_PG_URL } from '../support/server-url.js';
import { CHILD_NODE_FLAGS, CLEAN_ENV as env, CLI as cli, REPO_ROOT as root, runCli } from '../support/cli-run.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const run = (args: string[]) => runCli([...args, '--log-level', 'warn']);

describe.skipIf(unavailable(NEEDS.cli))('operating commands (built CLI, embedded PGlite)', () => {
  it('errors → fix → load, retry with --set and --reason, status and runs', async () => {
    const dir = tempDir();
    const { url: db } = await migratedPgliteDb();
    expect((await run(['load', 'fixtures/orders-sample.csv', '--db', db])).code).toBe(2);

    const exported = await run(['errors', '--db', db]);
    expect(exported.code).toBe(0);
    const lines = exported.stdout.trim().split('\n');
    expect(lines[0]).toBe('source_key,customer_id,order_date,amount,currency,error_code,error_message,line_no,load_id,raw_record');
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(['SRC-102', 'SRC-103']);
    expect(JSON.parse((await run(['errors', '--db', db, '--format', 'json', '--error-code', 'INVALID_AMOUNT'])).stdout)).toMatchObject([
      { sourceKey: 'SRC-102', phase: 'VALIDATE' },
    ]);

    // retry needs a reason, and validates corrections like a file's values
    const noReason = await run(['retry', '--db', db, '--source-key', 'SRC-102']);
    expect(noReason.code).toBe(1);
    expect(noReason.stderr).toContain('--reason is required');
    const bad = await run(['retry', '--db', db, '--source-key', 'SRC-102', '--set', 'amount=12.345', '--reason', 'x']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--set amount: amount has more than 2 decimals');

    const dry = await run(['retry', '--db', db, '--source-key', 'SRC-102', '--set', 'amount=3500', '--reason', 'fixed', '--dry-run']);
    expect(dry.stdout).toContain('retry: would change 1 row');
    const retry = await run([
      'retry',
      '--db',
      db,
      '--source-key',
      'SRC-102',
      '--set',
      'amount=3500',
      '--reason',
      'supplier resent',
      '--operator',
      'ops-anna',
    ]);
    expect(retry.code).toBe(0);
    expect(retry.stdout).toContain('retry: changed 1 row');
    expect(retry.stdout).toContain('{"process_status":"ERROR","amount":null} → {"process_status":"READY","amount":"3500"}');

    // the export → fix → reload loop for the last one
    const csv = (await run(['errors', '--db', db])).stdout.replace('999999999999.99', '5000');
    const fixed = `${dir}/fixed.csv`;
    writeFileSync(fixed, csv);
    const reload = await run(['load', fixed, '--db', db]);
    expect(reload.code).toBe(0);
    expect(reload.stderr).toContain('ignoring extra column(s) error_code, error_message, line_no, load_id');

    const status = JSON.parse((await run(['status', '--db', db, '--json'])).stdout) as {
      counts: Array<{ status: string; count: number }>;
      runs: unknown[];
    };
    expect(status.counts.reduce((n, c) => n + (c.status === 'DONE' ? c.count : 0), 0)).toBe(4);
    expect(status.runs.length).toBeGreaterThan(0);
    expect((await run(['recover', '--db', db])).stdout).toContain('recover: changed 0 rows');
  }, 240_000); // thirteen commands, each a child process

  it('load --dry-run writes nothing, not even the schema', async () => {
    const dir = tempDir();
    const r = await run(['load', 'fixtures/orders-sample.csv', '--db', `pglite:${dir}/db`, '--dry-run']);
    // as the real load: exit 2, SRC-102 ERROR by validation (SRC-103's overflow only the database finds)
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/orders-sample\.csv\s+4\s+4\s+0\s+0\s+1\s+3/);
    expect(r.stdout).toContain('orders-sample.csv: line 3: INVALID_AMOUNT: amount is missing');
    expect(r.stdout).toContain('rows it refuses in the MERGE');
    expect(existsSync(`${dir}/db`)).toBe(false);
  });
});

const pgUrl = TEST_PG_URL;
describe.skipIf(unavailable(NEEDS.cli, NEEDS.server))('bench (built CLI, server PostgreSQL)', () => {
  const schemas = async () => {
    const client = new pg.Client({ connectionString: pgUrl ?? undefined });
    await client.connect();
    try {
      return (
        await client.query<{ nspname: string }>("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'order\\_loader\\_bench\\_%'")
      ).rows.map((r) => r.nspname);
    } finally {
      await client.end();
    }
  };

  it('measures each combination in a workspace of its own and drops it; writes the chart', async () => {
    const dir = tempDir();
    const before = await schemas();
    const r = await run([
      'bench',
      '--db',
      pgUrl!,
      '--rows',
      '3000',
      '--chunk-sizes',
      '500,2000',
      '--workers',
      '1,2',
      '--chart',
      `${dir}/chart.svg`,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as {
      cases: Array<{ chunkSize: number; workers: number; done: number; error: number; endToEndRowsPerSec: number }>;
    };
    expect(report.cases.map((c) => [c.chunkSize, c.workers])).toEqual([
      [500, 1],
      [500, 2],
      [2000, 1],
      [2000, 2],
    ]);
    for (const c of report.cases) {
      expect(c.done + c.error).toBe(3000);
      expect(c.endToEndRowsPerSec).toBeGreaterThan(0);
    }
    expect(readFileSync(`${dir}/chart.svg`, 'utf8')).toMatch(/^<svg[\s\S]*2 workers[\s\S]*<\/svg>\n$/);
    expect((await schemas()).filter((n) => !before.includes(n))).toEqual([]);
  });

  it('cleans up its workspace when interrupted', async () => {
    const before = await schemas();
    const child = spawn(
      process.execPath,
      [...CHILD_NODE_FLAGS, cli, 'bench', '--db', pgUrl!, '--rows', '200000', '--chunk-sizes', '500', '--log-level', 'info'],
      { cwd: root, env },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (stderr.includes('"msg":"staging"')) {
          clearInterval(poll);
          resolve();
        }
      }, 50);
    });
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain('bench interrupted: the workspace was dropped');
    expect((await schemas()).filter((n) => !before.includes(n))).toEqual([]);
  }, 120_000);
});

describe.skipIf(unavailable(NEEDS.cli))('errors (built CLI, embedded PGlite): every rejected line, streamed, a closed pipe', () => {
  it('lists lines rejected without a stage row under their load; `errors | head -1` ends quietly with exit 0', async () => {
    const dir = tempDir();
    const { url: db } = await migratedPgliteDb();
    // enough rows that the output outgrows a pipe's buffer: head closes it while we still write
    const lines = ['source_key,customer_id,order_date,amount,currency', ',7,2026-01-05,1,JPY', 'K-FC,7,2026-01-05,100'];
    for (let i = 0; i < 1500; i++) lines.push(`E-${i},1,2026-01-01,-${i + 1},JPY`);
    writeFileSync(`${dir}/bad.csv`, `${lines.join('\n')}\n`);
    expect((await run(['load', `${dir}/bad.csv`, '--db', db])).code).toBe(2);

    const listed = await run([
      'errors',
      '--db',
      db,
      '--load-id',
      '1',
      '--error-code',
      'PARSE_SOURCE_KEY',
      '--error-code',
      'PARSE_FIELD_COUNT',
    ]);
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim().split('\n').slice(1)).toEqual([
      ',7,2026-01-05,1,JPY,PARSE_SOURCE_KEY,source_key is missing,2,1,",7,2026-01-05,1,JPY"',
      'K-FC,7,2026-01-05,100,,PARSE_FIELD_COUNT,"expected 5 fields as in the header, found 4",3,1,"K-FC,7,2026-01-05,100"',
    ]);
    const json = JSON.parse((await run(['errors', '--db', db, '--format', 'json', '--limit', '1501'])).stdout) as Array<{
      sourceKey: string | null;
    }>;
    expect(json).toHaveLength(1501);
    expect(json[1500]).toMatchObject({ sourceKey: null, stageId: null, lineNo: 2, rawRecord: ',7,2026-01-05,1,JPY' });

    for (const format of ['csv', 'json']) {
      const piped = spawnSync(
        'bash',
        [
          '-c',
          `"${process.execPath}" ${CHILD_NODE_FLAGS.join(' ')} "${cli}" errors --format ${format} --db "${db}" --log-level warn | head -c 100 >/dev/null; echo "exit=\${PIPESTATUS[0]}"`,
        ],
        {
          cwd: root,
          encoding: 'utf8',
          env,
          timeout: 120_000,
        },
      );
      expect(piped.stderr, format).toBe('');
      expect(piped.stdout.trim(), format).toBe('exit=0');
    }
  }, 300_000);
});
