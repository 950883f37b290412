/**
 * Nightly imports from an inbox folder with the built CLI: an empty inbox, a file that is not an
 * order file, an archive folder that cannot be written, and two overlapping runs on one inbox
 * (PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set).
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { OrderLoader } from '../../src/loader.js';
import { CHILD_NODE_FLAGS, CLEAN_ENV, CLI, REPO_ROOT, runCli, type CliResult } from '../support/cli-run.js';
import { serverPgTarget } from '../support/databases.js';
import { HEADER, tempDir } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const server = serverPgTarget();

interface Target {
  kind: string;
  /** A fresh migrated database: its URL, and a way to drop it. */
  create(): Promise<{ url: string; dispose(): Promise<void> }>;
}

const targets: Target[] = [
  {
    kind: 'pglite',
    async create() {
      return { url: (await migratedPgliteDb()).url, dispose: () => Promise.resolve() };
    },
  },
  ...(server === null
    ? []
    : [
        {
          kind: 'postgres',
          async create() {
            const db = await server.create();
            return { url: db.url!, dispose: () => db.dispose() };
          },
        },
      ]),
];

const order = (key: string) => `${HEADER}\n${key}-1,1,2026-01-01,1.00,JPY\n${key}-2,2,2026-01-02,2.00,EUR\n`;

/** The staging that read a file (not a skipped one), per file name, from the runs' journal. */
async function stagings(url: string): Promise<string[]> {
  const loader = await OrderLoader.open({ db: url, env: {}, lockTimeoutMs: 60_000 });
  try {
    const runs = await loader.runs(100);
    return runs
      .filter((r) => r.events.some((e) => e.event === 'staged' && (e.detail as { skipped?: boolean } | null)?.skipped !== true))
      .map((r) => String(r.fileName).split('/').pop() ?? '')
      .sort();
  } finally {
    await loader.close();
  }
}

function startCli(args: string[], env: Record<string, string>): { done: Promise<CliResult>; stderr: () => string } {
  const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, CLI, ...args], { cwd: REPO_ROOT, env: { ...CLEAN_ENV, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { done, stderr: () => stderr };
}

/** An inbox holding a.csv and b.csv, its archive folder, and the `load` of it (at info level). */
function twoFileInbox(url: string): { base: string; inbox: string; archive: string; args: string[] } {
  const base = tempDir();
  const inbox = join(base, 'inbox');
  mkdirSync(inbox);
  writeFileSync(join(inbox, 'a.csv'), order('A'));
  writeFileSync(join(inbox, 'b.csv'), order('B'));
  const archive = join(base, 'archive');
  // --settle 0: the files were written just now (the quiet period has its own tests)
  const args = ['load', inbox, '--db', url, '--archive-dir', archive, '--log-level', 'info', '--settle', '0'];
  return { base, inbox, archive, args };
}

async function until(what: string, probe: () => boolean, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(unavailable(NEEDS.cli))('load from an inbox (built CLI)', () => {
  it('an empty inbox: exit 0, says there is nothing to load; `stage` opens no database (`load` processes the due rows of earlier loads)', async () => {
    const inbox = tempDir();
    writeFileSync(join(inbox, 'upload.csv.part'), order('P'));
    const { url } = await migratedPgliteDb();
    const result = await runCli(['load', inbox, '--db', url, '--archive-dir', join(inbox, 'archive')]);
    expect(result.stdout.trim()).toBe(`nothing to load: no order files in ${inbox}`);
    expect(result.code).toBe(0);
    const neverMade = join(tempDir(), 'never-made');
    const staged = await runCli(['stage', inbox, '--db', `pglite:${neverMade}`]);
    expect(staged.stdout.trim()).toBe(`nothing to stage: no order files in ${inbox}`);
    expect(existsSync(neverMade)).toBe(false);
    const pattern = await runCli(['stage', join(inbox, '*.csv'), '--db', `pglite:${neverMade}`, '--json']);
    expect(JSON.parse(pattern.stdout)).toMatchObject({ command: 'stage', files: [], exitCode: 0 });
    expect(pattern.code).toBe(0);
  });

  it('an archive folder that cannot be written: exit 1 before anything is read, the files stay in the inbox', async () => {
    const inbox = tempDir();
    writeFileSync(join(inbox, 'a.csv'), order('A'));
    const notADir = join(tempDir(), 'archive');
    writeFileSync(notADir, '');
    const { url } = await targets[0]!.create();
    const result = await runCli(['load', inbox, '--db', url, '--archive-dir', notADir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`order-loader: --archive-dir ${notADir}: cannot create it (EEXIST)`);
    expect(readdirSync(inbox)).toEqual(['a.csv']);
    expect(await stagings(url)).toEqual([]);
    // a folder without write permission (root writes anyway: only checked as another user)
    if (process.getuid?.() !== 0) {
      const readOnly = join(tempDir(), 'ro');
      mkdirSync(readOnly, { mode: 0o500 });
      const refused = await runCli(['load', inbox, '--db', url, '--archive-dir', readOnly]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`--archive-dir ${readOnly} is not writable (EACCES): no file was read or moved`);
      chmodSync(readOnly, 0o700);
      expect(readdirSync(inbox)).toEqual(['a.csv']);
    }
  });

  for (const target of targets) {
    it(`${target.kind}: a file that is not an order file goes to the failed folder with its reason (exit 2); the others are loaded and archived`, async () => {
      const { url, dispose } = await target.create();
      try {
        const base = tempDir();
        const inbox = join(base, 'inbox');
        mkdirSync(inbox);
        writeFileSync(join(inbox, 'a.csv'), order('A'));
        writeFileSync(join(inbox, 'b.csv.gz'), gzipSync(Buffer.from(order('B'))));
        writeFileSync(join(inbox, 'report.pdf'), Buffer.from([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31, 0x0a, 0x00, 0xff]));
        writeFileSync(join(inbox, '.hidden.csv'), order('H'));
        const archive = join(base, 'archive');
        const failed = join(base, 'failed');
        // --settle 0: the files were written just now (the quiet period has its own tests)
        const result = await runCli(['load', inbox, '--db', url, '--archive-dir', archive, '--failed-dir', failed, '--settle', '0']);
        expect(result.code, result.stderr).toBe(2);
        expect(result.stdout).toContain(`${join(inbox, 'report.pdf')}: cannot be read as an order file, moved to ${failed}/`);
        expect(result.stdout).toContain('1 file(s) could not be read as order files');
        expect(result.stdout).not.toContain('some rows are ERROR');
        expect(readdirSync(inbox)).toEqual(['.hidden.csv']);
        expect(readdirSync(archive).map((n) => n.replace(/^load\d+-/, 'loadN-'))).toEqual(['loadN-a.csv', 'loadN-b.csv.gz']);
        const [pdf = '', sidecar = ''] = readdirSync(failed);
        expect(pdf).toMatch(/^\d{8}T\d{6}Z-report\.pdf$/);
        expect(sidecar).toBe(`${pdf}.error.txt`);
        expect(readFileSync(join(failed, sidecar), 'utf8')).toMatch(
          new RegExp(`^file: ${join(inbox, 'report.pdf')}\\nmoved: \\S+\\nreason: .*report\\.pdf: line 1: `),
        );
        expect(await stagings(url)).toEqual(['a.csv', 'b.csv.gz']);
      } finally {
        await dispose();
      }
    });

    it(`${target.kind}: two overlapping runs on one inbox: the second waits for the first, then finds its files archived; nothing is staged twice`, async () => {
      const { url, dispose } = await target.create();
      try {
        const { inbox, archive, args } = twoFileInbox(url);
        // the first run holds on after its commit, before moving its files: the second starts then
        const first = startCli(args, { ORDER_LOADER_TEST_HOLD_BEFORE_MOVE_MS: '4000' });
        await until('the first run to hold', () => first.stderr().includes('holding before the moves'));
        const second = startCli(args, {});
        const [one, two] = await Promise.all([first.done, second.done]);
        expect(one.code, one.stderr).toBe(0);
        expect(two.code, two.stderr).toBe(0);
        const waits = two.stderr
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as { level: number; msg: string; holder?: { command: string } })
          .filter((r) => r.msg.startsWith('inbox '));
        expect(waits).toEqual([
          expect.objectContaining({
            level: 40,
            holder: expect.objectContaining({ command: 'load' }) as unknown,
            msg: expect.stringMatching(
              /^inbox \S+\/inbox is in use by "load" \(pid \d+ on host [^,]+, since [^)]+\); waiting up to 10m for it$/,
            ) as unknown,
          }),
        ]);
        expect(two.stdout.trim()).toBe(`nothing to load: no order files in ${inbox}`);
        expect(readdirSync(inbox)).toEqual([]);
        expect(readdirSync(archive)).toHaveLength(2);
        expect(await stagings(url)).toEqual(['a.csv', 'b.csv']);
      } finally {
        await dispose();
      }
    });

    it(`${target.kind}: a file renamed away after it was loaded, before the moves: said gone before it could be archived, not "not read"`, async () => {
      const { url, dispose } = await target.create();
      try {
        const { base, inbox, archive, args } = twoFileInbox(url);
        const run = startCli(args, { ORDER_LOADER_TEST_HOLD_BEFORE_MOVE_MS: '1500' });
        await until('the run to hold before its moves', () => run.stderr().includes('holding before the moves'));
        renameSync(join(inbox, 'a.csv'), join(base, 'a-taken.csv'));
        const result = await run.done;
        expect(result.code, result.stderr).toBe(0);
        expect(result.stderr).toMatch(
          /a\.csv: gone before it could be archived \(renamed or taken away while it was loaded\): its rows are load \d+; nothing archived/,
        );
        expect(`${result.stdout}\n${result.stderr}`).not.toMatch(/a\.csv: gone since it was listed|not read/);
        expect(readdirSync(archive).map((n) => n.replace(/^load\d+-/, 'loadN-'))).toEqual(['loadN-b.csv']);
        expect(await stagings(url)).toEqual(['a.csv', 'b.csv']);
      } finally {
        await dispose();
      }
    });
  }
});
