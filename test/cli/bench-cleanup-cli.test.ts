/**
 * A bench cleans up after itself when its reader goes away (`order-loader bench 2>&1 | head -1`):
 * its workspace schema is dropped and its generated CSV file removed; and the workspace of a
 * bench that died (kill -9) is dropped by the next bench, never one of a bench still running
 * (PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { CHILD_NODE_FLAGS, CLEAN_ENV, CLI, REPO_ROOT } from '../support/cli-run.js';
import { NEEDS, unavailable } from '../support/requirements.js';
import { serverPgTarget } from '../support/databases.js';
import { tempDir } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';

const server = serverPgTarget();

const BENCH_SCHEMAS = "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'order\\_loader\\_bench\\_%' ORDER BY nspname";

interface Target {
  kind: string;
  /** A fresh migrated database: its URL, the bench schemas in it now, and a way to drop it. */
  create(): Promise<{ url: string; benchSchemas(): Promise<string[]>; dispose(): Promise<void> }>;
}

const targets: Target[] = [
  {
    kind: 'pglite',
    async create() {
      const { url, dataDir } = await migratedPgliteDb();
      return {
        url,
        async benchSchemas() {
          const db = await PGlite.create(dataDir);
          try {
            return (await db.query<{ nspname: string }>(BENCH_SCHEMAS)).rows.map((r) => r.nspname);
          } finally {
            await db.close();
          }
        },
        dispose: () => Promise.resolve(),
      };
    },
  },
  ...(server === null
    ? []
    : [
        {
          kind: 'postgres',
          async create() {
            const db = await server.create();
            const url = db.url!;
            return {
              url,
              async benchSchemas() {
                const client = new pg.Client({ connectionString: url });
                await client.connect();
                try {
                  return (await client.query<{ nspname: string }>(BENCH_SCHEMAS)).rows.map((r) => r.nspname);
                } finally {
                  await client.end();
                }
              },
              dispose: () => db.dispose(),
            };
          },
        },
      ]),
];

/**
 * The bench as a child process whose stdout and stderr are closed by their reader after the
 * first bytes on either (what `2>&1 | head -1` does): resolves with its exit code.
 */
function benchWithReaderGone(args: string[], tmp: string): Promise<number | null> {
  const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, CLI, 'bench', ...args], {
    cwd: REPO_ROOT,
    env: { ...CLEAN_ENV, TMPDIR: tmp },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const closeReaders = () => {
    child.stdout.destroy();
    child.stderr.destroy();
  };
  child.stdout.once('data', closeReaders);
  child.stderr.once('data', closeReaders);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => resolve(code));
  });
}

/** A bench as a child process, its stderr collected. */
function startBench(
  args: string[],
  tmp: string,
): { child: ChildProcessWithoutNullStreams; stderr: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, CLI, 'bench', ...args, '--log-level', 'info'], {
    cwd: REPO_ROOT,
    env: { ...CLEAN_ENV, TMPDIR: tmp },
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdout.resume();
  const exit = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => resolve(code));
  });
  return { child, stderr: () => stderr, exit };
}

/** Until the bench is inside a case (its workspace made, staging begun). */
async function untilStaging(bench: { stderr: () => string }): Promise<void> {
  while (!bench.stderr().includes('"msg":"staging"')) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe.skipIf(unavailable(NEEDS.cli)).each(targets)('bench whose reader went away ($kind)', (target) => {
  it('runs to its end and leaves neither its workspace schema nor its generated file', async () => {
    const db = await target.create();
    try {
      const tmp = tempDir();
      const chart = join(tempDir(), 'chart.svg');
      const code = await benchWithReaderGone(
        ['--db', db.url, '--rows', '3000', '--chunk-sizes', '500,1000', '--workers', '1', '--chart', chart, '--log-level', 'info'],
        tmp,
      );
      expect(code).toBe(0);
      expect(readdirSync(tmp)).toEqual([]);
      expect(existsSync(chart)).toBe(true);
      expect(await db.benchSchemas()).toEqual([]);
    } finally {
      await db.dispose();
    }
  }, 180_000);
});

describe.skipIf(unavailable(NEEDS.cli)).each(targets)('the workspace of a bench that died ($kind)', (target) => {
  it('is dropped by the next bench, and its generated file removed; it says so', async () => {
    const db = await target.create();
    try {
      const chart = join(tempDir(), 'chart.svg');
      const tmp = tempDir();
      const dead = startBench(['--db', db.url, '--rows', '200000', '--chunk-sizes', '500', '--workers', '1', '--chart', chart], tmp);
      await untilStaging(dead);
      dead.child.kill('SIGKILL');
      await dead.exit;
      const deadFiles = readdirSync(tmp).filter((n) => n.startsWith('order-loader-bench-'));
      expect(deadFiles, readdirSync(tmp).join(' ')).toEqual([
        expect.stringMatching(new RegExp(`^order-loader-bench-${String(dead.child.pid)}-[0-9a-f]{8}\\.csv$`)),
      ]);
      // a file of a bench still running (this process stands for it) is not touched
      const runningFile = `order-loader-bench-${process.pid}-0123abcd.csv`;
      writeFileSync(join(tmp, runningFile), '');
      // the folder a bench makes for a profile that takes values from the file name (file_pattern)
      const deadFolder = `order-loader-bench-${String(dead.child.pid)}-abcdef01`;
      mkdirSync(join(tmp, deadFolder));
      writeFileSync(join(tmp, deadFolder, 'shop_JPY_11111111.tsv'), 'id\n');
      const left = await db.benchSchemas();
      const leftover = left[0] ?? '';
      expect(left).toHaveLength(1);

      const next = startBench(['--db', db.url, '--rows', '500', '--chunk-sizes', '500', '--workers', '1', '--chart', chart], tmp);
      expect(await next.exit, next.stderr()).toBe(0);
      expect(readdirSync(tmp)).toEqual([runningFile]);
      expect(next.stderr()).toContain(`"file":"${deadFiles[0] ?? ''}","msg":"bench: removed the generated file of a run that is gone"`);
      expect(next.stderr()).toContain(`"file":"${deadFolder}","msg":"bench: removed the generated file of a run that is gone"`);
      expect(next.stderr()).toContain(`"workspace":"${leftover}","msg":"bench: dropped the workspace of a run that is gone"`);
      expect(await db.benchSchemas()).toEqual([]);
    } finally {
      await db.dispose();
    }
  }, 180_000);

  it.skipIf(target.kind !== 'postgres')(
    "is not a running bench's: a second bench leaves that one alone",
    async () => {
      const db = await target.create();
      try {
        const chart = join(tempDir(), 'chart.svg');
        const running = startBench(
          ['--db', db.url, '--rows', '200000', '--chunk-sizes', '500', '--workers', '1', '--chart', chart],
          tempDir(),
        );
        await untilStaging(running);
        const [theirs] = await db.benchSchemas();
        expect(theirs).toBeDefined();

        const second = startBench(['--db', db.url, '--rows', '500', '--chunk-sizes', '500', '--workers', '1', '--chart', chart], tempDir());
        expect(await second.exit, second.stderr()).toBe(0);
        expect(second.stderr()).not.toContain('dropped the workspace of a run that is gone');
        expect(await db.benchSchemas()).toEqual([theirs]);

        running.child.kill('SIGINT');
        expect(await running.exit).toBe(1);
        expect(running.stderr()).toContain('bench interrupted: the workspace was dropped');
        expect(await db.benchSchemas()).toEqual([]);
      } finally {
        await db.dispose();
      }
    },
    180_000,
  );
});
