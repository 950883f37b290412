/**
 * Interrupting a load whose chunk is blocked on a row another session holds (built CLI, server
 * PostgreSQL): the first signal waits at most the lock wait; the second cancels the blocked
 * statement, so that no backend of ours is left waiting with the chunk's row locks held.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serverPgTarget, type TestDatabase } from '../support/databases.js';
import { orderFile } from '../support/files.js';
import { CHILD_NODE_FLAGS } from '../support/cli-run.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = `${root}dist/src/cli.js`;
const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
const server = serverPgTarget();

type Row = [string, string, string, string, string];
const rows = (n: number, amount: string): Row[] =>
  Array.from({ length: n }, (_, i) => [`SIG-${String(i + 1).padStart(3, '0')}`, String(500 + i), '2026-04-01', amount, 'JPY']);

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(unavailable(NEEDS.cli, NEEDS.server))('a load blocked on a held row, interrupted (built CLI, server PostgreSQL)', () => {
  let db: TestDatabase;
  let holder: pg.Client;
  let child: ChildProcessWithoutNullStreams | undefined;
  beforeEach(async () => {
    db = await server!.create();
    holder = new pg.Client({ connectionString: db.url! });
    await holder.connect();
    const { loader } = await db.open();
    expect((await loader.load([orderFile(rows(30, '1000'))])).exitCode).toBe(0);
    await loader.close(); // its idle connections carry the same application_name as the child's
    await holder.query('BEGIN');
    await holder.query("SELECT * FROM orders WHERE source_key = 'SIG-012' FOR UPDATE");
  });
  afterEach(async () => {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    child = undefined;
    await holder.end().catch(() => undefined);
    await db.dispose();
  });

  const ourBackends = () =>
    db.sql<{ pid: number; wait_event_type: string | null }>(
      "SELECT pid, wait_event_type FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'order-loader'",
    );
  const statuses = async () =>
    Object.fromEntries(
      (await db.sql<{ process_status: string; n: number }>('SELECT process_status, count(*)::int AS n FROM order_stage GROUP BY 1')).map(
        (r) => [r.process_status, r.n],
      ),
    );

  function startLoad(lockWait: string): { exit: Promise<number | null>; stderr: () => string } {
    const c = spawn(
      process.execPath,
      [...CHILD_NODE_FLAGS, cli, 'load', orderFile(rows(30, '2000')), '--db', db.url!, '--row-lock-wait', lockWait, '--log-level', 'warn'],
      { cwd: root, env },
    );
    child = c;
    let stderr = '';
    c.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    c.stdout.resume();
    return { exit: new Promise((resolve) => c.on('exit', (code) => resolve(code))), stderr: () => stderr };
  }

  const blockedOnLock = () =>
    until(
      'the load to wait on the held row',
      async () => ((await ourBackends()).some((b) => b.wait_event_type === 'Lock') ? true : undefined),
      60_000,
    );

  it('--row-lock-wait 0 waits for ever; the first SIGINT says so, the second cancels the blocked chunk and exits 1, leaving no backend', async () => {
    const load = startLoad('0');
    await blockedOnLock();
    child!.kill('SIGINT');
    await until(
      'the first signal to be acknowledged',
      async () => (load.stderr().includes('SIGINT: finishing the current chunk') ? true : undefined),
      10_000,
    );
    expect(load.stderr()).toContain('waits until it is released (--row-lock-wait 0)');
    expect(child!.exitCode).toBeNull(); // still waiting for the row, as it said

    child!.kill('SIGINT');
    expect(await load.exit).toBe(1);
    expect(load.stderr()).toContain('SIGINT again: cancelling the running statements');
    // The cancelled backend sees our end gone and ends; its chunk rolls back and the stage rows
    // it had claimed are free again (before, it kept waiting, holding them, until the row was released).
    await until('no backend of the loader to remain', async () => ((await ourBackends()).length === 0 ? true : undefined), 5_000);
    expect(await db.sql("SELECT count(*)::int AS n FROM order_stage WHERE process_status = 'READY'")).toEqual([{ n: 30 }]);

    await holder.query('ROLLBACK');
    const { loader } = await db.open();
    expect((await loader.process()).exitCode).toBe(0);
    expect(await statuses()).toEqual({ DONE: 30 });
  }, 120_000);

  it('with a lock wait, the first SIGINT alone ends the run once the held row has been waited for: that row RETRY_WAIT, the rest DONE', async () => {
    const load = startLoad('2s');
    await blockedOnLock();
    child!.kill('SIGINT');
    expect(await load.exit).toBe(1); // interrupted
    expect(load.stderr()).toContain('gives up on it after at most 2 s (--row-lock-wait)');
    expect(await statuses()).toEqual({ DONE: 29, RETRY_WAIT: 1 });
    expect(await db.sql("SELECT process_status FROM order_stage WHERE source_key = 'SIG-012'")).toEqual([{ process_status: 'RETRY_WAIT' }]);
    await holder.query('ROLLBACK');
  }, 120_000);
});
