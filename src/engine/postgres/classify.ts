import type { FailureKind } from '../types.js';

/**
 * PostgreSQL errors by consequence (SQLSTATE classes, see the PostgreSQL manual, appendix A).
 *  - fatal for the chunk: the connection or the server is gone or out of resources; the chunk
 *    rolls back and is retried with backoff.
 *  - transient for a row: it may succeed if tried again later.
 *  - rejected: the row's data is refused (constraint, overflow, invalid value): ERROR.
 */
const TRANSIENT_SQLSTATES = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '55P03', // lock_not_available (lock_timeout)
  '23505', // unique_violation: in a MERGE by source_key, another session inserted the same key
]);

/**
 * The transient SQLSTATEs as a list, for order_loader_process_chunk's p_transient
 * (sql/postgres/migrations/014_refusals_in_database.sql): a row the MERGE refused with any other
 * code is written ERROR there; the function has no copy of its own.
 */
export const TRANSIENT_SQLSTATE_LIST: readonly string[] = [...TRANSIENT_SQLSTATES];

const FATAL_CLASSES = new Set(['08', '53', '57', '58', 'XX']);

/**
 * The errors that are a row's own failure, isolated to that row inside the MERGE: the MERGE
 * function receives this list (order_loader_merge_chunk's p_row_level, in
 * sql/postgres/migrations/004_row_lock_isolation.sql) and has no copy of its own. Two-character
 * SQLSTATE classes and five-character codes. Everything else raised by the MERGE rolls the
 * whole chunk back. Each failure isolated this way is then classified by classifySqlstate:
 * the transient codes become RETRY_WAIT, the rest ERROR.
 */
export const ROW_LEVEL_SQLSTATES: readonly string[] = [
  '22', // data exception (overflow, invalid value)
  '23', // integrity constraint violation (23505 included: see TRANSIENT_SQLSTATES)
  'P0', // raised by a trigger (RAISE EXCEPTION)
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '55P03', // lock_not_available: a row another session holds past the lock timeout
];

export function isRowLevelSqlstate(sqlstate: string): boolean {
  return ROW_LEVEL_SQLSTATES.includes(sqlstate.slice(0, 2)) || ROW_LEVEL_SQLSTATES.includes(sqlstate);
}

/** Node socket errors and node-postgres's own connection messages carry no SQLSTATE. */
const FATAL_NODE_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH']);
const FATAL_MESSAGES = [
  /connection terminated/i,
  /connection ended/i,
  /client has encountered a connection error/i,
  /timeout exceeded when trying to connect/i,
];

export function sqlstateOf(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = error.code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

export function classifySqlstate(sqlstate: string): Exclude<FailureKind, 'fatal'> | 'fatal' {
  if (FATAL_CLASSES.has(sqlstate.slice(0, 2))) return 'fatal';
  if (TRANSIENT_SQLSTATES.has(sqlstate)) return 'transient';
  return 'rejected';
}

export function classifyPgError(error: unknown): FailureKind {
  const code = sqlstateOf(error);
  if (code !== undefined) {
    if (FATAL_NODE_CODES.has(code)) return 'fatal';
    if (/^[0-9A-Z]{5}$/.test(code)) return classifySqlstate(code);
  }
  const message = error instanceof Error ? error.message : String(error);
  if (FATAL_MESSAGES.some((re) => re.test(message))) return 'fatal';
  return 'rejected';
}
