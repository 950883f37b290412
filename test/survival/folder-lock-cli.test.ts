/**
 * Several commands started at once on one embedded database folder (PGlite only by nature:
 * a server database takes any number of processes). They must take turns: afterwards every row
 * of every file is in `orders` exactly once and every run is recorded. A concurrency and signal
 * scenario (four processes racing for a new folder; a load stopped by SIGTERM): project survival.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { afterEach, describe, expect, it } from 'vitest';
import { HEADER, tempDir, writeTestFile } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = `${root}dist/src/cli.js`;

function start(
  args: string[],
  onStderr?: (text: string, child: ChildProcess) => void,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      onStderr?.(stderr, child);
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

function orderRows(prefix: string, n: number): string {
  const lines = [HEADER];
  for (let i = 0; i < n; i++) lines.push(`${prefix}-${i},${1000 + (i % 97)},2024-0${1 + (i % 9)}-1${i % 10},${(i % 5000) + 1}.25,JPY`);
  return `${lines.join('\n')}\n`;
}

/** Every path under dir (dir included) whose mode gives group or others any access. */
function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    const stat = lstatSync(path);
    if ((stat.mode & 0o077) !== 0) found.push(`${(stat.mode & 0o777).toString(8)} ${path}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  return found;
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(unavailable(NEEDS.cli))('one embedded database folder, several commands at once (PGlite only)', () => {
  it('two loads, a process and a status started together: they take turns, every row of both files lands once, the folder is private', async () => {
    const base = tempDir();
    dirs.push(base);
    const dataDir = join(base, 'db');
    const db = `pglite:${dataDir}`;
    const rows = 3000;
    const fileA = writeTestFile(orderRows('LOCKA', rows), 'lock-a.csv');
    const fileB = writeTestFile(orderRows('LOCKB', rows), 'lock-b.csv');

    const [loadA, loadB, processRun, status] = await Promise.all([
      start(['load', fileA, '--db', db, '--json', '--log-level', 'info']),
      start(['load', fileB, '--db', db, '--json', '--log-level', 'info']),
      start(['process', '--db', db, '--json', '--log-level', 'info']),
      start(['status', '--db', db, '--json', '--log-level', 'info']),
    ]);

    expect([loadA.code, loadB.code, processRun.code], `${loadA.stderr}\n${loadB.stderr}\n${processRun.stderr}`).toEqual([0, 0, 0]);
    for (const load of [loadA, loadB])
      expect(JSON.parse(load.stdout)).toMatchObject({ exitCode: 0, files: [{ counts: { read: rows, inserted: rows } }] });
    // status reads and does not wait: it either got the folder or says in one line who holds it
    if (status.code !== 0) {
      expect(status.code).toBe(1);
      const lines = status.stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('order-loader:'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^order-loader: database folder .*\/db is in use by "(load|process)" \(pid \d+ on host [^,]+, since \d{4}-\d\d-\d\dT[\d:.]+Z\); not waiting/,
      );
    } else {
      expect(JSON.parse(status.stdout)).toHaveProperty('counts');
    }
    // at least one command found the folder taken and said whom it waits for (logged at info)
    const waits = [loadA, loadB, processRun]
      .map((r) => r.stderr)
      .join('\n')
      .split('\n')
      .filter((l) => l.includes('waiting up to'));
    expect(waits.length).toBeGreaterThan(0);
    expect(JSON.parse(waits[0] ?? '{}')).toMatchObject({
      level: 30,
      holder: { command: expect.stringMatching(/^(load|process|status)$/) as unknown },
    });

    expect(readdirSync(dataDir).filter((name) => name.startsWith('order-loader.lock'))).toEqual([]);
    expect(openToOthers(dataDir)).toEqual([]);

    const pglite = await PGlite.create({ dataDir });
    try {
      const orders = await pglite.query<{ n: number; keys: number; a: number; b: number }>(
        "SELECT count(*)::int AS n, count(DISTINCT source_key)::int AS keys, count(*) FILTER (WHERE source_key LIKE 'LOCKA-%')::int AS a, count(*) FILTER (WHERE source_key LIKE 'LOCKB-%')::int AS b FROM orders",
      );
      expect(orders.rows[0]).toEqual({ n: 2 * rows, keys: 2 * rows, a: rows, b: rows });
      const stage = await pglite.query<{ status: string; n: number }>(
        'SELECT process_status AS status, count(*)::int AS n FROM order_stage GROUP BY 1',
      );
      expect(stage.rows).toEqual([{ status: 'DONE', n: 2 * rows }]);
      const runs = await pglite.query<{ command: string; status: string; file: string | null }>(
        'SELECT command, status, file_name AS file FROM load_run ORDER BY run_id',
      );
      const loads = runs.rows.filter((r) => r.command === 'load');
      expect(loads.map((r) => r.file).sort()).toEqual([fileA, fileB].sort());
      expect(runs.rows.every((r) => r.status === 'COMPLETED')).toBe(true);
    } finally {
      await pglite.close();
    }
  }, 300_000);

  it('a load stopped by two SIGTERMs (the second exits at once) leaves no lock behind; the next command opens the folder', async () => {
    const { dataDir } = await migratedPgliteDb();
    const file = writeTestFile(orderRows('SIG', 20_000), 'sig.csv');
    let signalled = false;
    // Held after its first batch (the first SIGTERM only asks it to stop after the unit of work
    // it is in, and the hold is that unit), so that the second SIGTERM always finds it running:
    // sent when it merely staged, a fast read had finished the batch and exited before it.
    const load = await start(
      ['load', file, '--db', `pglite:${dataDir}`, '--batch-size', '500', '--log-level', 'info'],
      (text, child) => {
        if (signalled || !text.includes('holding after staged_checkpoint')) return;
        signalled = true;
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGTERM'), 200);
      },
      { ORDER_LOADER_TEST_HOLD_AFTER: 'staged_checkpoint:1' },
    );
    expect(signalled).toBe(true);
    expect(load.code).toBe(1);
    expect(load.stderr).toContain('SIGTERM again: exiting now');
    expect(readdirSync(dataDir).filter((name) => name.startsWith('order-loader.lock'))).toEqual([]);
    const status = await start(['status', '--db', `pglite:${dataDir}`, '--json', '--log-level', 'warn']);
    expect(status.code, status.stderr).toBe(0);
  }, 300_000);
});
