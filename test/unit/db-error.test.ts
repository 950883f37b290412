import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/types.js';
import { RunAbortedError } from '../../src/errors.js';
import { connectWaitCode, describeConnectError, isOutOfSpace } from '../../src/pipeline/db-error.js';
import { withChunkRetry } from '../../src/pipeline/retry.js';
import { memoryLogger } from '../support/memory-logger.js';

const place = { host: 'db.example', port: 1521, database: 'FREEPDB1', user: 'loader' };
const oracleError = (code: string, message: string) => Object.assign(new Error(`${code}: ${message}`), { code });

describe('connection failures, one line naming the place', () => {
  it('Oracle (codes verified by reading node-oracledb, no server here)', () => {
    expect(describeConnectError(oracleError('ORA-01017', 'invalid credential or not authorized; logon denied'), place)).toBe(
      'user loader was refused by db.example:1521 (ORA-01017: wrong password, or no such user): check ORDER_LOADER_DB_PASSWORD',
    );
    expect(describeConnectError(oracleError('ORA-01017', 'logon denied'), { ...place, passwordFrom: 'url' })).toBe(
      'user loader was refused by db.example:1521 (ORA-01017: wrong password, or no such user): check the password in the --db URL',
    );
    expect(
      describeConnectError(oracleError('NJS-518', 'cannot connect to Oracle Database. Service "FREEPDB1" is not registered'), place),
    ).toBe('service FREEPDB1 is not known to the listener at db.example:1521 (NJS-518)');
    expect(
      describeConnectError(
        oracleError(
          'NJS-503',
          'connection to host db.example port 1521 could not be established. (CONNECTION_ID=x)\ncause: Error: connect ECONNREFUSED',
        ),
        place,
      ),
    ).toMatch(/^cannot connect to db\.example:1521 \(NJS-503: /);
  });
  it('a Node socket error, also wrapped in an AggregateError (localhost tries each address)', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED ::1:1'), { code: 'ECONNREFUSED' });
    expect(describeConnectError(new AggregateError([refused, refused], ''), { ...place, host: 'localhost', port: 1 })).toBe(
      'cannot connect to localhost:1 (ECONNREFUSED: nothing listens there)',
    );
  });
  it('anything else is not a connection failure', () => {
    expect(describeConnectError(Object.assign(new Error('syntax error'), { code: '42601' }), place)).toBeNull();
  });
});

describe('out of space', () => {
  it('is recognised on both engines', () => {
    expect(isOutOfSpace(Object.assign(new Error('could not extend file: No space left on device'), { code: '53100' }))).toBe(true);
    expect(isOutOfSpace(oracleError('ORA-01653', 'unable to extend table LOADER.ORDER_STAGE by 128 in tablespace USERS'))).toBe(true);
    expect(isOutOfSpace(Object.assign(new Error('terminating connection'), { code: '57P01' }))).toBe(false);
  });
  it('knows the whole Oracle out-of-space and quota family the engine treats as fatal', () => {
    for (const code of [
      'ORA-01536',
      'ORA-01950',
      'ORA-01628',
      'ORA-01632',
      'ORA-01650',
      'ORA-01658',
      'ORA-01683',
      'ORA-01692',
      'ORA-03233',
      'ORA-30036',
      'ORA-60004',
      'ORA-60018',
    ]) {
      expect(isOutOfSpace(oracleError(code, 'no room')), code).toBe(true);
    }
    for (const code of ['ORA-01657', 'ORA-01438', 'ORA-00001']) expect(isOutOfSpace(oracleError(code, 'other')), code).toBe(false);
  });
  it('the run stops at the first out-of-space failure, saying so, not "once the database is back": no retry', async () => {
    const engine = { classifyError: () => 'fatal' } as unknown as Engine;
    const full = Object.assign(new Error('could not extend file "base/1/2": No space left on device'), { code: '53100' });
    let attempts = 0;
    const { logger, records } = memoryLogger();
    const stopped = withChunkRetry(
      engine,
      'chunk 1',
      () => {
        attempts++;
        return Promise.reject(full);
      },
      { policy: { attempts: 6, baseDelayMs: 1, maxDelayMs: 1 }, logger },
    );
    await expect(stopped).rejects.toBeInstanceOf(RunAbortedError);
    await expect(stopped).rejects.toThrow(
      /^chunk 1 failed: the database is out of space: free some or extend it, then run the command again \(53100 could not extend file /,
    );
    expect(attempts).toBe(1);
    expect(records.filter((r) => r.msg.includes('retrying'))).toEqual([]);
  });
});

describe('connectWaitCode: which failures to connect are waited out (--connect-timeout)', () => {
  const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });
  it('the server not up, restarting or full: waited on, by its code', () => {
    expect(connectWaitCode(pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1'))).toBe('ECONNREFUSED');
    expect(connectWaitCode(pgError('57P03', 'the database system is starting up'))).toBe('57P03');
    expect(connectWaitCode(pgError('53300', 'sorry, too many clients already'))).toBe('53300');
    expect(connectWaitCode(pgError('08006', 'connection failure'))).toBe('08006');
    expect(connectWaitCode(new Error('Connection terminated unexpectedly'))).toBe('connection terminated');
    expect(connectWaitCode(oracleError('NJS-503', 'connection to host db port 1521 could not be established'))).toBe('NJS-503');
    expect(connectWaitCode(oracleError('ORA-01033', 'ORACLE initialization or shutdown in progress'))).toBe('ORA-01033');
    // behind a wrapper, as the migration runner may throw it
    expect(connectWaitCode(new Error('migrate failed', { cause: pgError('ECONNRESET', 'read ECONNRESET') }))).toBe('ECONNRESET');
  });
  it('a refused login, a missing database or any other error: not waited on', () => {
    expect(connectWaitCode(pgError('28P01', 'password authentication failed for user "loader"'))).toBeNull();
    expect(connectWaitCode(pgError('3D000', 'database "x" does not exist'))).toBeNull();
    expect(connectWaitCode(oracleError('ORA-01017', 'invalid credential'))).toBeNull();
    expect(connectWaitCode(new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string'))).toBeNull();
    expect(connectWaitCode(pgError('42P01', 'relation "x" does not exist'))).toBeNull();
  });
});
