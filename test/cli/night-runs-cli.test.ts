/**
 * The nightly runs, as cron starts them (PGlite, and PostgreSQL when ORDER_LOADER_TEST_PG is
 * set): a `load` on an empty inbox still processes the rows of earlier loads; the metrics file
 * carries the database's state, so a run that found nothing cannot hide the ERROR rows of the
 * run before; it is written while the inbox lock is held; and a run whose database goes away
 * after its files are moved still prints its report.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, existsSync, mkdirSync, openSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it, vi } from 'vitest';
import { INBOX_LOCK_NAME } from '../../src/input/inbox-lock.js';
import { OrderLoader } from '../../src/loader.js';
import { CHILD_NODE_FLAGS, CLEAN_ENV, CLI, REPO_ROOT, runCli } from '../support/cli-run.js';
import { serverPgTarget } from '../support/databases.js';
import { HEADER, tempDir } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const targets: Array<[string, () => Promise<string>]> = [['pglite', async () => (await migratedPgliteDb()).url]];
const pg = serverPgTarget();
if (pg !== null) targets.push(['postgres', async () => (await pg.create()).url ?? '']);

const value = (text: string, name: string, labels: Record<string, string>): number | undefined => {
  const family = parsePrometheusTextFormat(text).find((f) => f.name === name);
  const sample = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample === undefined ? undefined : Number(sample.value);
};

/**
 * An inbox with `name` holding `lines` (none: an empty inbox), as a night finds it: the files
 * arrived an hour ago, past the quiet period (--settle).
 */
function inboxWith(files: Record<string, string[]>): string {
  const inbox = join(tempDir(), 'inbox');
  mkdirSync(inbox);
  const arrived = new Date(Date.now() - 3_600_000);
  for (const [name, lines] of Object.entries(files)) {
    writeFileSync(join(inbox, name), `${[HEADER, ...lines].join('\n')}\n`);
    utimesSync(join(inbox, name), arrived, arrived);
  }
  return inbox;
}

const errorLines = (n: number) => Array.from({ length: n }, (_, i) => `E-${i},1,2026-01-01,-1.00,EUR`);

describe('nightly runs (CLI)', () => {
  for (const [kind, database] of targets) {
    it(`${kind}: load on an empty inbox processes the READY rows a stage left, and says so`, async () => {
      const db = await database();
      const staged = await runCli([
        'stage',
        inboxWith({ 'a.csv': ['S-1,1,2026-01-01,1.00,EUR', 'S-2,2,2026-01-02,2.00,EUR'] }),
        '--db',
        db,
      ]);
      expect(staged.code, staged.stderr).toBe(0);
      const empty = inboxWith({});
      const night = await runCli(['load', empty, '--db', db]);
      expect(night.code, night.stderr).toBe(0);
      expect(night.stdout).toContain(`nothing to load: no order files in ${empty}`);
      // the chunk count is the workers' (on the server two may each claim one of the two rows)
      expect(night.stdout).toMatch(/processed 2 rows of earlier loads in [12] chunks: 2 DONE, 0 ERROR/);
      const json = await runCli(['load', empty, '--db', db, '--json']);
      expect(JSON.parse(json.stdout)).toMatchObject({ command: 'load', files: [], earlierLoadRows: 0, exitCode: 0 });
    });

    it(`${kind}: a run that finds nothing after a bad night writes the ERROR rows still in the database beside its own figures`, async () => {
      const db = await database();
      const metrics = join(tempDir(), 'order-loader.prom');
      const bad = await runCli(['load', inboxWith({ 'bad.csv': errorLines(5) }), '--db', db, '--metrics-file', metrics]);
      expect(bad.code, bad.stderr).toBe(2);
      let text = readFileSync(metrics, 'utf8');
      expect(value(text, 'order_loader_rows', { command: 'load', status: 'ERROR' })).toBe(5);

      const quiet = await runCli(['load', inboxWith({}), '--db', db, '--metrics-file', metrics]);
      expect(quiet.code, quiet.stderr).toBe(0);
      text = readFileSync(metrics, 'utf8');
      // the run's own figures say nothing went wrong; the state still says 5 rows are ERROR
      expect(value(text, 'order_loader_last_run_exit_code', { command: 'load' })).toBe(0);
      expect(value(text, 'order_loader_last_run_rows', { command: 'load', status: 'ERROR' })).toBe(0);
      expect(value(text, 'order_loader_rows', { command: 'load', status: 'ERROR' })).toBe(5);
      expect(value(text, 'order_loader_rows', { command: 'load', status: 'READY' })).toBe(0);
      expect(value(text, 'order_loader_oldest_waiting_row_age_seconds', { command: 'load' })).toBe(0);
      const readAt = value(text, 'order_loader_state_timestamp_seconds', { command: 'load' }) ?? 0;
      expect(Math.abs(readAt - Date.now() / 1000)).toBeLessThan(600);

      // a stage leaves its rows READY: they wait, since the run that staged them started
      const stagedAt = Date.now() / 1000;
      const stage = await runCli(['stage', inboxWith({ 'c.csv': ['C-1,1,2026-01-01,1.00,EUR'] }), '--db', db, '--metrics-file', metrics]);
      expect(stage.code, stage.stderr).toBe(0);
      text = readFileSync(metrics, 'utf8');
      expect(value(text, 'order_loader_rows', { command: 'stage', status: 'READY' })).toBe(1);
      const age = value(text, 'order_loader_oldest_waiting_row_age_seconds', { command: 'stage' }) ?? -1;
      expect(age).toBeGreaterThan(0);
      expect(age).toBeLessThanOrEqual(Date.now() / 1000 - stagedAt + 1);
    });

    it(`${kind}: --format markdown: a database gone once the files are moved still gives the report of the committed run`, async () => {
      const db = await database();
      const base = tempDir();
      const inbox = inboxWith({ 'm.csv': ['M-1,1,2026-01-01,1.00,EUR', 'M-2,2,2026-01-02,-1.00,EUR'] });
      const archive = join(base, 'archive');
      const metrics = join(base, 'order-loader.prom');
      const file = join(inbox, 'm.csv');
      const open = OrderLoader.open.bind(OrderLoader);
      // every statement after the file left the inbox fails, as on a database that went away
      const spy = vi.spyOn(OrderLoader, 'open').mockImplementation(async (options) => {
        const loader = await open(options);
        const inner = loader.engine;
        const gone = new Proxy(inner, {
          get(target, prop, receiver) {
            const member: unknown = Reflect.get(target, prop, receiver);
            if (typeof member !== 'function' || prop === 'close' || prop === 'classifyError') return member;
            return (...args: unknown[]) => {
              if (!existsSync(file)) return Promise.reject(new Error('injected: the database is gone'));
              return (member as (...a: unknown[]) => unknown).apply(target, args);
            };
          },
        });
        Object.defineProperty(loader, 'engine', { value: gone });
        return loader;
      });
      try {
        const result = await runCli([
          'load',
          inbox,
          '--db',
          db,
          '--archive-dir',
          archive,
          '--format',
          'markdown',
          '--metrics-file',
          metrics,
        ]);
        expect(result.stderr).not.toContain('unexpected error');
        expect(result.code, result.stderr).toBe(2);
        expect(result.stdout).toContain('# order-loader load: finished, some rows need a look (exit 2)');
        expect(result.stdout).toMatch(/\| VALIDATE +\| +1 \| rows ended ERROR +\|/);
        expect(readdirSync(archive)).toHaveLength(1);
        const text = readFileSync(metrics, 'utf8');
        expect(value(text, 'order_loader_last_run_exit_code', { command: 'load' })).toBe(2);
        expect(value(text, 'order_loader_rows', { command: 'load', status: 'ERROR' })).toBe(1);
      } finally {
        spy.mockRestore();
      }
    });
  }

  it.skipIf(unavailable(NEEDS.cli))(
    'the metrics file is written while the inbox lock is still held (a queued run writes after)',
    async () => {
      const { url } = await migratedPgliteDb();
      const inbox = inboxWith({ 'a.csv': ['L-1,1,2026-01-01,1.00,EUR'] });
      // a FIFO as the metrics file: the run blocks reading the previous file until the test opens it,
      // so the test sees the inbox as the run leaves it at the moment it writes its metrics
      const metrics = join(tempDir(), 'order-loader.prom');
      expect(spawnSync('mkfifo', [metrics]).status).toBe(0);
      const child = spawn(
        process.execPath,
        [...CHILD_NODE_FLAGS, CLI, 'load', inbox, '--db', url, '--archive-dir', join(inbox, '..', 'archive'), '--metrics-file', metrics],
        { cwd: REPO_ROOT, env: CLEAN_ENV },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      // opened without blocking once the run opens the FIFO to read it (until then: ENXIO)
      let writer: number | null = null;
      const deadline = Date.now() + 90_000;
      while (writer === null) {
        try {
          writer = openSync(metrics, constants.O_WRONLY | constants.O_NONBLOCK);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENXIO' || Date.now() > deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      const lockHeld = existsSync(join(inbox, INBOX_LOCK_NAME));
      closeSync(writer);
      const code = await exited;
      expect(code, stderr).toBe(0);
      expect(lockHeld).toBe(true);
      expect(existsSync(join(inbox, INBOX_LOCK_NAME))).toBe(false);
      expect(value(readFileSync(metrics, 'utf8'), 'order_loader_last_run_exit_code', { command: 'load' })).toBe(0);
    },
  );
});
