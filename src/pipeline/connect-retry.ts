/**
 * Waiting out a server database that is not reachable yet when a command starts (a nightly job
 * whose database restarts for its own maintenance, a container started at the same time): the
 * first connection (open, migrate) is tried again with backoff until --connect-timeout has
 * passed. Only connection errors are waited on (connectWaitCode in db-error.ts); a refused login
 * or a missing database fails at once. An embedded PGlite folder is not waited on here: a folder
 * another process holds has its own wait (--lock-timeout, src/engine/folder-lock.ts).
 */
import type { Logger } from 'pino';
import { RunAbortedError } from '../errors.js';
import { redactSecrets } from '../engine/db-url.js';
import { sleep } from '../sleep.js';
import { connectWaitCode } from './db-error.js';

export interface ConnectWaitOptions {
  /** The longest time to keep trying, from the first failure; 0 fails at once. */
  timeoutMs: number;
  /** The database as named in log lines (its password masked). */
  label: string;
  logger: Logger;
  /** Ends the wait: the command fails as interrupted. */
  signal?: AbortSignal | undefined;
  /** First wait, doubled after each failure up to maxWaitMs (defaults 1 s and 30 s). */
  firstWaitMs?: number;
  maxWaitMs?: number;
}

/** The database stayed unreachable for the whole --connect-timeout: its last error is the cause. */
export class ConnectTimeoutError extends Error {
  override readonly name = 'ConnectTimeoutError';
  constructor(
    readonly attempts: number,
    readonly waitedMs: number,
    cause: unknown,
  ) {
    super(`still unreachable after ${attempts} attempts in ${Math.round(waitedMs / 1000)} s (--connect-timeout)`, { cause });
  }
}

/** `attempt` until it succeeds, fails with an error not worth waiting for, or the time is up. */
export async function retryConnect<T>(attempt: () => Promise<T>, options: ConnectWaitOptions): Promise<T> {
  const firstWaitMs = options.firstWaitMs ?? 1000;
  const maxWaitMs = options.maxWaitMs ?? 30_000;
  const started = Date.now();
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      const code = connectWaitCode(error);
      if (code === null || options.timeoutMs <= 0) throw error;
      const waited = Date.now() - started;
      const left = options.timeoutMs - waited;
      if (left <= 0) throw new ConnectTimeoutError(n, waited, error);
      const waitMs = Math.min(left, firstWaitMs * 2 ** Math.min(n - 1, 20), maxWaitMs);
      // the code and the masked database only: a driver's message may quote the URL
      options.logger.warn(
        { attempt: n, code, waitMs, giveUpInMs: left },
        redactSecrets(
          `database ${options.label} not reachable (${code}), attempt ${n}: trying again in ${seconds(waitMs)}; gives up in ${seconds(left)} (--connect-timeout)`,
        ),
      );
      await sleep(waitMs, options.signal);
      if (options.signal?.aborted === true) {
        throw new RunAbortedError(`interrupted while waiting for database ${options.label} (${code})`, 'interrupted', { cause: error });
      }
    }
  }
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
