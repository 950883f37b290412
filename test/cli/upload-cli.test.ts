/**
 * Files still being uploaded, and inbox entries that cannot work, with the built CLI: the quiet
 * period (--settle), the unfinished last line of a named file, the marker convention
 * (--ready-suffix), a missing inbox, an archive folder that is the inbox, entries that are not
 * files, and a zero-byte file (PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is
 * set, for the runs that load).
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { OrderLoader } from '../../src/loader.js';
import { runCli } from '../support/cli-run.js';
import { NEEDS, unavailable } from '../support/requirements.js';
import { serverPgTarget } from '../support/databases.js';
import { HEADER, tempDir } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';

const server = serverPgTarget();
const targets: Array<[string, () => Promise<string>]> = [['pglite', async () => (await migratedPgliteDb()).url]];
if (server !== null) targets.push(['postgres', async () => (await server.create()).url ?? '']);

const order = (key: string) => `${HEADER}\n${key}-1,1,2026-01-01,1.00,JPY\n${key}-2,2,2026-01-02,12.34,EUR\n`;

/** Set a file's modification time `seconds` ago. */
function age(path: string, seconds: number): void {
  const t = new Date(Date.now() - seconds * 1000);
  utimesSync(path, t, t);
}

/** A new inbox folder (inside a base folder, beside which nothing else is). */
function newInbox(): { base: string; inbox: string } {
  const base = tempDir();
  const inbox = join(base, 'inbox');
  mkdirSync(inbox);
  return { base, inbox };
}

/** The value of one sample of the metrics file. */
function metric(path: string, name: string, labels: Record<string, string>): number | undefined {
  const family = parsePrometheusTextFormat(readFileSync(path, 'utf8')).find((f) => f.name === name);
  const sample = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample === undefined ? undefined : Number((sample as { value: string }).value);
}

/** The JSON log lines of a run's stderr whose message names `file`. */
function warningsAbout(stderr: string, file: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string })
    .filter((r) => r.level === 40 && r.msg.includes(file))
    .map((r) => r.msg);
}

/** file name → the status of its last run. */
async function runStatuses(url: string): Promise<Record<string, string>> {
  const loader = await OrderLoader.open({ db: url, env: {}, lockTimeoutMs: 60_000 });
  try {
    const runs = (await loader.runs(100)).reverse();
    return Object.fromEntries(runs.map((r) => [String(r.fileName).split('/').pop() ?? '', r.status]));
  } finally {
    await loader.close();
  }
}

interface Report {
  files: Array<{ file: string; tally: Record<string, number>; counts: { read: number; rejected: number } }>;
  notRead: Array<{ file: string; reason: string }>;
  ignored: Array<{ file: string; reason: string }>;
  empty: Array<{ file: string; movedTo: string | null }>;
  archived: Array<{ file: string; movedTo: string }>;
  exitCode: number;
}

describe.skipIf(unavailable(NEEDS.cli))('files still being uploaded, entries that are not files (built CLI)', () => {
  it.each(targets)(
    '%s: a file modified within the quiet period is left for the next run (exit 0, said once), then loaded whole',
    async (_kind, database) => {
      const url = await database();
      const { base, inbox } = newInbox();
      const metrics = join(base, 'load.prom');
      writeFileSync(join(inbox, 'a.csv'), order('QA'));
      age(join(inbox, 'a.csv'), 3600);
      // an upload that paused in the middle of a value: 12 of 12.34
      writeFileSync(join(inbox, 'b.csv'), `${HEADER}\nQB-1,1,2026-01-01,12`);
      age(join(inbox, 'b.csv'), 1);
      const args = ['load', inbox, '--db', url, '--archive-dir', join(inbox, 'archive'), '--json', '--metrics-file', metrics];
      const first = await runCli(args);
      expect(first.code, first.stderr).toBe(0);
      const report = JSON.parse(first.stdout) as Report;
      expect(report.files.map((f) => f.file)).toEqual([join(inbox, 'a.csv')]);
      expect(report.notRead).toEqual([
        {
          file: join(inbox, 'b.csv'),
          reason: expect.stringMatching(
            /b\.csv: modified 1 s ago, within the quiet period \(--settle 30 s\): left for the next run$/,
          ) as unknown,
        },
      ]);
      expect(warningsAbout(first.stderr, 'b.csv')).toHaveLength(1);
      expect(
        readdirSync(inbox)
          .filter((n) => !n.startsWith('.'))
          .sort(),
      ).toEqual(['archive', 'b.csv']);
      expect(metric(metrics, 'order_loader_last_run_files', { outcome: 'left' })).toBe(1);
      expect(metric(metrics, 'order_loader_last_run_files', { outcome: 'archived' })).toBe(1);

      // the upload ends; once quiet, the next run reads it whole
      appendFileSync(join(inbox, 'b.csv'), '.34,EUR\n');
      age(join(inbox, 'b.csv'), 31);
      const second = await runCli(args);
      expect(second.code, second.stderr).toBe(0);
      const again = JSON.parse(second.stdout) as Report;
      expect(again.files).toEqual([expect.objectContaining({ file: join(inbox, 'b.csv'), tally: { DONE: 1 } })]);
      expect(again.notRead).toEqual([]);
      expect(await runStatuses(url)).toMatchObject({ 'a.csv': 'COMPLETED', 'b.csv': 'COMPLETED' });
    },
  );

  it.each(targets)(
    '%s: --ready-suffix .done: a file is read once its marker exists, whatever its age; the marker moves with it',
    async (_kind, database) => {
      const url = await database();
      const { inbox } = newInbox();
      const archive = join(inbox, 'archive');
      writeFileSync(join(inbox, 'a.csv'), order('MA'));
      age(join(inbox, 'a.csv'), 3600);
      writeFileSync(join(inbox, 'b.csv'), order('MB'));
      writeFileSync(join(inbox, 'b.csv.done'), '');
      const args = ['load', inbox, '--db', url, '--archive-dir', archive, '--ready-suffix', '.done', '--json'];
      const first = await runCli(args);
      expect(first.code, first.stderr).toBe(0);
      const report = JSON.parse(first.stdout) as Report;
      expect(report.files.map((f) => f.file)).toEqual([join(inbox, 'b.csv')]);
      expect(report.notRead.map((n) => n.reason)).toEqual([
        `${join(inbox, 'a.csv')}: no marker a.csv.done yet (--ready-suffix): left for the next run`,
      ]);
      expect(
        readdirSync(archive)
          .map((n) => n.replace(/^load\d+-/, 'loadN-'))
          .sort(),
      ).toEqual(['loadN-b.csv', 'loadN-b.csv.done']);
      expect(
        readdirSync(inbox)
          .filter((n) => !n.startsWith('.'))
          .sort(),
      ).toEqual(['a.csv', 'archive']);

      writeFileSync(join(inbox, 'a.csv.done'), '');
      const second = await runCli(args);
      expect(second.code, second.stderr).toBe(0);
      expect((JSON.parse(second.stdout) as Report).files.map((f) => f.file)).toEqual([join(inbox, 'a.csv')]);
      expect(readdirSync(inbox).filter((n) => !n.startsWith('.'))).toEqual(['archive']);
      expect(readdirSync(archive)).toHaveLength(4);
    },
  );

  it.each(targets)(
    '%s: a FIFO, a dangling symlink and a directory named x.csv are skipped with a warning each, counted in the report and the metrics',
    async (_kind, database) => {
      const url = await database();
      const { base, inbox } = newInbox();
      const metrics = join(base, 'load.prom');
      writeFileSync(join(inbox, 'a.csv'), order('IA'));
      age(join(inbox, 'a.csv'), 3600);
      expect(spawnSync('mkfifo', [join(inbox, 'pipe.csv')]).status).toBe(0);
      symlinkSync(join(base, 'gone.csv'), join(inbox, 'dangling.csv'));
      mkdirSync(join(inbox, 'x.csv'));
      const args = ['load', inbox, '--db', url, '--archive-dir', join(inbox, 'archive'), '--json', '--metrics-file', metrics];
      // a FIFO opened would wait for a writer for ever: the timeout would say so
      const result = await runCli(args, { timeoutMs: 60_000 });
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout) as Report;
      expect(report.files.map((f) => f.file)).toEqual([join(inbox, 'a.csv')]);
      expect(report.ignored.map((i) => i.file)).toEqual(['dangling.csv', 'pipe.csv', 'x.csv'].map((n) => join(inbox, n)));
      for (const name of ['dangling.csv', 'pipe.csv', 'x.csv']) expect(warningsAbout(result.stderr, name)).toHaveLength(1);
      expect(metric(metrics, 'order_loader_last_run_files', { outcome: 'ignored' })).toBe(3);
      expect(metric(metrics, 'order_loader_last_run_files', { outcome: 'archived' })).toBe(1);

      // with nothing else to load: still said, and counted
      const alone = await runCli(args, { timeoutMs: 60_000 });
      expect(alone.code, alone.stderr).toBe(0);
      expect((JSON.parse(alone.stdout) as Report).ignored).toHaveLength(3);
      expect(metric(metrics, 'order_loader_last_run_files', { outcome: 'ignored' })).toBe(3);
      expect(metric(metrics, 'order_loader_last_run_exit_code', { command: 'load' })).toBe(0);
    },
  );

  it.each(targets)(
    '%s: a zero-byte file (a day without orders) is an empty load: exit 0, counted as empty, archived',
    async (_kind, database) => {
      const url = await database();
      const { base, inbox } = newInbox();
      const metrics = join(base, 'load.prom');
      writeFileSync(join(inbox, 'orders-sunday.csv'), '');
      age(join(inbox, 'orders-sunday.csv'), 3600);
      const args = ['load', inbox, '--db', url, '--archive-dir', join(inbox, 'archive'), '--metrics-file', metrics];
      const text = await runCli(args);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toMatch(
        /orders-sunday\.csv: empty \(0 bytes\): nothing to load, archived as \S+\/archive\/empty\d{8}T\d{6}Z-orders-sunday\.csv/,
      );
      expect(readdirSync(join(inbox, 'archive'))).toEqual([expect.stringMatching(/^empty\d{8}T\d{6}Z-orders-sunday\.csv$/) as unknown]);
      expect(metric(metrics, 'order_loader_last_run_files', { outcome: 'empty' })).toBe(1);
      expect(metric(metrics, 'order_loader_last_run_exit_code', { command: 'load' })).toBe(0);

      // named on the command line, with a loaded file beside it
      const empty = join(base, 'empty.csv');
      writeFileSync(empty, '');
      const named = join(base, 'named.csv');
      writeFileSync(named, order('ZN'));
      const json = await runCli(['load', empty, named, '--db', url, '--json']);
      expect(json.code, json.stderr).toBe(0);
      const report = JSON.parse(json.stdout) as Report;
      expect(report.empty).toEqual([{ file: empty, movedTo: null }]);
      expect(report.files.map((f) => f.file)).toEqual([named]);
    },
  );

  it('a file named on the command line whose last line has no line end, modified within the quiet period, is waited for (at most --settle), then read', async () => {
    const dir = tempDir();
    const cut = join(dir, 'cut.csv');
    writeFileSync(cut, `${HEADER}\nCT-1,1,2026-01-01,12.00,JPY`);
    const { url } = await migratedPgliteDb();
    const started = Date.now();
    const waited = await runCli(['load', cut, '--db', url, '--settle', '3s', '--log-level', 'warn']);
    // every row of the file it was given DONE: exit 0, and only then
    expect(waited.code, waited.stderr).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect(waited.stderr).toMatch(/waiting [\d.]+ s for the quiet period \(--settle 3 s\) of .*cut\.csv: its last line has no line end/);
    expect(waited.stdout).toContain(cut);
    expect(waited.stdout).toContain('processed 1 rows');
    expect(waited.stdout).not.toContain('nothing to load');
    // a file just written whole is read at once (the README's first command), without a wait
    const whole = join(dir, 'whole.csv');
    writeFileSync(whole, order('CW'));
    const quick = Date.now();
    const read = await runCli(['load', whole, '--db', url, '--log-level', 'warn']);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stderr).not.toContain('waiting');
    expect(Date.now() - quick).toBeLessThan(30_000);
  });

  it('a named file still being written after the wait is not read: said, exit 2, not 0; --settle 0 reads it as it is', async () => {
    const dir = tempDir();
    const db = join(dir, 'db');
    const cut = join(dir, 'cut.csv');
    writeFileSync(cut, `${HEADER}\nCT-1,1,2026-01-01,12.00,JPY\nCT-2,2,2026-01-01,1`);
    // the sender goes on writing, a digit at a time, never ending the line
    const writer = setInterval(() => appendFileSync(cut, '0'), 300);
    let left: Awaited<ReturnType<typeof runCli>>;
    try {
      left = await runCli(['load', cut, '--db', `pglite:${db}`, '--settle', '2s', '--log-level', 'silent']);
    } finally {
      clearInterval(writer);
    }
    expect(left.code, left.stderr).toBe(2);
    expect(left.stdout).toMatch(
      /cut\.csv: not read: its last line has no line end, and after waiting [\d.]+ s it was still modified within the quiet period \(--settle 2 s\): still being written\? run again once it is complete \(--settle 0 reads it as it is\)/,
    );
    expect(left.stdout).not.toContain('processed');
    // the reason is the file not read, not rows: no hint to look at `errors`
    expect(left.stdout).not.toContain('some rows are ERROR');
    const forced = await runCli(['load', cut, '--db', `pglite:${db}`, '--log-level', 'silent', '--settle', '0']);
    expect(forced.code).toBe(2); // its last line has no currency: rejected
  });

  it('a missing inbox is exit 1 with one line, and no folder is made (an archive inside it neither)', async () => {
    const base = tempDir();
    const inbox = join(base, 'inbox');
    const db = join(base, 'db');
    for (const arg of [inbox, join(inbox, '*.csv')]) {
      const result = await runCli([
        'load',
        arg,
        '--db',
        `pglite:${db}`,
        '--archive-dir',
        join(inbox, 'archive'),
        '--failed-dir',
        join(inbox, 'failed'),
        '--log-level',
        'silent',
      ]);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`order-loader: ${inbox}: no such file or directory (an input folder is never created: is it mounted?)\n`);
      expect(readdirSync(base)).toEqual([]);
    }
  });

  it('--archive-dir or --failed-dir equal to the inbox is refused before anything is read (each night would read its own archive)', async () => {
    const { base, inbox } = newInbox();
    const db = join(base, 'db');
    writeFileSync(join(inbox, 'a.csv'), `bad,header\n1,2\n`);
    age(join(inbox, 'a.csv'), 3600);
    for (const option of ['--archive-dir', '--failed-dir']) {
      const result = await runCli(['load', inbox, '--db', `pglite:${db}`, option, inbox, '--log-level', 'silent']);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `order-loader: ${option} ${inbox} is the folder the files are read from: each run would read its own moved files again (use a subfolder, such as ${join(inbox, option === '--archive-dir' ? 'archive' : 'failed')})\n`,
      );
      expect(readdirSync(inbox)).toEqual(['a.csv']);
    }
    expect(existsSync(db)).toBe(false);
  });
});
