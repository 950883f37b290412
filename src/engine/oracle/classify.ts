import type { FailureKind } from '../types.js';
import { OracleLockWaitTimeout } from './lock-wait-error.js';

/**
 * Oracle errors by consequence (docs/ARCHITECTURE.md, section 6 "Failure classes").
 *  - fatal for the chunk: the connection, the instance or its space is gone; the chunk rolls
 *    back and is retried with backoff. A connection that raised one is closed and replaced
 *    (driver.ts).
 *  - transient for a row: may succeed if tried again later (RETRY_WAIT).
 *  - rejected: the row's data is refused (constraint, overflow, invalid value): ERROR.
 *
 * Codes are read, never the message text (Oracle rewords messages between releases): thin
 * mode gives batch errors no `errorNum`, so the codes are parsed from the message
 * ("ORA-01438: value larger than ..."). One rule for a batch error and a thrown error alike
 * ({@link classifyOracleCodes}): a message is a stack of codes (node-oracledb wraps the ORA
 * code of a lost session as NJS-500 with the ORA line kept, lib/errors.js adjustErrorXref;
 * recursive SQL puts ORA-00604 before the real cause, "ORA-00604 ... ORA-01653"), so a fatal
 * code anywhere in it makes the error fatal.
 */

/** Row-level transient codes. ORA-00001 counts here because it comes from the MERGE into
 * orders by source_key: another session inserted the same new key first; a retry updates. */
export const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  'ORA-00060', // deadlock detected while waiting for resource
  'ORA-00054', // resource busy and acquire with NOWAIT specified or timeout expired
  'ORA-08177', // can't serialize access for this transaction
  'ORA-30006', // resource busy; acquire with WAIT timeout expired
  'ORA-00001', // unique constraint violated (concurrent insert of the same source_key)
]);

/** Chunk-level fatal codes: connection or instance lost, out of space or resources, killed. */
export const FATAL_CODES: ReadonlySet<string> = new Set([
  // connection lost / not connected
  'ORA-03113', // end-of-file on communication channel
  'ORA-03114', // not connected to ORACLE
  'ORA-03135', // connection lost contact
  'ORA-12514', // listener does not currently know of service (thick mode; thin: NJS-518)
  'ORA-12505', // listener does not currently know of SID (thick mode; thin: NJS-519)
  'ORA-12541', // no listener
  'ORA-12170', // connect timeout
  'ORA-12528', // listener: all appropriate instances are blocking new connections
  'ORA-12537', // TNS: connection closed
  'ORA-12547', // TNS: lost contact
  'ORA-12570', // TNS: packet reader failure
  'ORA-12571', // TNS: packet writer failure
  'ORA-01012', // not logged on
  'ORA-00028', // your session has been killed
  'ORA-02396', // exceeded maximum idle time
  'ORA-01033', // initialization or shutdown in progress
  'ORA-01034', // ORACLE not available
  'ORA-01089', // immediate shutdown in progress
  'ORA-01092', // ORACLE instance terminated
  'ORA-25408', // can not safely replay call
  // instance problems
  'ORA-00600', // internal error
  'ORA-07445', // exception encountered: core dump
  'ORA-04031', // unable to allocate shared memory
  'ORA-00018', // maximum number of sessions exceeded
  'ORA-00020', // maximum number of processes exceeded
  'ORA-00257', // archiver error
  // out of space or quota: no row is at fault, the chunk rolls back and is retried (the
  // whole family, matched by number: 23ai reworded several of these messages)
  'ORA-01536', // space quota exceeded for tablespace
  'ORA-01950', // no privileges on tablespace (no quota)
  'ORA-01628', // max # extents reached for rollback segment
  'ORA-01629', // max # extents reached saving undo for tablespace
  'ORA-01630', // max # extents reached in temp segment
  'ORA-01631', // max # extents reached in table
  'ORA-01632', // max # extents reached in index
  'ORA-01650', // unable to extend rollback segment
  'ORA-01651', // unable to extend save undo segment
  'ORA-01652', // unable to extend temp segment
  'ORA-01653', // unable to extend table
  'ORA-01654', // unable to extend index
  'ORA-01655', // unable to extend cluster
  'ORA-01656', // max # extents reached in cluster
  'ORA-01658', // unable to create INITIAL extent for segment in tablespace
  'ORA-01659', // unable to allocate MINEXTENTS in tablespace
  'ORA-01680', // unable to extend LOB segment
  'ORA-01681', // max # extents reached in LOB segment
  'ORA-01683', // unable to extend index partition
  'ORA-01684', // max # extents reached in table partition
  'ORA-01685', // max # extents reached in index partition
  'ORA-01688', // unable to extend table partition
  'ORA-01691', // unable to extend lob segment
  'ORA-01692', // unable to extend lob segment partition
  'ORA-01693', // max # extents reached in lob segment
  'ORA-01694', // max # extents reached in lob segment partition
  'ORA-03233', // unable to extend table subpartition
  'ORA-03235', // max # extents reached in table subpartition
  'ORA-03238', // unable to extend LOB subpartition
  'ORA-30036', // unable to extend segment in undo tablespace
  'ORA-60001', // adding blocks to a segment would exceed its MAXSIZE (60001-60007, 60018)
  'ORA-60002',
  'ORA-60003',
  'ORA-60004',
  'ORA-60005',
  'ORA-60006',
  'ORA-60007',
  'ORA-60018',
  'ORA-01555', // snapshot too old (retry the chunk)
  'ORA-01013', // user requested cancel of current operation
  // node-oracledb: connection lost / not connected / pool gone (lib/errors.js)
  'NJS-003', // invalid or closed connection
  'NJS-040', // connection request timeout (pool queueTimeout)
  'NJS-064', // connection pool is closing
  'NJS-065', // connection pool was closed
  'NJS-500', // connection to Oracle Database was closed or broken
  'NJS-501', // connection to host terminated unexpectedly
  'NJS-503', // connection to host could not be established
  'NJS-509', // invalid packet type or malformed packet received
  'NJS-510', // connection to host timed out
  'NJS-511', // connection to listener refused
  // Thin mode never reports ORA-12514 / ORA-12505 from the listener's refuse packet: it throws
  // NJS-518 / NJS-519 instead (lib/thin/sqlnet/networkSession.js), with no ORA code in the
  // message. That is what a restarting database looks like (listener up, service not yet
  // registered), so it must be retried like the other lost-connection errors.
  'NJS-513', // error received through in-band notification (server ending the session)
  'NJS-518', // service not registered with the listener (thin mode's ORA-12514)
  'NJS-519', // SID not registered with the listener (thin mode's ORA-12505)
  'NJS-521', // end-of-file on communication channel
  'NJS-530', // host addresses unresolvable
  'NJS-102', // unexpected end of data (protocol out of step)
  'NJS-103', // unexpected message type (protocol out of step)
  'NJS-123', // call timeout exceeded (callTimeout; the chunk is retried on a new connection)
  'NJS-141', // more than 65535 batch errors: the response was not read to its end
  'DPI-1080', // connection was closed by ORA-%d (thick mode wording, kept for completeness)
  'DPI-1010', // not connected
]);

/** Node socket errors (thin mode talks TCP itself). */
const FATAL_NODE_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH']);

const CODE_PATTERN = /\b(ORA|NJS|DPI)-(\d{3,5})\b/g;

function normalise(prefix: string, digits: string): string {
  return prefix === 'ORA' ? `ORA-${digits.padStart(5, '0')}` : `${prefix}-${digits.padStart(3, '0')}`;
}

/** Every ORA-/NJS-/DPI- code in a text, in order of appearance. */
export function codesInText(text: string): string[] {
  const codes: string[] = [];
  for (const m of text.matchAll(CODE_PATTERN)) {
    codes.push(normalise(m[1] ?? 'ORA', m[2] ?? '0'));
  }
  return codes;
}

/**
 * The codes of a batch-error entry's message, in order. Thin mode first creates each batch
 * error as `new Error(<number>)` and then sets the server's message; if a message were
 * missing, the bare number is read as ORA-<number>.
 */
export function oracleCodesFromMessage(message: string): string[] {
  const codes = codesInText(message);
  if (codes.length > 0) return codes;
  const bare = /^\s*(\d{1,5})\s*$/.exec(message);
  return [bare?.[1] !== undefined ? normalise('ORA', bare[1]) : 'ORA-UNKNOWN'];
}

/** The code to record for a batch-error entry: the first one of its message. */
export function oracleCodeFromMessage(message: string): string {
  return oracleCodesFromMessage(message)[0] ?? 'ORA-UNKNOWN';
}

/** The codes carried by a thrown error: `code`, `errorNum`, then those in its message. */
export function oracleCodesOf(error: unknown): string[] {
  const codes: string[] = [];
  if (typeof error === 'object' && error !== null) {
    const e = error as { code?: unknown; errorNum?: unknown; message?: unknown };
    if (typeof e.code === 'string' && e.code !== '') {
      const m = /^(ORA|NJS|DPI)-(\d+)$/.exec(e.code);
      codes.push(m?.[1] !== undefined && m[2] !== undefined ? normalise(m[1], m[2]) : e.code);
    }
    if (typeof e.errorNum === 'number' && e.errorNum > 0) codes.push(normalise('ORA', String(e.errorNum)));
    if (typeof e.message === 'string') codes.push(...codesInText(e.message));
  } else if (typeof error === 'string') {
    codes.push(...codesInText(error));
  }
  return codes;
}

/** The code to record for a thrown error (first Oracle/driver code, else the error's name). */
export function primaryOracleCode(error: unknown): string {
  const codes = oracleCodesOf(error);
  const oracle = codes.find((c) => /^(ORA|NJS|DPI)-/.test(c));
  if (oracle !== undefined) return oracle;
  return codes[0] ?? 'UNKNOWN';
}

/**
 * The one rule, for the codes of a batch error's message and of a thrown error alike: fatal
 * if any code is fatal, transient if the first code is, else rejected.
 */
export function classifyOracleCodes(codes: readonly string[]): FailureKind {
  if (codes.some((c) => FATAL_CODES.has(c) || FATAL_NODE_CODES.has(c))) return 'fatal';
  const first = codes[0];
  if (first !== undefined && TRANSIENT_CODES.has(first)) return 'transient';
  return 'rejected';
}

/** Classify one code. */
export function classifyOracleCode(code: string): FailureKind {
  return classifyOracleCodes([code]);
}

/** Classify a batch-error entry of an executeMany by its message. */
export function classifyBatchError(message: string): FailureKind {
  return classifyOracleCodes(oracleCodesFromMessage(message));
}

/**
 * Classify a thrown error. The NJS-123 of a call timeout the loader set from --row-lock-wait
 * (lock-budget.ts) is a lock wait that ran out, transient as ORA-30006 is; every other NJS-123
 * (call_timeout) stays fatal.
 */
export function classifyOracleError(error: unknown): FailureKind {
  if (error instanceof OracleLockWaitTimeout) return 'transient';
  return classifyOracleCodes(oracleCodesOf(error));
}
