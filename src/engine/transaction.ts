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
export async function inTransaction<C, T>(driver: Driver<C>, fn: (connection: C) => Promise<T>, options?: TransactionOptions): Promise<T> {
  const connection = await driver.acquire();
  let broken: Error | undefined;
  let failed = false;
  try {
    await driver.begin(connection, options);
    const result = await fn(connection);
    await driver.commit(connection);
    return result;
  } catch (error) {
    failed = true;
    try {
      await driver.rollback(connection);
    } catch (rollbackError) {
      broken = asError(rollbackError);
    }
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

/**
 * `fn` on one checked-out connection, outside an explicit transaction (reads and statements
 * that commit on their own). The connection is discarded after a fatal error.
 */
export async function onConnection<C, T>(driver: Driver<C>, fn: (connection: C) => Promise<T>): Promise<T> {
  const connection = await driver.acquire();
  let broken: Error | undefined;
  let failed = false;
  try {
    return await fn(connection);
  } catch (error) {
    failed = true;
    if (driver.classifyError(error) === 'fatal') broken = asError(error);
    throw error;
  } finally {
    try {
      await driver.release(connection, broken);
    } catch (releaseError) {
      // eslint-disable-next-line no-unsafe-finally -- as above
      if (!failed) throw releaseError;
    }
  }
}
