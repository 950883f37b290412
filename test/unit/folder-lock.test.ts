/**
 * The lock on an embedded (PGlite) database folder: one process at a time. PGlite-only by
 * nature: server databases have no folder to lock.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  acquireFolderLock,
  acquireLockFile,
  DatabaseBusyError,
  LOCK_FILE_NAME,
  processStartTicks,
  type FolderLock,
  type LockHolder,
} from '../../src/engine/folder-lock.js';
import { OrderLoader } from '../../src/loader.js';
import { defaultLockTimeoutMs, parseCommandLine } from '../../src/cli/options.js';
import { memoryLogger } from '../support/memory-logger.js';
import { tempDir } from '../support/files.js';
import { fullDeviceAvailable, mountFullDevice, type FullDevice } from '../support/full-device.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const builtLock = `${root}dist/src/engine/folder-lock.js`;

const dirs: string[] = [];
const held: FolderLock[] = [];
afterEach(() => {
  for (const lock of held.splice(0)) lock.release();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function freshDir(): string {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
}

/** A pid that belonged to a process of this host that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  if (child.error !== undefined) throw new Error('could not start a child');
  return child.pid;
}

function lockRecord(dir: string, name = LOCK_FILE_NAME): LockHolder {
  return JSON.parse(readFileSync(join(dir, name), 'utf8')) as LockHolder;
}

function writeLock(dir: string, holder: Partial<LockHolder>, name = LOCK_FILE_NAME): LockHolder {
  const record: LockHolder = {
    pid: deadPid(),
    host: hostname(),
    command: 'load',
    since: '2026-01-01T00:00:00.000Z',
    token: `stale${Math.random().toString(16).slice(2)}`,
    startTicks: null,
    bootId: null,
    ...holder,
  };
  writeFileSync(join(dir, name), JSON.stringify(record));
  return record;
}

async function take(dir: string, command: string, timeoutMs: number, extra: { onWait?: (m: string) => void } = {}): Promise<FolderLock> {
  const lock = await acquireFolderLock(dir, { command, timeoutMs, pollMs: 20, ...extra });
  held.push(lock);
  return lock;
}

describe('the lock on an embedded database folder (PGlite only)', () => {
  it('takes over the lock of a process that is gone, and releases it', async () => {
    const dir = freshDir();
    const stale = writeLock(dir, {});
    const lock = await take(dir, 'process', 0);
    expect(lockRecord(dir)).toMatchObject({ pid: process.pid, host: hostname(), command: 'process', token: lock.holder.token });
    expect(lockRecord(dir).token).not.toBe(stale.token);
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE_NAME))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('takes over a lock whose pid now belongs to a later process (pid reuse: another start time)', async () => {
    const dir = freshDir();
    const ticks = processStartTicks(process.ppid);
    if (ticks === null) return; // no /proc: the start time cannot be compared here
    writeLock(dir, { pid: process.ppid, startTicks: String(Number(ticks) + 1) });
    const lock = await take(dir, 'load', 0);
    expect(lockRecord(dir).token).toBe(lock.holder.token);
  });

  it('takes over a lock of a process that exited but was not reaped yet (a zombie)', async () => {
    const dir = freshDir();
    // the backgrounded sleep exits after its parent shell became `sleep 30`, which never reaps it
    const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()))));
      const stat = () => (existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '');
      if (!existsSync('/proc/self/stat')) return; // no /proc here: a zombie cannot be told apart
      for (let i = 0; i < 1000 && !/\) Z /.test(stat()); i++) await new Promise((r) => setTimeout(r, 10));
      expect(stat()).toMatch(/\) Z /);
      writeLock(dir, { pid, startTicks: processStartTicks(pid) });
      const lock = await take(dir, 'load', 0);
      expect(lockRecord(dir).token).toBe(lock.holder.token);
    } finally {
      parent.kill();
    }
  });

  it('takes over a lock left by a taker that died mid-takeover (its guard is stale too)', async () => {
    const dir = freshDir();
    const stale = writeLock(dir, {});
    const deadTaker = writeLock(dir, {}, `${LOCK_FILE_NAME}.takeover-${stale.token}`);
    const lock = await take(dir, 'load', 0);
    expect(lockRecord(dir).token).toBe(lock.holder.token);
    expect(deadTaker.token).not.toBe(lock.holder.token);
    expect(readdirSync(dir)).toEqual([LOCK_FILE_NAME]);
  });

  it('never judges a lock from another host abandoned: refuses, naming the host and the file to delete', async () => {
    const dir = freshDir();
    writeLock(dir, { pid: 1, host: 'elsewhere.example', command: 'load' });
    const error = await take(dir, 'status', 0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseBusyError);
    expect((error as Error).message).toContain('(pid 1 on host elsewhere.example, since 2026-01-01T00:00:00.000Z)');
    expect((error as Error).message).toContain(`delete ${join(dir, LOCK_FILE_NAME)}`);
  });

  it('a second acquirer waits while the holder lives (told once, naming it) and gets the lock after its release', async () => {
    const dir = freshDir();
    const first = await take(dir, 'load', 0);
    const waits: string[] = [];
    let released = false;
    setTimeout(() => {
      released = true;
      first.release();
    }, 400);
    const second = await take(dir, 'process', 30_000, { onWait: (m) => waits.push(m) });
    expect(released).toBe(true);
    expect(waits).toEqual([
      `database folder ${dir} is in use by "load" (pid ${process.pid} on host ${hostname()}, since ${first.holder.since}); waiting up to 30s for it`,
    ]);
    expect(lockRecord(dir)).toMatchObject({ command: 'process', token: second.holder.token });
  });

  it('gives up after the timeout with one line naming command, pid, host and since when', async () => {
    const dir = freshDir();
    const first = await take(dir, 'load', 0);
    const error = await take(dir, 'process', 300).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseBusyError);
    expect((error as Error).message).toBe(
      `database folder ${dir} is in use by "load" (pid ${process.pid} on host ${hostname()}, since ${first.holder.since}); gave up after waiting 300ms (--lock-timeout)`,
    );
    expect(lockRecord(dir).token).toBe(first.holder.token);
  });

  it('an interrupted wait ends at once', async () => {
    const dir = freshDir();
    await take(dir, 'load', 0);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await acquireFolderLock(dir, { command: 'process', timeoutMs: 60_000, signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toContain('interrupted while waiting');
  });

  it.skipIf(unavailable(NEEDS.cli) || !existsSync(builtLock))(
    'several processes finding one stale lock at the same instant: exactly one takes it',
    async () => {
      const takers = 6;
      for (let round = 0; round < 3; round++) {
        const dir = freshDir();
        const control = join(freshDir(), 'control');
        mkdirSync(control);
        writeLock(dir, {});
        // each child: say ready, wait for "go", try once (no waiting), report, hold until "done"
        const script = `
        import { acquireFolderLock } from ${JSON.stringify(pathToFileURL(builtLock).href)};
        import { existsSync, writeFileSync } from 'node:fs';
        const wait = (f) => new Promise((r) => { const t = setInterval(() => { if (existsSync(f)) { clearInterval(t); r(); } }, 2); });
        writeFileSync(${JSON.stringify(control)} + '/ready-' + process.pid, '');
        await wait(${JSON.stringify(`${control}/go`)});
        try {
          const lock = await acquireFolderLock(${JSON.stringify(dir)}, { command: 'taker', timeoutMs: 0 });
          process.stdout.write('won\\n');
          await wait(${JSON.stringify(`${control}/done`)});
          lock.release();
        } catch (e) { process.stdout.write('lost: ' + e.message + '\\n'); }
      `;
        const children = Array.from({ length: takers }, () => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
          let out = '';
          child.stdout.on('data', (d: Buffer) => (out += d.toString()));
          const reported = new Promise<string>((resolve) => {
            child.stdout.on('data', () => {
              if (out.includes('\n')) resolve(out.trim());
            });
            child.on('exit', () => resolve(out.trim()));
          });
          const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
          return { reported, exited };
        });
        while (readdirSync(control).length < takers) await new Promise((r) => setTimeout(r, 10));
        writeFileSync(join(control, 'go'), '');
        const outcomes = await Promise.all(children.map((c) => c.reported));
        writeFileSync(join(control, 'done'), '');
        await Promise.all(children.map((c) => c.exited));
        expect(outcomes.filter((o) => o === 'won')).toHaveLength(1);
        expect(outcomes.filter((o) => o.startsWith('lost: ') && o.includes('is in use by "taker"'))).toHaveLength(takers - 1);
        expect(readdirSync(dir)).toEqual([]);
      }
    },
    60_000,
  );

  it('OrderLoader.open on a pglite folder takes the lock too: a second open refuses while the first is open', async () => {
    // a migrated folder: the lock is the subject, not a new folder's initdb (about 7 s of CPU)
    const { dataDir: dir } = await migratedPgliteDb();
    const first = await OrderLoader.open({ db: `pglite:${dir}`, logger: memoryLogger().logger, env: {}, command: 'first' });
    try {
      expect(lockRecord(dir)).toMatchObject({ pid: process.pid, command: 'first' });
      const logs = memoryLogger();
      const error = await OrderLoader.open({ db: `pglite:${dir}`, logger: logs.logger, env: {}, lockTimeoutMs: 200 }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(DatabaseBusyError);
      expect((error as Error).message).toMatch(
        /^database folder .* is in use by "first" \(pid \d+ on host .*\); gave up after waiting 200ms/,
      );
      expect(logs.records.filter((r) => r.level === 30 && r.msg.includes('waiting up to'))).toHaveLength(1);
    } finally {
      await first.close();
    }
    expect(existsSync(join(dir, LOCK_FILE_NAME))).toBe(false);
    // a folder an older version left open to everyone is made private again
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'PG_VERSION'), 0o666);
    const second = await OrderLoader.open({ db: `pglite:${dir}`, logger: memoryLogger().logger, env: {}, lockTimeoutMs: 0 });
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    expect(lstatSync(join(dir, 'PG_VERSION')).mode & 0o777).toBe(0o600);
    await second.close();
  }, 120_000);
});

describe('--lock-timeout', () => {
  it('takes a duration (a bare number is minutes, as --older-than); writing commands wait 10 minutes by default, reading ones not at all', () => {
    expect(parseCommandLine(['process', '--lock-timeout', '30s']).options['lock-timeout']).toBe(30_000);
    expect(parseCommandLine(['process', '--lock-timeout', '2']).options['lock-timeout']).toBe(120_000);
    expect(parseCommandLine(['status', '--lock-timeout', '0']).options['lock-timeout']).toBe(0);
    expect(parseCommandLine(['status']).options['lock-timeout']).toBeUndefined();
    expect(() => parseCommandLine(['load', 'x.csv', '--lock-timeout', 'soon'])).toThrow('--lock-timeout takes a duration');
    expect(['load', 'stage', 'process', 'retry', 'recover', 'init', 'bench'].map((c) => defaultLockTimeoutMs(c as 'load'))).toEqual(
      Array(7).fill(600_000),
    );
    expect(['status', 'errors', 'runs'].map((c) => defaultLockTimeoutMs(c as 'status'))).toEqual([0, 0, 0]);
  });
});

describe('a lock on a full device', () => {
  let full: FullDevice | null = null;
  beforeAll(() => {
    full = mountFullDevice();
  });
  afterAll(() => full?.unmount());
  it.skipIf(!fullDeviceAvailable())('cannot be taken (ENOSPC), and leaves no private .tmp file behind', async () => {
    const path = join(full!.dir, '.order-loader-inbox.lock');
    await expect(acquireLockFile(path, 'inbox', { command: 'test', timeoutMs: 0 })).rejects.toThrow(/ENOSPC/);
    expect(readdirSync(full!.dir).filter((n) => !n.startsWith('.fill'))).toEqual([]);
  });
});
