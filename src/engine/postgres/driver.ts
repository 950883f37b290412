/**
 * The PostgreSQL driver (node-postgres or PGlite, behind a {@link PgConnector}): the connection
 * it hands out is the connector's lease, a session and its release.
 */
import type { Driver, TransactionOptions } from '../contract.js';
import { onConnection } from '../transaction.js';
import { classifyPgError } from './classify.js';
import type { PgConnector, PgLease, PgSession } from './session.js';

export function pgDriver(connector: PgConnector, settlesWhileStaging = true): Driver<PgLease> {
  const driver: Driver<PgLease> = {
    kind: connector.kind,
    capabilities: { concurrentConnections: connector.concurrent, maxChunkSize: 100_000, settlesWhileStaging },
    acquire: () => connector.acquire(),
    begin: (lease, options) => lease.session.exec(beginStatement(options)),
    commit: (lease) => lease.session.exec('COMMIT'),
    rollback: (lease) => lease.session.exec('ROLLBACK'),
    release: (lease, broken) => {
      lease.release(broken);
      return Promise.resolve();
    },
    classifyError: classifyPgError,
    close: () => connector.end(),
  };
  if (connector.cancelRunning !== undefined) {
    driver.cancelRunning = async () => {
      await connector.cancelRunning?.();
    };
  }
  return driver;
}

/**
 * BEGIN, with the lock timeout in the same round trip. SET LOCAL ends with the transaction, so
 * a pooled connection never carries it into other work (bookkeeping, an operator's retry).
 */
function beginStatement(options: TransactionOptions | undefined): string {
  const ms = options?.lockWaitMs;
  if (ms === undefined) return 'BEGIN';
  // spelled into the statement (SET takes no parameters): only a whole number gets there
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > 2_147_483_647) throw new RangeError(`lock wait out of range: ${ms} ms`);
  return `BEGIN; SET LOCAL lock_timeout = ${ms}`;
}

/** Connection-level work (no explicit transaction): `fn` on one session checked out for it. */
export type WithSession = <T>(fn: (session: PgSession) => Promise<T>) => Promise<T>;

export function withSessionOf(driver: Driver<PgLease>): WithSession {
  return (fn) => onConnection(driver, (lease) => fn(lease.session));
}
