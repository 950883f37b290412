import type { Driver } from '../contract.js';
import { inTransaction } from '../transaction.js';
import { ORACLE_MAX_CHUNK } from './binds.js';
import { classifyOracleError } from './classify.js';
import { LockBudget } from './lock-budget.js';
import { lockWaitSeconds } from './merge.js';
import type { OraConnection, OraConnector } from './oracledb-types.js';
import { oracleQuery } from './sql-text.js';

/** How the driver treats its connections. */
export interface OracleConnectionPolicy {
  /** Set on every new connection as `callTimeout` (ms); 0 leaves the driver's default (none). */
  readonly callTimeoutMs: number;
  /** Healthy connections kept open between uses; more are closed when released. */
  readonly maxIdle: number;
  /**
   * Connections open at once (checked out, idle, or being opened), at most: a caller that
   * finds none idle and the cap reached waits, in turn, for the next one released.
   */
  readonly maxOpen: number;
  /**
   * Where `begin` notes each transaction's bound on lock waits (TransactionOptions.lockWaitMs,
   * lock-budget.ts) for the statements of that transaction that can wait for another session:
   * Oracle has no session setting for it. None for 0 (wait for ever) or no wait given.
   */
  readonly lockWaits?: WeakMap<OraConnection, LockBudget | undefined>;
}

/**
 * The Oracle driver over standalone connections (oracledb.getConnection, or a recording
 * connector in tests), kept by the driver itself rather than by a node-oracledb pool. Why not a
 * pool: in thin mode a pooled connection cannot be dropped by its user (close({ drop: true }) is
 * ignored, and the pool's free list is LIFO, so the next acquire gets the same session back),
 * yet a connection that saw a fatal error (a call timeout, a killed session) must never run the
 * retry. Here a released connection goes onto an idle stack (the worker that releases it gets it
 * back at once), or straight to the first caller waiting for one (at most `maxOpen` are open: a
 * burst of callers never opens more), and a broken one is closed: for a standalone connection close() logs off and
 * closes the socket, and the next acquire opens a new connection in its place.
 *
 * Every statement runs with autoCommit: false; Oracle starts a transaction with the first
 * statement, so `begin` has nothing to do and a transaction commits once, at its end.
 *
 * Every new connection first runs queries/session_settings.sql (one ALTER SESSION: binary
 * comparison and sort, the Gregorian calendar, '.' as the decimal point), before any other
 * statement and whatever the database's defaults or a logon trigger set: thin mode itself sets
 * only TIME_ZONE at logon. A connection whose settings fail is closed and the error thrown.
 */
/** The longest we wait for the logoff of a connection we are done with, before its socket is destroyed. */
export const DISCARD_WAIT_MS = 5_000;
/** After the socket is destroyed, how long the close() is still given to end before the slot is freed. */
const DESTROYED_WAIT_MS = 1_000;

function within(ms: number): { done: Promise<void>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  return { done, cancel: () => clearTimeout(timer) };
}

/**
 * close() a connection we will not use again, never failing, and resolve once it is gone: its
 * close() (a logoff round trip) ended, or, when that has not happened within DISCARD_WAIT_MS (a
 * half-open socket on a dead network path: thin mode's logoff reads until TCP gives up), its
 * socket destroyed (OraConnection.destroy), which ends the close too. A connection that cannot
 * be destroyed is gone only when its close() ends.
 */
export async function closeUntilGone(connection: OraConnection): Promise<void> {
  const closing = connection.close().then(
    () => 'closed' as const,
    () => 'closed' as const,
  );
  const wait = within(DISCARD_WAIT_MS);
  const outcome = await Promise.race([closing, wait.done.then(() => 'waiting' as const)]);
  wait.cancel();
  if (outcome === 'closed') return;
  if (connection.destroy === undefined) {
    await closing;
    return;
  }
  try {
    connection.destroy();
  } catch {
    // destroyed or closed meanwhile: gone either way
  }
  const after = within(DESTROYED_WAIT_MS);
  await Promise.race([closing, after.done]);
  after.cancel();
}

/**
 * A new connection with its call timeout and session settings (a connection whose settings fail
 * is closed and the error thrown): the driver's, and a file claim's session, which is kept
 * outside the driver's count (file-claims.ts).
 */
export async function openSession(connector: OraConnector, callTimeoutMs: number): Promise<OraConnection> {
  const connection = await connector.getConnection();
  if (callTimeoutMs > 0) connection.callTimeout = callTimeoutMs;
  try {
    await connection.execute(oracleQuery('session_settings'), {}, { autoCommit: false });
  } catch (error) {
    await closeUntilGone(connection);
    throw error;
  }
  return connection;
}

export function oracleDriver(connector: OraConnector, policy: OracleConnectionPolicy): Driver<OraConnection> {
  if (!(policy.maxOpen >= 1)) throw new RangeError(`Oracle engine: maxOpen must be at least 1 (got ${policy.maxOpen})`);
  const idle: OraConnection[] = [];
  /** Connections checked out (a transaction's, a report's): those a cancel interrupts. */
  const leased = new Set<OraConnection>();
  /** Callers waiting for a connection, first come first served. */
  const waiting: Array<{ resolve: (c: OraConnection) => void; reject: (e: unknown) => void }> = [];
  /** Connections open or being opened (checked out + idle + connecting). */
  let open = 0;
  let closing = false;

  /** Open a new connection, counted against maxOpen from the start (a burst cannot overshoot). */
  async function connect(): Promise<OraConnection> {
    open++;
    try {
      return await openSession(connector, policy.callTimeoutMs);
    } catch (error) {
      open--;
      serveWaiting();
      throw error;
    }
  }

  /** A slot freed (a connection closed): the first waiting caller gets a new connection. */
  function serveWaiting(): void {
    while (waiting.length > 0 && open < policy.maxOpen) {
      const next = waiting.shift();
      if (next === undefined) return;
      connect().then(next.resolve, next.reject);
    }
  }

  /**
   * Close a connection we will not use again, never failing and never waiting long: its
   * close() (a logoff) may fail on a dead socket, or hang on a half-open one, and neither may
   * hold up the retry of a chunk or turn committed work into a failure. It counts against
   * maxOpen until it is gone (closeUntilGone: closed, or its socket destroyed after
   * DISCARD_WAIT_MS), so that hung closes cannot pile up sockets beyond the cap.
   */
  async function discard(connection: OraConnection): Promise<void> {
    leased.delete(connection);
    try {
      await closeUntilGone(connection);
    } finally {
      open--;
      serveWaiting();
    }
  }

  /** An idle healthy connection, a new one, or the next one released. */
  async function take(): Promise<OraConnection> {
    for (let connection = idle.pop(); connection !== undefined; connection = idle.pop()) {
      // a socket that died while idle (isHealthy() false) is replaced before anyone uses it
      if (connection.isHealthy?.() !== false) return connection;
      await discard(connection);
    }
    if (open < policy.maxOpen) return connect();
    return new Promise<OraConnection>((resolve, reject) => waiting.push({ resolve, reject }));
  }

  return {
    kind: 'oracle',
    capabilities: { concurrentConnections: true, maxChunkSize: ORACLE_MAX_CHUNK },
    async acquire() {
      if (closing) throw new Error('Oracle engine: the engine is closed');
      const connection = await take();
      leased.add(connection);
      return connection;
    },
    begin(connection, options) {
      const seconds = lockWaitSeconds(options?.lockWaitMs);
      policy.lockWaits?.set(connection, seconds === undefined ? undefined : new LockBudget(seconds));
      return Promise.resolve();
    },
    commit: (connection) => connection.commit(),
    rollback: (connection) => connection.rollback(),
    async release(connection, broken) {
      leased.delete(connection);
      // a broken connection's close() may fail on its dead socket: it is gone either way
      if (broken !== undefined) return discard(connection);
      // committed (or rolled back) already: a failing logoff must not make the work look failed
      if (closing) return discard(connection);
      const next = waiting.shift();
      if (next !== undefined) {
        // handed on as it is; one whose socket died is replaced by a new one for that caller
        if (connection.isHealthy?.() !== false) {
          next.resolve(connection);
          return;
        }
        waiting.unshift(next);
        return discard(connection);
      }
      if (idle.length >= policy.maxIdle) return discard(connection);
      idle.push(connection);
    },
    classifyError: (error) => classifyOracleError(error),
    // A second SIGINT, before the process exits: each call in flight is interrupted on the server
    // (ORA-01013), so that no session keeps a chunk's row locks until it notices the socket gone.
    async cancelRunning() {
      await Promise.all(
        [...leased].map(async (connection) => {
          try {
            await connection.break?.();
          } catch {
            // its socket is gone already: so is the call, and the session ends with it
          }
        }),
      );
    },
    // Idle connections are closed now; those checked out are closed when they are released.
    async close() {
      closing = true;
      for (const caller of waiting.splice(0)) caller.reject(new Error('Oracle engine: the engine is closed'));
      await Promise.all(idle.splice(0).map(discard));
    },
  };
}

/**
 * Work on one connection outside the pipeline's transactions (the run journal, the reports).
 * It is a transaction all the same: its first statement opened one, so it ends with COMMIT
 * (ROLLBACK on throw) before the connection is released.
 */
export function onOracleConnection<T>(driver: Driver<OraConnection>, fn: (connection: OraConnection) => Promise<T>): Promise<T> {
  return inTransaction(driver, fn);
}
