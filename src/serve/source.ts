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

/** An embedded folder, opened per burst of requests (see above); `open` takes the folder's lock with a short wait. */
export function folderSource(open: () => Promise<OrderLoader>, holdMs: number = FOLDER_HOLD_MS): LoaderSource {
  let loader: OrderLoader | null = null;
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
        loader ??= await open();
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
