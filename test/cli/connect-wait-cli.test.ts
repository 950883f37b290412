/**
 * --connect-timeout: a nightly load started while PostgreSQL is down waits for it (backoff, one
 * warn line per wait), and finishes once it is up. "Down" is a port where nothing listens; "up"
 * is a TCP proxy started on that port later, forwarding to the test server. The CLI runs as an
 * asynchronous child process, so that the proxy can start while it waits.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, connect, type Server, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { orderFile, tempDir } from '../support/files.js';
import { CHILD_NODE_FLAGS, CLEAN_ENV, CLI as cli, REPO_ROOT } from '../support/cli-run.js';
import { serverPgTarget, type TestDatabase } from '../support/databases.js';
import { TEST_PG_URL } from '../support/server-url.js';
import { humanLines } from '../support/cli-output.js';
import { sleep } from '../../src/sleep.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const target = serverPgTarget();
const SECRET = 'pw-Kq7-not-in-any-log';

function runCliAsync(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, cli, ...args], {
      cwd: REPO_ROOT,
      env: { ...CLEAN_ENV, ORDER_LOADER_DB_PASSWORD: SECRET },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** A port where nothing listens (for now). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

function startProxy(port: number, to: { host: string; port: number }): Promise<Server> {
  const server = createServer((client) => {
    const upstream = connect(to.port, to.host);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

interface LogRecord {
  level: number;
  msg: string;
  attempt?: number;
  code?: string;
  waitMs?: number;
}
const logRecords = (file: string): LogRecord[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as LogRecord);
const waits = (file: string) => logRecords(file).filter((r) => r.attempt !== undefined);

describe.skipIf(unavailable(NEEDS.cli, NEEDS.server))('--connect-timeout (built CLI, PostgreSQL)', () => {
  let db: TestDatabase | undefined;
  let proxy: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (proxy === undefined ? resolve() : proxy.close(() => resolve())));
    proxy = undefined;
    await db?.dispose();
    db = undefined;
  });

  it('PostgreSQL down at start for some seconds, then up: the load waits, then finishes', async () => {
    db = await (target as NonNullable<typeof target>).create();
    const real = new URL(db.url ?? '');
    const port = await freePort();
    const url = `postgres://postgres@127.0.0.1:${port}${real.pathname}`;
    const log = join(tempDir(), 'load.log');
    const file = orderFile([
      ['CW-1', '1', '2026-01-01', '10.00', 'EUR'],
      ['CW-2', '2', '2026-01-02', '20.00', 'EUR'],
    ]);
    const running = runCliAsync(['load', file, '--db', url, '--connect-timeout', '1m', '--log-file', log, '--log-level', 'info']);
    // the first attempts are refused; the database "comes up" (the proxy starts) once the
    // command has logged two waits
    for (let tries = 0; tries < 600 && (!existsSync(log) || waits(log).length < 2); tries++) await sleep(100);
    proxy = await startProxy(port, { host: real.hostname, port: Number(real.port || 5432) });
    const result = await running;
    expect(humanLines(result.stderr)).toEqual([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('2 DONE');
    const waited = waits(log);
    // 1 s, 2 s, …: at least the two waits seen before the proxy listened
    expect(waited.length).toBeGreaterThanOrEqual(2);
    expect(waited.map((w) => w.attempt)).toEqual(waited.map((_, i) => i + 1));
    for (const w of waited) {
      expect(w.level).toBe(40); // warn
      expect(w.code).toBe('ECONNREFUSED');
      expect(w.msg).toMatch(
        /^database postgres:\/\/postgres@127\.0\.0\.1:\d+\/\S+ not reachable \(ECONNREFUSED\), attempt \d+: trying again in/,
      );
    }
    expect(waited[1]?.waitMs).toBe(2 * (waited[0]?.waitMs ?? 0));
    expect(readFileSync(log, 'utf8')).not.toContain(SECRET);
    const rows = await db.sql<{ n: number }>('SELECT count(*)::int AS n FROM orders');
    expect(rows[0]?.n).toBe(2);
  });

  it('--connect-timeout 0: exit 1 at once, one clear line, no wait', async () => {
    const port = await freePort();
    const log = join(tempDir(), 'load.log');
    const file = orderFile([['CW-3', '1', '2026-01-01', '10.00', 'EUR']]);
    const result = await runCliAsync([
      'load',
      file,
      '--db',
      `postgres://postgres@127.0.0.1:${port}/x`,
      '--connect-timeout',
      '0',
      '--log-file',
      log,
    ]);
    expect(result.code).toBe(1);
    expect(humanLines(result.stderr)).toEqual([
      `order-loader: cannot open database postgres://postgres@127.0.0.1:${port}/x: cannot connect to 127.0.0.1:${port} (ECONNREFUSED: nothing listens there)`,
    ]);
    expect(waits(log)).toEqual([]);
  });

  it('still down when the time is up: exit 1 saying how long it tried', async () => {
    const port = await freePort();
    const log = join(tempDir(), 'load.log');
    const file = orderFile([['CW-4', '1', '2026-01-01', '10.00', 'EUR']]);
    const result = await runCliAsync([
      'load',
      file,
      '--db',
      `postgres://postgres@127.0.0.1:${port}/x`,
      '--connect-timeout',
      '3s',
      '--log-file',
      log,
    ]);
    expect(result.code).toBe(1);
    expect(humanLines(result.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^order-loader: cannot open database postgres://postgres@127\\.0\\.0\\.1:${port}/x: cannot connect to 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED: nothing listens there\\); still unreachable after [3-5] attempts in [3-5] s \\(--connect-timeout\\)$`,
        ),
      ),
    ]);
    // waits of 1 s, 2 s, then what is left of the 3 s
    expect(waits(log).map((w) => w.attempt)).toEqual(waits(log).map((_, i) => i + 1));
    expect(waits(log).length).toBeGreaterThanOrEqual(2);
  });

  it('a database that does not exist is not waited on, whatever the timeout', async () => {
    const real = new URL(TEST_PG_URL ?? '');
    const log = join(tempDir(), 'load.log');
    const file = orderFile([['CW-5', '1', '2026-01-01', '10.00', 'EUR']]);
    const url = `postgres://postgres@${real.host}/order_loader_no_such_db`;
    const result = await runCliAsync(['load', file, '--db', url, '--connect-timeout', '5m', '--log-file', log]);
    expect(result.code).toBe(1);
    expect(humanLines(result.stderr).join('\n')).toContain('database order_loader_no_such_db does not exist');
    expect(waits(log)).toEqual([]);
    expect(result.ms).toBeLessThan(60_000);
  });
});
