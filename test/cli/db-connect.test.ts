/**
 * Connecting from the command line: the password variable with postgres:// URLs (against a
 * private server that requires a password, scram-sha-256), URL shapes that must never print the
 * password, and failures to connect named in one line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderFile, tempDir } from '../support/files.js';
import { PrivatePostgres } from '../survival/private-postgres.js';
import { humanLines } from '../support/cli-output.js';
import { runCli, spawnCli } from '../support/cli-run.js';
import { TEST_PG_URL } from '../support/server-url.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const run = (args: string[], env: Record<string, string> = {}) => runCli(args, { env, timeoutMs: 30_000, killSignal: 'SIGKILL' });
/** The bin as a child process: whether the process ends is the question. */
const spawned = (args: string[], env: Record<string, string> = {}) =>
  // a failed login once left the process waiting for the server's authentication_timeout (60 s);
  // SIGTERM would be handled (finish the chunk, then stop)
  spawnCli(args, { env, timeoutMs: 30_000, killSignal: 'SIGKILL' });

/** Special characters of every kind a URL gives a meaning to. */
const PASSWORD = 'S3cr@t/pa?ss#wo:rd%41';

describe.skipIf(unavailable(NEEDS.cli, NEEDS.privatePostgres))('a PostgreSQL server that requires a password (scram-sha-256)', () => {
  let server: PrivatePostgres;
  let n = 0;
  beforeAll(async () => {
    server = await PrivatePostgres.create({ password: PASSWORD });
  });
  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed
    await server?.destroy();
  });
  const database = async () => (await server.createDatabase(`pw_${++n}`)).url.replace(/^postgres:\/\/postgres@/, '');

  function expectNoSecret(...texts: string[]) {
    for (const text of texts) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(encodeURIComponent(PASSWORD));
      expect(text).not.toContain('S3cr@t');
    }
  }

  it('ORDER_LOADER_DB_PASSWORD works with a postgres:// URL; nothing prints it', async () => {
    const db = `postgres://postgres@${await database()}`;
    const logFile = join(tempDir(), 'load.log');
    const load = await run(
      ['load', orderFile([['PW-1', '1', '2026-01-01', '10', 'EUR']]), '--db', db, '--log-file', logFile, '--log-level', 'debug'],
      { ORDER_LOADER_DB_PASSWORD: PASSWORD },
    );
    expect(load.stderr).toBe('');
    expect(load.code).toBe(0);
    expect(load.stdout).toContain('1 DONE');
    expectNoSecret(load.stdout, readFileSync(logFile, 'utf8'));
  });

  it.each([
    ['unencoded special characters in the URL', (hostDb: string) => `postgres://postgres:${PASSWORD.replace('%', '%25')}@${hostDb}`],
    [
      'the URL percent-encoded, after a space and a tab',
      (hostDb: string) => ` \tpostgres://postgres:${encodeURIComponent(PASSWORD)}@${hostDb}`,
    ],
    ['?password= in the query', (hostDb: string) => `postgres://postgres@${hostDb}?password=${encodeURIComponent(PASSWORD)}`],
  ])('a password in the URL works (%s) and is never printed', async (_shape, url) => {
    const db = url(await database());
    const status = await run(['status', '--db', db, '--log-level', 'info']);
    expect(status.code).toBe(0);
    expectNoSecret(status.stdout, status.stderr);
  });

  it('no password, or a wrong one: one line naming the role, and the process ends at once', async () => {
    const db = `postgres://postgres@${await database()}`;
    const missing = spawned(['status', '--db', db]);
    expect(missing.signal).toBeNull(); // not killed by the timeout
    expect(missing.code).toBe(1);
    expect(humanLines(missing.stderr).join('\n')).toMatch(
      /^order-loader: cannot open database postgres:\/\/postgres@127\.0\.0\.1:\d+\/pw_\d+: 127\.0\.0\.1:\d+ asks a password of role postgres and none was given: set ORDER_LOADER_DB_PASSWORD$/,
    );

    const wrong = spawned(['status', '--db', db], { ORDER_LOADER_DB_PASSWORD: `${PASSWORD}x` });
    expect(wrong.signal).toBeNull();
    expect(wrong.code).toBe(1);
    expect(humanLines(wrong.stderr).join('\n')).toMatch(
      /^order-loader: cannot open database \S+: password authentication failed for role postgres on 127\.0\.0\.1:\d+ \(28P01\): check ORDER_LOADER_DB_PASSWORD$/,
    );
    expectNoSecret(wrong.stderr);

    // a wrong password given in the URL is to be fixed there, not in the environment
    const inUrl = spawned(['status', '--db', `postgres://postgres:${encodeURIComponent(`${PASSWORD}x`)}@${await database()}`]);
    expect(inUrl.code).toBe(1);
    expect(humanLines(inUrl.stderr).join('\n')).toMatch(
      /^order-loader: cannot open database \S+: password authentication failed for role postgres on 127\.0\.0\.1:\d+ \(28P01\): check the password in the --db URL$/,
    );
    expectNoSecret(inUrl.stderr);
  });
});

describe.skipIf(unavailable(NEEDS.cli))('URLs that cannot be read: one line, never the password', () => {
  it.each([
    ['postgres://u:S3cr@t%zz@127.0.0.1:1/d', 'has a "%" that is not an escape', 'S3cr@t'],
    ['postgres://u:a@S3cr@t?x@127.0.0.1:1/d', 'cannot tell where the password ends', 'S3cr@t'],
    ['postgres://u:S3cr3t', 'cannot read this URL', 'S3cr3t'],
    ['S3cr@t', 'not a database URL', 'S3cr@t'],
  ])('%s', async (url, message, secret) => {
    const result = await run(['status', '--db', url]);
    expect(result.code).toBe(1);
    expect(humanLines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toContain(secret);
  });
});

describe.skipIf(unavailable(NEEDS.cli))('a server that cannot be reached', () => {
  it('a port where nothing listens: "cannot connect to host:port", not a schema problem', async () => {
    const result = await run(['status', '--db', 'postgres://loader@127.0.0.1:1/orders']);
    expect(result.code).toBe(1);
    expect(humanLines(result.stderr).join('\n')).toBe(
      'order-loader: cannot open database postgres://loader@127.0.0.1:1/orders: cannot connect to 127.0.0.1:1 (ECONNREFUSED: nothing listens there)',
    );
  });
});

const serverUrl = TEST_PG_URL;
describe.skipIf(unavailable(NEEDS.cli, NEEDS.server))('the local PostgreSQL server: names in the message', () => {
  const place = new URL(serverUrl ?? 'postgres://postgres@127.0.0.1:5432/test');
  const hostPort = `${place.hostname}:${place.port || '5432'}`;
  it('a database that does not exist is named, and not created', async () => {
    const url = new URL(place);
    url.pathname = '/order_loader_no_such_db';
    const result = await run(['init', '--db', url.toString()]);
    expect(result.code).toBe(1);
    expect(humanLines(result.stderr).join('\n')).toBe(
      `order-loader: cannot open database ${url.toString()}: database order_loader_no_such_db does not exist on ${hostPort} (3D000)`,
    );
  });
  it('a role that does not exist is named', async () => {
    const url = new URL(place);
    url.username = 'order_loader_no_such_role';
    url.password = '';
    const result = await run(['status', '--db', url.toString()]);
    expect(result.code).toBe(1);
    expect(humanLines(result.stderr).join('\n')).toBe(
      `order-loader: cannot open database ${url.toString()}: role order_loader_no_such_role does not exist on ${hostPort} (28000)`,
    );
  });
});
