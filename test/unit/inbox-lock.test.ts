/**
 * One job at a time per inbox (src/input/inbox-lock.ts): the lock file of every folder a run
 * reads from, taken in path order, each folder once; all of them given back when one cannot be
 * taken. The lock itself (waiting, taking over an abandoned one) is folder-lock.test.ts's.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLockFile, DatabaseBusyError } from '../../src/engine/folder-lock.js';
import { INBOX_LOCK_NAME, lockInboxes } from '../../src/input/inbox-lock.js';
import { tempDir } from '../support/files.js';

const locked = (dir: string) => existsSync(join(dir, INBOX_LOCK_NAME));
const escapeRe = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function twoInboxes(): { a: string; b: string } {
  const root = tempDir();
  const a = join(root, 'a');
  const b = join(root, 'b');
  mkdirSync(a);
  mkdirSync(b);
  return { a, b };
}

const noUnlockable = (message: string) => {
  throw new Error(`not expected: ${message}`);
};

/**
 * A folder this process cannot write in: mode 555 for a user, the immutable flag for root (who
 * writes through any mode). null where neither can be had (root without CAP_LINUX_IMMUTABLE).
 */
function unwritableDir(): { dir: string; restore(): void } | null {
  const dir = join(tempDir(), 'ro');
  mkdirSync(dir);
  chmodSync(dir, 0o555);
  try {
    writeFileSync(join(dir, 'probe'), '');
  } catch {
    return { dir, restore: () => chmodSync(dir, 0o755) };
  }
  // written: we are root
  chmodSync(dir, 0o755);
  spawnSync('rm', [join(dir, 'probe')]);
  if (spawnSync('chattr', ['+i', dir]).status !== 0) return null;
  return { dir, restore: () => void spawnSync('chattr', ['-i', dir]) };
}

describe('lockInboxes: the lock file of every folder read', () => {
  it('writes the lock file of each folder and removes them at release', async () => {
    const { a, b } = twoInboxes();
    const lock = await lockInboxes([b, a], { command: 'load', timeoutMs: 0, onUnlockable: noUnlockable });
    expect([locked(a), locked(b)]).toEqual([true, true]);
    // another run is refused while they are held (here: not waiting), naming the inbox and the holder
    const refused = lockInboxes([a], { command: 'process', timeoutMs: 0, onUnlockable: noUnlockable });
    await expect(refused).rejects.toBeInstanceOf(DatabaseBusyError);
    await expect(refused).rejects.toThrow(new RegExp(`^inbox ${escapeRe(a)} is in use by "load" \\(pid ${process.pid} `));
    lock.release();
    expect([locked(a), locked(b)]).toEqual([false, false]);
    // safe to release twice; the folders can be locked again
    lock.release();
    const again = await lockInboxes([a, b], { command: 'load', timeoutMs: 0, onUnlockable: noUnlockable });
    expect([locked(a), locked(b)]).toEqual([true, true]);
    again.release();
  });

  it('a folder named twice (another spelling of the same path) is locked once, not waited for by itself', async () => {
    const { a } = twoInboxes();
    const lock = await lockInboxes([a, `${a}/`, join(a, '.'), relative(process.cwd(), a)], {
      command: 'load',
      timeoutMs: 0,
      onUnlockable: noUnlockable,
    });
    expect(locked(a)).toBe(true);
    lock.release();
    expect(locked(a)).toBe(false);
  });

  it('takes the folders in path order, whatever order they are named in (two runs never wait for each other crosswise)', async () => {
    const { a, b } = twoInboxes();
    // another run holds b; this run names b first
    const other = await acquireLockFile(join(b, INBOX_LOCK_NAME), `inbox ${b}`, { command: 'process', timeoutMs: 0 });
    const seenWhileWaiting: boolean[] = [];
    const lock = await lockInboxes([b, a], {
      command: 'load',
      timeoutMs: 10_000,
      pollMs: 20,
      onUnlockable: noUnlockable,
      onWait: () => {
        // waiting for b: a, first in path order, is held already
        seenWhileWaiting.push(locked(a));
        setTimeout(() => other.release(), 50);
      },
    });
    expect(seenWhileWaiting).toEqual([true]);
    expect([locked(a), locked(b)]).toEqual([true, true]);
    lock.release();
  });

  it('a folder that cannot be locked for another reason: the ones taken are given back, and the error is thrown', async () => {
    const { a } = twoInboxes();
    const missing = join(a, '..', 'zz-missing');
    await expect(lockInboxes([missing, a], { command: 'load', timeoutMs: 0, onUnlockable: noUnlockable })).rejects.toMatchObject({
      code: 'ENOENT',
    });
    expect(locked(a)).toBe(false);
    // a held folder: the same
    const { a: free, b: held } = twoInboxes();
    const other = await acquireLockFile(join(held, INBOX_LOCK_NAME), `inbox ${held}`, { command: 'process', timeoutMs: 0 });
    await expect(lockInboxes([held, free], { command: 'load', timeoutMs: 0, onUnlockable: noUnlockable })).rejects.toBeInstanceOf(
      DatabaseBusyError,
    );
    expect(locked(free)).toBe(false);
    other.release();
  });

  it('a folder it may not write in: read unlocked, said once, the other folders locked', async (ctx) => {
    const ro = unwritableDir();
    if (ro === null) return ctx.skip('no folder this process cannot write in (root without the immutable flag)');
    const { a } = twoInboxes();
    try {
      const said: string[] = [];
      const lock = await lockInboxes([ro.dir, a], { command: 'load', timeoutMs: 0, onUnlockable: (m) => said.push(m) });
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(
        new RegExp(
          `^inbox ${escapeRe(ro.dir)}: cannot write its lock file \\((EACCES|EPERM)\\): a run started meanwhile could stage its files too$`,
        ),
      );
      expect(locked(a)).toBe(true);
      lock.release();
      expect(locked(a)).toBe(false);
    } finally {
      ro.restore();
    }
  });
});
