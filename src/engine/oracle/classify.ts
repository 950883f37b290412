import type { FailureKind } from '../types.js';

/**
 * Oracle errors by consequence (docs/ARCHITECTURE.md, section 6 "Failure classes").
 *  - fatal for the chunk: the connection, the instance or its space is gone; the chunk rolls
 *    back and is retried with backoff. A connection that raised one is dropped from the pool.
 *  - transient for a row: may succeed if tried again later (RETRY_WAIT).
 *  - rejected: the row's data is refused (constraint, overflow, invalid value): ERROR.
 *
 * Codes are read, never the message text: thin mode gives batch errors no `errorNum`, so the
 * code is parsed from the message ("ORA-01438: value larger than ..."). node-oracledb wraps
 * the ORA codes of a lost session as NJS-500 (lib/errors.js adjustErrorXref: ORA-03113,
 * ORA-03114, ORA-03135, ORA-00028, ORA-01012, ... and DPI-1080), keeping the ORA line in the
 * message, so every code found in the error is considered.
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
  // out of space
  'ORA-01536', // space quota exceeded for tablespace
  'ORA-01652', // unable to extend temp segment
  'ORA-01653', // unable to extend table
  'ORA-01654', // unable to extend index
  'ORA-01688', // unable to extend table partition
  'ORA-01691', // unable to extend lob segment
  'ORA-30036', // unable to extend segment in undo tablespace
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
  'NJS-123', // call timeout exceeded
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
 * The code of a batch-error entry or error message: the first ORA-/NJS-/DPI- code in it.
 * Thin mode first creates each batch error as `new Error(<number>)` and then sets the
 * server's message; if a message were missing, the bare number is read as ORA-<number>.
 */
export function oracleCodeFromMessage(message: string): string {
  const first = codesInText(message)[0];
  if (first !== undefined) return first;
  const bare = /^\s*(\d{1,5})\s*$/.exec(message);
  if (bare?.[1] !== undefined) return normalise('ORA', bare[1]);
  return 'ORA-UNKNOWN';
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

/** Classify one code, as found in a batch error of the MERGE into orders. */
export function classifyOracleCode(code: string): FailureKind {
  if (FATAL_CODES.has(code) || FATAL_NODE_CODES.has(code)) return 'fatal';
  if (TRANSIENT_CODES.has(code)) return 'transient';
  return 'rejected';
}

/** Classify a thrown error: fatal if any code it carries is fatal, else by its first code. */
export function classifyOracleError(error: unknown): FailureKind {
  const codes = oracleCodesOf(error);
  if (codes.some((c) => classifyOracleCode(c) === 'fatal')) return 'fatal';
  const first = codes[0];
  if (first !== undefined && TRANSIENT_CODES.has(first)) return 'transient';
  return 'rejected';
}
