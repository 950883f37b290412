/**
 * One job at a time per inbox: a run that reads a directory or a pattern (or moves files, with
 * --archive-dir / --failed-dir) holds the lock file `.order-loader-inbox.lock` of every folder
 * it reads from, from before it lists them until its files are moved. A second run (cron firing
 * again while the first still runs) waits for it, as long as --lock-timeout says, and then
 * lists the folder afresh: the files the first run finished are in the archive by then, and a
 * file it left is skipped by its identity or resumed. Nothing is staged twice, also on a server
 * database where the two runs could otherwise overlap.
 *
 * The lock is src/engine/folder-lock.ts's: written complete under a private name and
 * hard-linked into place, taken over when its holder is gone (kill -9).
 */
import { resolve } from 'node:path';
import { acquireLockFile, type FolderLock, type FolderLockOptions } from '../engine/folder-lock.js';

export const INBOX_LOCK_NAME = '.order-loader-inbox.lock';

/** Lock every folder in `dirs` (each once, in path order, so that two runs never wait for each other crosswise). */
export async function lockInboxes(
  dirs: string[],
  options: FolderLockOptions & { onUnlockable: (message: string) => void },
): Promise<{ release(): void }> {
  const held: FolderLock[] = [];
  const release = () => {
    for (const lock of held.splice(0).reverse()) lock.release();
  };
  try {
    for (const dir of [...new Set(dirs.map((d) => resolve(d)))].sort()) {
      try {
        held.push(await acquireLockFile(`${dir}/${INBOX_LOCK_NAME}`, `inbox ${dir}`, options));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // a folder we may read but not write (no file is moved out of it): read it unlocked, and say so
        if (code !== 'EACCES' && code !== 'EROFS' && code !== 'EPERM') throw error;
        options.onUnlockable(`inbox ${dir}: cannot write its lock file (${code}): a run started meanwhile could stage its files too`);
      }
    }
  } catch (error) {
    release();
    throw error;
  }
  return { release };
}
