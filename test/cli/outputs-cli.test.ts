/**
 * What the built CLI prints: one JSON document with --json also when it fails, init's list of
 * applied migrations, run events on a terminal, a cut-short bench case never shown as a result,
 * and no line forged by a control character in a name.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { orderFile, tempDir, writeTestFile } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { TEST_PG_URL } from '../support/server-url.js';
import { humanLines } from '../support/cli-output.js';
import { listMigrations } from '../../src/sql-files.js';
import { createDatabase, dropDatabase } from '../../bench/pg-admin.js';
import { CHILD_NODE_FLAGS, CLEAN_ENV as env, CLI as cli, REPO_ROOT as root, runCli } from '../support/cli-run.js';
import { NEEDS, unavailable } from '../support/requirements.js';

/** Every PostgreSQL migration, in the order a fresh database applies them. */
const ALL_MIGRATIONS = listMigrations('postgres').map((m) => m.name);

const pgUrl = TEST_PG_URL;

const run = (args: string[], extraEnv: Record<string, string> = {}) => runCli(args, { env: extraEnv });

/** An empty database for the CLI: a PGlite directory, or a fresh database on the server (no template, no schema). */
interface CliDb {
  url: string;
  dispose(): Promise<void>;
}
/**
 * `migrated`: a database whose schema is not what the test is about: on PGlite a copy of a
 * migrated folder (a new folder's initdb costs its first command about 7 s of CPU); on the
 * server an empty one, as `create` (its first command migrates it).
 */
const targets: Array<{ kind: string; create(): Promise<CliDb>; migrated(): Promise<CliDb> }> = [
  {
    kind: 'pglite',
    create: async () => ({ url: `pglite:${tempDir()}/db`, dispose: async () => {} }),
    migrated: async () => ({ url: (await migratedPgliteDb()).url, dispose: async () => {} }),
  },
];
if (pgUrl !== null) {
  let n = 0;
  const create = async () => {
    const name = `order_loader_cli_${process.pid}_${Date.now().toString(36)}_${++n}`;
    return { url: await createDatabase(pgUrl, name), dispose: () => dropDatabase(pgUrl, name) };
  };
  targets.push({ kind: 'postgres', create, migrated: create });
} else {
  unavailable(NEEDS.server);
}

/** stdout must be exactly one JSON document. */
function jsonDocument(stdout: string): unknown {
  expect(stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(stdout) as unknown;
}

describe.skipIf(unavailable(NEEDS.cli))('--json when the command fails (exit 1), without a database', () => {
  it.each([
    [['load', 'x.csv', '--chunk-size', 'many', '--json'], 'user', '--chunk-size must be a whole number'],
    [['frobnicate', '--json'], 'user', 'unknown command'],
    [['load', '/nonexistent/orders.csv', '--db', 'pglite:memory', '--json'], 'user', 'no such file'],
  ])('%j: one JSON document with the error', async (args, kind, message) => {
    const r = await run(args);
    expect(r.code).toBe(1);
    const doc = jsonDocument(r.stdout) as { error: { kind: string; message: string }; exitCode: number };
    expect(doc).toMatchObject({ error: { kind }, exitCode: 1 });
    expect(doc.error.message).toContain(message);
    expect(r.stderr).toContain(message);
  });

  it('an unreachable database: kind database, and never the password', async () => {
    const r = await run(['status', '--db', 'postgres://loader@127.0.0.1:1/nowhere', '--json'], {
      ORDER_LOADER_DB_PASSWORD: 'pw-Zq81-secret',
    });
    expect(r.code).toBe(1);
    const doc = jsonDocument(r.stdout) as { error: { kind: string; message: string } };
    expect(doc.error.kind).toBe('database');
    expect(doc.error.message).toMatch(/postgres:\/\/loader@127\.0\.0\.1:1\/nowhere: .*ECONNREFUSED/);
    expect(r.stdout + r.stderr).not.toContain('pw-Zq81-secret');
  });

  it('a file name holding a newline cannot forge a line on stderr', async () => {
    const r = await run(['load', '/nonexistent/a\norder-loader: all rows DONE.csv', '--db', 'pglite:memory']);
    expect(r.code).toBe(1);
    expect(humanLines(r.stderr)).toEqual([
      'order-loader: /nonexistent/a\\norder-loader: all rows DONE.csv: no such file or directory (an input folder is never created: is it mounted?)',
    ]);
  });
});

describe.skipIf(unavailable(NEEDS.cli)).each(targets)('the CLI on $kind', (target) => {
  let db: CliDb | undefined;
  afterEach(async () => {
    await db?.dispose();
    db = undefined;
  });

  it('init on a fresh database lists the migrations it applied, then says the schema is up to date; runs shows its events', async () => {
    db = await target.create();
    const first = await run(['init', '--db', db.url, '--json', '--log-level', 'warn']);
    expect(first.code, first.stderr).toBe(0);
    expect(ALL_MIGRATIONS.slice(0, 3)).toEqual(['001_schema', '002_merge_functions', '003_pinned_plans']);
    // a new PGlite database starts as a copy of the ready-made migrated one (dist/pglite-ready, made
    // by the build) when there is one: init then has nothing left to apply
    const manifest = `${root}dist/pglite-ready/pglite-ready.json`;
    const inReadyMade =
      target.kind === 'pglite' && existsSync(manifest)
        ? (JSON.parse(readFileSync(manifest, 'utf8')) as { migrations: Array<{ name: string }> }).migrations.map((m) => m.name)
        : [];
    const expected = ALL_MIGRATIONS.filter((name) => !inReadyMade.includes(name));
    expect(jsonDocument(first.stdout)).toEqual({ applied: expected });
    const second = await run(['init', '--db', db.url, '--log-level', 'warn']);
    expect(second.stdout.trim()).toBe('schema is up to date');

    // on a terminal (text output) the events are shown under each run
    const runs = await run(['runs', '--db', db.url, '--log-level', 'warn']);
    expect(runs.code).toBe(0);
    const lines = runs.stdout.trim().split('\n');
    expect(lines[1]).toMatch(/^\s*2\s+init\s+COMPLETED/);
    expect(lines.slice(2, 5).map((l) => l.trim().split(/\s+/)[1])).toEqual(['invoked', 'migrated', 'completed']);
    expect(lines[3]).toContain('{"applied":[]}');
    expect(lines[5]).toMatch(/^\s*1\s+init\s+COMPLETED/);
    // the text view cuts a long event detail with '…': what it shows is the start of the whole
    const detail = (lines[7] ?? '').trim().split(/\s+/).slice(2).join(' ');
    const whole = JSON.stringify({ applied: expected });
    expect(detail.endsWith('…') ? whole.startsWith(detail.slice(0, -1)) && detail.length > 40 : detail === whole, detail).toBe(true);
  }, 240_000);

  it('a missing column with --json: one JSON document with the error, exit 1', async () => {
    db = await target.create();
    const r = await run(['load', writeTestFile('source_key,amount\nA,1\n'), '--db', db.url, '--json', '--log-level', 'warn']);
    expect(r.code).toBe(1);
    expect(jsonDocument(r.stdout)).toEqual({
      error: { kind: 'user', message: expect.stringContaining('missing required columns customer_id, order_date, currency') as unknown },
      exitCode: 1,
    });
  }, 240_000);

  it.skipIf(target.kind !== 'postgres')(
    'a chunk the database refuses as a whole (not a row) with --json: the run gives up, one JSON document, exit 1',
    async () => {
      db = await target.create();
      expect((await run(['init', '--db', db.url, '--log-level', 'warn'])).code).toBe(0);
      // a privilege error is about the statement, not a row: the MERGE re-raises it and the chunk fails whole
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        await client.query(`CREATE FUNCTION test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'injected: permission denied for table orders' USING ERRCODE = '42501'; END $$`);
        await client.query('CREATE TRIGGER test_refuse BEFORE INSERT OR UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION test_refuse()');
      } finally {
        await client.end();
      }
      const r = await run(['load', 'fixtures/orders-corrected.csv', '--db', db.url, '--json', '--log-level', 'warn']);
      expect(r.code).toBe(1);
      const doc = jsonDocument(r.stdout) as { error: { kind: string; message: string }; exitCode: number };
      expect(doc).toMatchObject({ error: { kind: 'database' }, exitCode: 1 });
      expect(doc.error.message).toMatch(/^chunk \S+ failed: .*permission denied/);
    },
    240_000,
  );

  it('a skipped file: the process rate is rows processed over processing time, not lines read', async () => {
    db = await target.migrated();
    const rows = Array.from({ length: 2000 }, (_, i): [string, string, string, string, string] => [
      `K-${i}`,
      '1',
      '2026-01-01',
      '10',
      'JPY',
    ]);
    const file = orderFile(rows);
    expect((await run(['stage', file, '--db', db.url, '--log-level', 'warn'])).code).toBe(0);
    const r = await run(['load', file, '--db', db.url, '--log-level', 'warn']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('staging skipped');
    expect(r.stdout).toMatch(/stage [\d.]+ s \(0 lines read, 0 lines\/s\), process [\d.]+ s \(2000 rows, [1-9]\d* rows\/s\)/);
  }, 240_000);

  it("elapsed is the whole command's time, opening and migrating the database included, with its parts", async () => {
    // a new database: opening it migrates it, the longest part of a first load
    db = await target.create();
    const file = orderFile([['E-1', '1', '2026-01-01', '10', 'JPY']]);
    const r = await run(['load', file, '--db', db.url, '--log-level', 'warn']);
    expect(r.code, r.stderr).toBe(0);
    const m = /^elapsed ([\d.]+) s: open and migrate the database ([\d.]+) s, stage ([\d.]+) s .*, process ([\d.]+) s /m.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    const [total, open, stage, processing] = (m ?? []).slice(1).map(Number) as [number, number, number, number];
    expect(open).toBeGreaterThan(0);
    // PGlite runs its phases in sequence; a server database processes while staging (overlap),
    // so there the parts overlap and only the longer of the two is bounded by the whole
    const phases = target.kind === 'pglite' ? stage + processing : Math.max(stage, processing);
    expect(total).toBeGreaterThanOrEqual(open + phases - 0.02);
    const json = await run(['process', '--db', db.url, '--json', '--log-level', 'warn']);
    const doc = JSON.parse(json.stdout) as { commandMs: number; openMs: number; elapsedMs: number };
    expect(doc.commandMs).toBeGreaterThanOrEqual(doc.openMs + doc.elapsedMs);
  }, 240_000);

  it('bench interrupted: says so, reports and charts only complete cases, records a FAILED bench run', async () => {
    db = await target.migrated();
    const dir = tempDir();
    const child = spawn(
      process.execPath,
      [
        ...CHILD_NODE_FLAGS,
        cli,
        'bench',
        '--db',
        db.url,
        '--rows',
        '200000',
        '--chunk-sizes',
        '500',
        '--workers',
        '1',
        '--chart',
        `${dir}/chart.svg`,
        '--json',
        '--log-level',
        'info',
      ],
      { cwd: root, env },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (stderr.includes('"msg":"staging"') || child.exitCode !== null) {
          clearInterval(poll);
          resolve();
        }
      }, 50);
    });
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) =>
      child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', resolve),
    );
    expect(code, stderr).toBe(1);
    const report = jsonDocument(stdout) as { interrupted: boolean; interruptedCase: unknown; cases: unknown[] };
    expect(report).toMatchObject({ interrupted: true, interruptedCase: { chunkSize: 500, workers: 1 }, cases: [] });
    expect(readFileSync(`${dir}/chart.svg`, 'utf8')).not.toContain('<circle');
    const runs = JSON.parse((await run(['runs', '--db', db.url, '--json', '--log-level', 'silent'])).stdout) as Array<{
      command: string;
      status: string;
      message: string;
      events: Array<{ event: string }>;
    }>;
    expect(runs[0]).toMatchObject({ command: 'bench', status: 'FAILED' });
    expect(runs[0]?.message).toContain('interrupted during chunk size 500, 1 worker(s)');
    expect(runs[0]?.events.map((e) => e.event)).toEqual(['invoked', 'failed']);
  }, 240_000);
});
