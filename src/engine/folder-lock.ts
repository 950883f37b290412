/**
 * An exclusive lock on an embedded database folder, held by one process for a whole command.
 *
 * PGlite's data folder is one process's: two processes writing it lose rows and break unique
 * keys without an error. The lock is a file in the folder naming the holder (pid, host, command,
 * since when, and what identifies that process beyond its pid). Every file this module makes
 * visible is written completely under a private name first and then hard-linked into place
 * (link fails atomically when the name exists), so a reader never sees half a lock.
 *
 * A lock whose holder is gone (same host: the pid is free, or now belongs to a process started
 * later, or the machine rebooted) is taken over. Taking over must not let two processes in:
 * whoever takes over the lock with token K first creates the guard `<lock>.takeover-K`
 * exclusively (holding its own new lock record), checks that the lock still holds K, and then
 * renames the guard onto the lock: one atomic step that installs its lock and frees the guard
 * name. A second taker of the same stale K either finds the guard taken (and waits) or gets it
 * later and finds the lock no longer K (and starts over). A guard left by a taker that died is
 * itself stale: it is taken over the same way through the guard named after its token.
 */
import { randomBytes } from 'node:crypto';
import { sleep } from '../sleep.js';
import { chmodSync, linkSync, lstatSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { RunAbortedError } from '../errors.js';

export const LOCK_FILE_NAME = 'order-loader.lock';

/** What a lock file says about its holder. */
export interface LockHolder {
  pid: number;
  host: string;
  command: string;
  /** ISO time the lock was taken. */
  since: string;
  /** Unique per acquisition: what "this is still the lock I saw" is checked against. */
  token: string;
  /** Linux: the holder's start time in clock ticks since boot (/proc/<pid>/stat field 22): a reused pid has another. */
  startTicks: string | null;
  /** Linux: the boot the holder ran in; after a reboot no process of it exists. */
  bootId: string | null;
}

/** The folder is held by another process and the wait ended (or there was none). */
export class DatabaseBusyError extends RunAbortedError {
  constructor(
    message: string,
    readonly holder: LockHolder | null,
  ) {
    super(message, 'unreachable');
  }
}

export interface FolderLockOptions {
  /** What this process is doing: named in the lock file and so in a waiter's message. */
  command: string;
  /** How long to wait for a holder to finish; 0 refuses at once. */
  timeoutMs: number;
  /** Poll interval while waiting (default 200 ms). */
  pollMs?: number | undefined;
  /** Told once when the wait starts and again whenever the holder changes. */
  onWait?: ((message: string, holder: LockHolder | null) => void) | undefined;
  signal?: AbortSignal | undefined;
  /** Liveness of a holder on this host (tests replace it). */
  isAlive?: ((holder: LockHolder) => boolean) | undefined;
}

export interface FolderLock {
  readonly path: string;
  readonly holder: LockHolder;
  /** Remove the lock (only if it is still ours); safe to call twice. */
  release(): void;
}

/** A lock file without a readable record this old is treated as abandoned (ours are never partial). */
const UNREADABLE_STALE_MS = 60_000;

type Seen = { kind: 'missing' } | { kind: 'holder'; holder: LockHolder } | { kind: 'unreadable'; token: string; ageMs: number };

/** Take the lock on `dir` (which must exist), waiting up to options.timeoutMs. */
export function acquireFolderLock(dir: string, options: FolderLockOptions): Promise<FolderLock> {
  return acquireLockFile(join(dir, LOCK_FILE_NAME), `database folder ${dir}`, options);
}

/**
 * Take the lock file `path` (its folder must exist), the same way: `what` it guards is named in
 * the messages (an inbox folder's lock, src/input/inbox-lock.ts, is one too).
 */
export async function acquireLockFile(path: string, what: string, options: FolderLockOptions): Promise<FolderLock> {
  const isAlive = options.isAlive ?? holderIsAlive;
  const pollMs = options.pollMs ?? 200;
  const started = Date.now();
  let lastAnnounced: string | null = null;
  for (;;) {
    if (options.signal?.aborted) throw new RunAbortedError(`interrupted while waiting for the ${what}`, 'interrupted');
    const mine = newRecord(options.command);
    if (publish(path, mine)) return held(path, mine);
    const seen = readLock(path);
    if (seen.kind !== 'missing') {
      if (isStale(seen, isAlive)) {
        if (takeOver(path, seen.kind === 'holder' ? seen.holder.token : seen.token, mine, isAlive)) return held(path, mine);
        // another process is taking the same abandoned lock over right now: a moment's work, so
        // look again shortly even when told not to wait
        if (Date.now() - started < Math.max(options.timeoutMs, 5000)) {
          await sleep(Math.min(pollMs, 50), options.signal);
          continue;
        }
      }
      const holder = seen.kind === 'holder' ? seen.holder : null;
      const waited = Date.now() - started;
      if (waited >= options.timeoutMs) {
        throw new DatabaseBusyError(
          `${busyMessage(what, path, seen)}; ${options.timeoutMs === 0 ? 'not waiting (--lock-timeout 5m waits)' : `gave up after waiting ${formatMs(options.timeoutMs)} (--lock-timeout)`}`,
          holder,
        );
      }
      const key = seen.kind === 'holder' ? seen.holder.token : seen.token;
      if (key !== lastAnnounced) {
        lastAnnounced = key;
        options.onWait?.(
          `${busyMessage(what, path, seen)}; waiting up to ${formatMs(Math.ceil((options.timeoutMs - waited) / 1000) * 1000)} for it`,
          holder,
        );
      }
      await sleep(Math.min(pollMs, Math.max(1, options.timeoutMs - waited)), options.signal);
    }
  }
}

/** Describe the holder in one line: what it is doing, pid, host, since when. */
function busyMessage(what: string, path: string, seen: Seen): string {
  if (seen.kind !== 'holder') return `${what} is locked by ${path}, which names no holder`;
  const h = seen.holder;
  const remote =
    h.host !== hostname() ? ` (another host: whether it still runs cannot be seen from here; if it does not, delete ${path})` : '';
  return `${what} is in use by "${h.command}" (pid ${h.pid} on host ${h.host}, since ${h.since})${remote}`;
}

function held(path: string, holder: LockHolder): FolderLock {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    const seen = readLock(path);
    // only our own lock is removed: never one a taker installed after judging us gone
    if (seen.kind === 'holder' && seen.holder.token === holder.token) unlinkQuietly(path);
  };
  // a process that exits without closing (process.exit, a second signal) writes nothing more
  // to the folder after this point, so its lock can go with it
  process.on('exit', release);
  return { path, holder, release };
}

function newRecord(command: string): LockHolder {
  return {
    pid: process.pid,
    host: hostname(),
    command,
    since: new Date().toISOString(),
    token: randomBytes(12).toString('hex'),
    startTicks: processStartTicks(process.pid),
    bootId: bootId(),
  };
}

/** Make `record` visible at `path` unless something is there: complete or not at all. */
function publish(path: string, record: LockHolder): boolean {
  const temp = `${path}.${record.pid}.${record.token}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify(record)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // made but not written (ENOSPC, EDQUOT, EIO): ours, and no lock: not left behind
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') unlinkQuietly(temp);
    throw error;
  }
  try {
    linkSync(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkQuietly(temp);
  }
}

function readLock(path: string): Seen {
  let text: string;
  let mtimeMs: number;
  let ino: number;
  try {
    const stat = lstatSync(path);
    mtimeMs = stat.mtimeMs;
    ino = stat.ino;
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw error;
  }
  const holder = parseHolder(text);
  return holder !== null
    ? { kind: 'holder', holder }
    : { kind: 'unreadable', token: `unreadable-${ino}-${Math.trunc(mtimeMs)}`, ageMs: Date.now() - mtimeMs };
}

function tokenOf(seen: Seen): string | null {
  return seen.kind === 'holder' ? seen.holder.token : seen.kind === 'unreadable' ? seen.token : null;
}

function parseHolder(text: string): LockHolder | null {
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    if (typeof v.pid !== 'number' || typeof v.host !== 'string' || typeof v.token !== 'string' || typeof v.since !== 'string') return null;
    return {
      pid: v.pid,
      host: v.host,
      command: typeof v.command === 'string' ? v.command : '?',
      since: v.since,
      token: v.token,
      startTicks: typeof v.startTicks === 'string' ? v.startTicks : null,
      bootId: typeof v.bootId === 'string' ? v.bootId : null,
    };
  } catch {
    return null;
  }
}

function isStale(seen: Seen, isAlive: (holder: LockHolder) => boolean): boolean {
  if (seen.kind === 'unreadable') return seen.ageMs > UNREADABLE_STALE_MS;
  if (seen.kind !== 'holder') return false;
  // another host's processes cannot be seen from here: its lock is never judged abandoned
  return seen.holder.host === hostname() && !isAlive(seen.holder);
}

/**
 * Replace the stale lock whose token is `staleToken` with `mine`; false if another process is
 * doing so, or the lock changed meanwhile (the caller looks again).
 */
function takeOver(path: string, staleToken: string, mine: LockHolder, isAlive: (holder: LockHolder) => boolean): boolean {
  // chain[i] is the guard for the token expected in chain[i-1] (the lock itself before chain[0])
  const chain: Array<{ guard: string; token: string }> = [];
  let expected = staleToken;
  for (;;) {
    const guard = `${path}.takeover-${expected}`;
    if (publish(guard, mine)) break;
    const seen = readLock(guard);
    if (seen.kind === 'missing') return false; // its taker finished or gave up: look again
    if (!isStale(seen, isAlive)) return false; // a live process is taking it over
    const token = tokenOf(seen);
    if (token === null || chain.length > 8) return false;
    chain.push({ guard, token });
    expected = token;
  }
  const ourGuard = `${path}.takeover-${expected}`;
  // Only the holder of the deepest guard may change the lock or the guards before it, and their
  // holders are gone: what is read now stays so until the rename below.
  const unchanged = tokenOf(readLock(path)) === staleToken && chain.every((g) => tokenOf(readLock(g.guard)) === g.token);
  if (!unchanged) {
    unlinkQuietly(ourGuard);
    return false;
  }
  renameSync(ourGuard, path);
  for (const g of chain) {
    if (tokenOf(readLock(g.guard)) === g.token) unlinkQuietly(g.guard);
  }
  return true;
}

/** Same host: is the process that wrote this record still running (and the same process)? */
export function holderIsAlive(holder: LockHolder): boolean {
  if (holder.pid === process.pid) return true;
  const boot = bootId();
  if (holder.bootId !== null && boot !== null && holder.bootId !== boot) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const stat = procStat(holder.pid);
  // exited but not yet reaped by its parent: it writes nothing any more
  if (stat?.state === 'Z') return false;
  // a pid now used by a process that started at another time is not the holder
  return !(holder.startTicks !== null && stat !== null && stat.startTicks !== holder.startTicks);
}

/** /proc/<pid>/stat field 22 (starttime), or null where there is no /proc. */
export function processStartTicks(pid: number): string | null {
  return procStat(pid)?.startTicks ?? null;
}

function procStat(pid: number): { state: string; startTicks: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) is in parentheses and may hold spaces or parentheses itself
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const state = fields[0];
    const startTicks = fields[19];
    return state !== undefined && startTicks !== undefined ? { state, startTicks } : null;
  } catch {
    return null;
  }
}

let cachedBootId: string | null | undefined;
function bootId(): string | null {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      cachedBootId = null;
    }
  }
  return cachedBootId;
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

export function formatMs(ms: number): string {
  if (ms % 3_600_000 === 0 && ms > 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)}s` : `${ms}ms`;
}

/**
 * Take group and other permissions off everything under `dir` (and `dir` itself): the folder
 * 0700, its files at most 0600. PGlite creates most files 0666 whatever the umask.
 */
export function restrictToOwner(dir: string, recursive = true): void {
  const stat = lstatSync(dir);
  if (stat.isSymbolicLink()) return;
  if ((stat.mode & 0o077) !== 0) {
    try {
      chmodSync(dir, stat.mode & 0o700);
    } catch (error) {
      // another user's file: its permissions are that user's decision, not ours to fail on
      if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
    }
  }
  if (!stat.isDirectory() || !recursive) return;
  for (const name of readdirSync(dir)) {
    try {
      restrictToOwner(join(dir, name));
    } catch (error) {
      // a file PostgreSQL removed meanwhile (a temporary one) needs nothing
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}
