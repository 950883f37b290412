/**
 * The one place that commits, rolls back and releases: every engine's transactions and
 * connection-level work go through these two functions (node-postgres' pattern: BEGIN in try,
 * ROLLBACK in catch, release(err) in finally so that a broken connection is discarded).
 */
import type { Driver, TransactionOptions } from './contract.js';

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

/**
 * `fn` in one transaction on one checked-out connection: COMMIT on success; ROLLBACK on throw.
 * The connection is discarded when the error was fatal or the rollback itself failed.
 */
export function inTransaction<C, T>(driver: Driver<C>, fn: (connection: C) => Promise<T>, options?: TransactionOptions): Promise<T> {
  return checkedOut(driver, async (connection, discard) => {
    try {
      await driver.begin(connection, options);
      const result = await fn(connection);
      await driver.commit(connection);
      return result;
    } catch (error) {
      try {
        await driver.rollback(connection);
      } catch (rollbackError) {
        discard(asError(rollbackError));
      }
      throw error;
    }
  });
}

/**
 * `fn` on one checked-out connection, outside an explicit transaction (reads and statements
 * that commit on their own). The connection is discarded after a fatal error.
 */
export function onConnection<C, T>(driver: Driver<C>, fn: (connection: C) => Promise<T>): Promise<T> {
  return checkedOut(driver, (connection) => fn(connection));
}

/**
 * Acquire, run `work`, release in `finally`. The connection is released as broken (never
 * reused) when `work` called `discard`, or else when it threw a fatal error.
 */
async function checkedOut<C, T>(driver: Driver<C>, work: (connection: C, discard: (reason: Error) => void) => Promise<T>): Promise<T> {
  const connection = await driver.acquire();
  let broken: Error | undefined;
  let failed = false;
  try {
    return await work(connection, (reason) => {
      broken ??= reason;
    });
  } catch (error) {
    failed = true;
    if (broken === undefined && driver.classifyError(error) === 'fatal') broken = asError(error);
    throw error;
  } finally {
    try {
      await driver.release(connection, broken);
    } catch (releaseError) {
      // eslint-disable-next-line no-unsafe-finally -- only when nothing else is being thrown: never hide the error that got us here
      if (!failed) throw releaseError;
    }
  }
}
