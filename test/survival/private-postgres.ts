/**
 * A PRIVATE PostgreSQL 15 instance for the tests that restart or stop the database server
 * (restart.test.ts): initdb + pg_ctl from /usr/lib/postgresql/15/bin into a temporary directory,
 * listening on 127.0.0.1 only, on a free port, trust auth (or scram-sha-256 with a password). initdb refuses to run as root: when the
 * test runs as root (CI), the binaries run as the `postgres` OS user (runuser) and the directory is
 * made theirs. The shared development server is never touched.
 *
 * destroy() stops it (-m immediate) and removes its directory; a process-exit hook does the same
 * for an instance still running when the test process ends some other way.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { createDatabase } from '../../bench/pg-admin.js';
import type { Sql } from '../support/invariants.js';

const execFileP = promisify(execFile);

export const PG_BIN = '/usr/lib/postgresql/15/bin';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Why a private instance cannot be made here (null: it can be tried). */
export function privatePostgresUnavailable(): string | null {
  if (!existsSync(join(PG_BIN, 'initdb')) || !existsSync(join(PG_BIN, 'pg_ctl'))) {
    return `${PG_BIN}/initdb or pg_ctl is missing: these tests need PostgreSQL 15's server binaries (Debian/Ubuntu: apt-get install postgresql-15)`;
  }
  if (isRoot && !existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser') && !existsSync('/usr/bin/runuser')) {
    return 'running as root without runuser: initdb cannot run as root';
  }
  return null;
}

function command(name: string, args: string[]): [string, string[]] {
  const binary = join(PG_BIN, name);
  return isRoot ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args];
}

/** Run a PostgreSQL binary (as the postgres OS user when we are root). */
async function pgBin(name: string, args: string[], timeoutMs = 60_000): Promise<string> {
  const [file, argv] = command(name, args);
  try {
    const { stdout, stderr } = await execFileP(file, argv, { timeout: timeoutMs, env: { ...process.env, LC_ALL: 'C' } });
    return stdout + stderr;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    const said = (e.stderr ?? '').trim().split('\n').slice(-2).join(' ');
    throw new Error(`${name} failed: ${said !== '' ? said : e.message}\n(${name} ${args.join(' ')})\n${e.stdout ?? ''}${e.stderr ?? ''}`, {
      cause: error,
    });
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const live = new Set<PrivatePostgres>();
let exitHook = false;

export class PrivatePostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly password: string | null = null,
  ) {}
  private get data() {
    return join(this.dir, 'data');
  }
  private get options() {
    // fsync off: the tests are about the loader, not the disk (their restarts are clean shutdowns)
    return `-p ${this.port} -c listen_addresses=127.0.0.1 -k ${this.dir} -c fsync=off -c full_page_writes=off`;
  }

  /** With `password`: the superuser postgres has it, and every connection must give it (scram-sha-256). */
  static async create(options: { password?: string } = {}): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'order-loader-pg-'));
    const instance = new PrivatePostgres(dir, await freePort(), options.password ?? null);
    live.add(instance);
    if (!exitHook) {
      exitHook = true;
      process.once('exit', () => {
        for (const i of live) i.destroySync();
      });
    }
    try {
      const auth = ['-A', 'trust'];
      if (options.password !== undefined) {
        const pwfile = join(dir, 'pwfile');
        writeFileSync(pwfile, `${options.password}\n`, { mode: 0o600 });
        auth.splice(0, 2, '-A', 'scram-sha-256', `--pwfile=${pwfile}`);
      }
      if (isRoot) await execFileP('chown', ['-R', 'postgres:', dir]);
      await pgBin('initdb', ['-D', instance.data, '-U', 'postgres', ...auth, '-E', 'UTF8', '--locale=C', '--no-sync']);
      await instance.start();
      return instance;
    } catch (error) {
      await instance.destroy(); // a half-made instance: leave nothing behind
      throw error;
    }
  }

  url(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** The URL with the password in it, for the test's own connections (never a child's argv). */
  private clientUrl(database: string): string {
    return this.password === null
      ? this.url(database)
      : `postgres://postgres:${encodeURIComponent(this.password)}@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    await pgBin('pg_ctl', ['-D', this.data, '-l', join(this.dir, 'server.log'), '-w', '-t', '30', '-o', this.options, 'start']);
  }

  /** `pg_ctl restart -m fast`: every connection is terminated, the server shuts down cleanly and starts again. */
  async restart(): Promise<void> {
    await pgBin('pg_ctl', [
      '-D',
      this.data,
      '-l',
      join(this.dir, 'server.log'),
      '-m',
      'fast',
      '-w',
      '-t',
      '30',
      '-o',
      this.options,
      'restart',
    ]);
  }

  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await pgBin('pg_ctl', ['-D', this.data, '-m', mode, '-w', '-t', '30', 'stop']);
  }

  /** Stop it, whatever state it is in, and remove its directory. */
  async destroy(): Promise<void> {
    live.delete(this);
    if (existsSync(join(this.data, 'postmaster.pid'))) await this.stop('immediate').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private destroySync(): void {
    try {
      if (existsSync(join(this.data, 'postmaster.pid'))) {
        const [file, argv] = command('pg_ctl', ['-D', this.data, '-m', 'immediate', '-w', '-t', '30', 'stop']);
        execFileSync(file, argv, { stdio: 'ignore', timeout: 35_000 });
      }
    } catch {
      // nothing more can be done at exit
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** A new database on the instance and a `sql` for assertions (one connection per query: the server may restart under it). */
  async createDatabase(name: string): Promise<{ url: string; sql: Sql }> {
    await createDatabase(this.clientUrl('postgres'), name);
    const url = this.url(name);
    const sql: Sql = async <R>(text: string, params?: unknown[]) => {
      const client = new pg.Client({ connectionString: this.clientUrl(name) });
      client.on('error', () => undefined);
      await client.connect();
      try {
        return (await client.query({ text, values: params })).rows as R[];
      } finally {
        await client.end().catch(() => undefined);
      }
    };
    return { url, sql };
  }
}
