import { describe, expect, it } from 'vitest';
import { classifyPgError, classifySqlstate, sqlstateOf, TRANSIENT_SQLSTATE_LIST } from '../../src/engine/postgres/classify.js';

/** An error as node-postgres raises it: the server's SQLSTATE (or Node's socket code) as `code`. */
const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('PostgreSQL SQLSTATEs by consequence (classifySqlstate)', () => {
  it('the transient codes: a row that may succeed if tried again (RETRY_WAIT)', () => {
    expect(classifySqlstate('40001')).toBe('transient'); // serialization_failure
    expect(classifySqlstate('40P01')).toBe('transient'); // deadlock_detected
    expect(classifySqlstate('55P03')).toBe('transient'); // lock_not_available (lock_timeout)
    expect(classifySqlstate('23505')).toBe('transient'); // unique_violation: another session inserted the key
  });

  it('the list passed to order_loader_process_chunk (p_transient) is exactly the transient codes', () => {
    // the database writes ERROR every refusal whose SQLSTATE is not in it (migration 014)
    expect([...TRANSIENT_SQLSTATE_LIST].sort()).toEqual(['23505', '40001', '40P01', '55P03']);
    for (const code of TRANSIENT_SQLSTATE_LIST) expect(classifySqlstate(code), code).toBe('transient');
  });

  it('the fatal classes, whatever the code inside them: the chunk rolls back and is retried', () => {
    for (const code of ['08006', '08003', '08P01']) expect(classifySqlstate(code), code).toBe('fatal'); // connection exception
    for (const code of ['53100', '53200', '53300']) expect(classifySqlstate(code), code).toBe('fatal'); // insufficient resources
    for (const code of ['57P01', '57P02', '57014']) expect(classifySqlstate(code), code).toBe('fatal'); // operator intervention
    for (const code of ['58030', '58P01']) expect(classifySqlstate(code), code).toBe('fatal'); // system error (I/O)
    for (const code of ['XX000', 'XX001']) expect(classifySqlstate(code), code).toBe('fatal'); // internal error
  });

  it('everything else is the row’s data refused (ERROR): other codes of the transient codes’ classes too', () => {
    for (const code of ['22003', '22P02', '22001', '23502', '23503', '23514', 'P0001', '42501', '42P01', '55006', '40002'])
      expect(classifySqlstate(code), code).toBe('rejected');
  });
});

describe('a driver error by consequence (classifyPgError)', () => {
  it('reads the SQLSTATE a server error carries', () => {
    expect(classifyPgError(pgError('22003', 'numeric field overflow'))).toBe('rejected');
    expect(classifyPgError(pgError('40P01', 'deadlock detected'))).toBe('transient');
    expect(classifyPgError(pgError('57P01', 'terminating connection due to administrator command'))).toBe('fatal');
    expect(classifyPgError(pgError('53100', 'could not extend file: No space left on device'))).toBe('fatal');
  });

  it('a Node socket error is fatal: the connection is gone', () => {
    for (const code of ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH'])
      expect(classifyPgError(pgError(code, `connect ${code} 127.0.0.1:5432`)), code).toBe('fatal');
  });

  it('node-postgres’s own connection messages (no SQLSTATE) are fatal, in any case', () => {
    expect(classifyPgError(new Error('Connection terminated unexpectedly'))).toBe('fatal');
    expect(classifyPgError(new Error('Connection terminated due to connection timeout'))).toBe('fatal');
    expect(classifyPgError(new Error('Connection ended unexpectedly'))).toBe('fatal');
    expect(classifyPgError(new Error('Client has encountered a connection error and is not queryable'))).toBe('fatal');
    expect(classifyPgError(new Error('timeout exceeded when trying to connect'))).toBe('fatal');
    expect(classifyPgError('connection terminated')).toBe('fatal'); // a thrown string is read as its text
  });

  it('a code that is not a SQLSTATE is not read as one: the message decides', () => {
    // five capitals at the end or at the start of a longer code must not pass for a SQLSTATE
    expect(classifyPgError(pgError('ERR_STREAM_PREMATURE_CLOSE', 'Connection terminated unexpectedly'))).toBe('fatal');
    expect(classifyPgError(pgError('ECONNABORTED', 'Connection terminated unexpectedly'))).toBe('fatal');
    expect(classifyPgError(pgError('ECONNABORTED', 'write after end'))).toBe('rejected');
  });

  it('anything else is rejected: an error without a code, a value that is not an error', () => {
    expect(classifyPgError(new Error('invalid input syntax for type numeric'))).toBe('rejected');
    expect(classifyPgError(undefined)).toBe('rejected');
    expect(classifyPgError({ code: 40001 })).toBe('rejected'); // a code that is not text is no code
  });
});

describe('sqlstateOf', () => {
  it('is the text code of an object, and nothing otherwise', () => {
    expect(sqlstateOf(pgError('23505', 'duplicate key'))).toBe('23505');
    expect(sqlstateOf({ code: '40001' })).toBe('40001');
    expect(sqlstateOf({ code: 40001 })).toBeUndefined();
    expect(sqlstateOf(new Error('no code'))).toBeUndefined();
    expect(sqlstateOf(null)).toBeUndefined();
    expect(sqlstateOf('23505')).toBeUndefined();
  });
});
