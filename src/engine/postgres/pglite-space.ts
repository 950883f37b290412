import { statfsSync } from 'node:fs';

/**
 * Free space kept on a PGlite folder's file system. PostgreSQL meets a full disk in two ways:
 * extending a table fails with 53100 (an ERROR: the transaction rolls back, nothing is lost), but
 * a WAL write that fails is a PANIC, and PGlite, which runs PostgreSQL inside this thread, then
 * loops for ever in XLogFlush: the process spins, deaf to SIGTERM, holding the folder lock, and
 * not even the run's end can be recorded (seen: an 80 MB file system, a 1,000,000-line load; which
 * write met the full disk first varied from try to try). So once a transaction of this process
 * has taken space, none is begun when the file system has less free than MIN_FREE_BYTES or twice
 * the most one transaction took so far (a larger batch, a checkpoint): the command stops with
 * 53100 before the disk is full, and what it writes to end its runs still fits. A command that
 * writes nothing (`runs`, `status`: what an operator looks at first) only needs
 * ENDING_FREE_BYTES, as does a command ending its runs after a refusal.
 */
export const MIN_FREE_BYTES = 16 * 1024 * 1024;

/** Before any transaction took space, and after a refusal (the little that ends the runs). */
export const ENDING_FREE_BYTES = 1024 * 1024;

export interface SpaceGuard {
  /** Before a transaction: throws a 53100 error when too little is free. */
  check(): void;
}

/** Free bytes for this process on the file system of `dir`. */
export function freeBytes(dir: string): number {
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
}

const MIB = 1024 * 1024;

export function spaceGuard(dir: string, free: () => number = () => freeBytes(dir)): SpaceGuard {
  let largestTaken = 0;
  let before: number | null = null;
  let refused = false;
  return {
    check() {
      const now = free();
      if (before !== null) largestTaken = Math.max(largestTaken, before - now);
      before = now;
      const needed = refused || largestTaken <= 0 ? ENDING_FREE_BYTES : Math.max(MIN_FREE_BYTES, 2 * largestTaken);
      if (now >= needed) return;
      refused = true;
      throw Object.assign(
        new Error(
          `could not extend the database: ${(now / MIB).toFixed(1)} MiB free on the file system of ${dir}, ` +
            `under the ${(needed / MIB).toFixed(1)} MiB kept free (PostgreSQL stops dead when it cannot write its WAL)`,
        ),
        { code: '53100' },
      );
    },
  };
}
