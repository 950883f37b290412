/**
 * Where the page's requests get their OrderLoader. A server database: one loader for the whole
 * life of the server (its pool). An embedded folder (pglite:<dir>) is one process's at a time and
 * a nightly load must get it: the folder is opened for a request (its lock taken with a short
 * wait: a load holding it is said as "a load is running", not waited for) and closed again once
 * no request has come for `holdMs`, so that a burst of clicks opens it once.
 */
import type { OrderLoader } from '../loader.js';

export interface LoaderSource {
  /** Run `fn` with the loader; requests are served one at a time on an embedded folder. */
  use<T>(fn: (loader: OrderLoader) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A loader that stays open (a server database, or a test's database). */
export function sharedSource(loader: OrderLoader, closeLoader = true): LoaderSource {
  return { use: (fn) => fn(loader), close: () => (closeLoader ? loader.close() : Promise.resolve()) };
}

/** How long an embedded folder stays open after the last request (its lock held): a load waits at most this long. */
export const FOLDER_HOLD_MS = 2000;

/**
 * How long a burst may keep the folder open: requests that never stop (a page reloaded every
 * second) would otherwise keep a waiting load out for good. Past it the folder is let go before
 * the next request and taken again FOLDER_YIELD_MS later: a load polling for the lock (every
 * 200 ms, src/engine/folder-lock.ts) takes it then, and the page says "a load is running".
 */
export const FOLDER_MAX_HOLD_MS = 5000;
export const FOLDER_YIELD_MS = 600;

export interface FolderTiming {
  holdMs?: number | undefined;
  maxHoldMs?: number | undefined;
  yieldMs?: number | undefined;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** An embedded folder, opened per burst of requests (see above); `open` takes the folder's lock with a short wait. */
export function folderSource(open: () => Promise<OrderLoader>, timing: number | FolderTiming = {}): LoaderSource {
  const t = typeof timing === 'number' ? { holdMs: timing } : timing;
  const holdMs = t.holdMs ?? FOLDER_HOLD_MS;
  const maxHoldMs = t.maxHoldMs ?? FOLDER_MAX_HOLD_MS;
  const yieldMs = t.yieldMs ?? FOLDER_YIELD_MS;
  let loader: OrderLoader | null = null;
  let openedAt = 0;
  let queue: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  const release = async (): Promise<void> => {
    const open = loader;
    loader = null;
    if (open !== null) await open.close();
  };

  const schedule = (): void => {
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      queue = queue.then(release, release);
    }, holdMs);
    timer.unref();
  };

  return {
    use<T>(fn: (loader: OrderLoader) => Promise<T>): Promise<T> {
      if (timer !== null) {
        clearTimeout(timer);
        timer = null;
      }
      const run = queue.then(async () => {
        if (closed) throw new Error('the server is closing');
        if (loader !== null && Date.now() - openedAt > maxHoldMs) {
          await release();
          await pause(yieldMs);
        }
        if (loader === null) {
          loader = await open();
          openedAt = Date.now();
        }
        return fn(loader);
      });
      queue = run.then(schedule, schedule);
      return run;
    },
    async close(): Promise<void> {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      await queue.catch(() => undefined);
      await release();
    },
  };
}
