/**
 * The Oracle failure classes as a table written here, code by code (docs/oracle.md, "Failure
 * classes"; src/engine/oracle/classify.ts holds the sets): a code dropped from a set, or one
 * misspelt there, changes what a chunk does with that error (retry the chunk, put the row in
 * RETRY_WAIT, or end it ERROR), so each is asserted on its own, alone, as a batch error's
 * message, behind ORA-00604 (recursive SQL) and as a thrown error's code.
 */
import { describe, expect, it } from 'vitest';
import {
  classifyBatchError,
  classifyOracleCode,
  classifyOracleCodes,
  classifyOracleError,
  codesInText,
  oracleCodeFromMessage,
  oracleCodesFromMessage,
  oracleCodesOf,
  primaryOracleCode,
} from '../../src/engine/oracle/classify.js';

/** Chunk-level: the connection, the instance or its space is gone. */
const FATAL = [
  'ORA-03113',
  'ORA-03114',
  'ORA-03135',
  'ORA-12514',
  'ORA-12505',
  'ORA-12541',
  'ORA-12170',
  'ORA-12528',
  'ORA-12537',
  'ORA-12547',
  'ORA-12570',
  'ORA-12571',
  'ORA-01012',
  'ORA-00028',
  'ORA-02396',
  'ORA-01033',
  'ORA-01034',
  'ORA-01089',
  'ORA-01092',
  'ORA-25408',
  'ORA-00600',
  'ORA-07445',
  'ORA-04031',
  'ORA-00018',
  'ORA-00020',
  'ORA-00257',
  'ORA-01536',
  'ORA-01950',
  'ORA-01628',
  'ORA-01629',
  'ORA-01630',
  'ORA-01631',
  'ORA-01632',
  'ORA-01650',
  'ORA-01651',
  'ORA-01652',
  'ORA-01653',
  'ORA-01654',
  'ORA-01655',
  'ORA-01656',
  'ORA-01658',
  'ORA-01659',
  'ORA-01680',
  'ORA-01681',
  'ORA-01683',
  'ORA-01684',
  'ORA-01685',
  'ORA-01688',
  'ORA-01691',
  'ORA-01692',
  'ORA-01693',
  'ORA-01694',
  'ORA-03233',
  'ORA-03235',
  'ORA-03238',
  'ORA-30036',
  'ORA-60001',
  'ORA-60002',
  'ORA-60003',
  'ORA-60004',
  'ORA-60005',
  'ORA-60006',
  'ORA-60007',
  'ORA-60018',
  'ORA-01555',
  'ORA-01013',
  'NJS-003',
  'NJS-040',
  'NJS-064',
  'NJS-065',
  'NJS-500',
  'NJS-501',
  'NJS-503',
  'NJS-509',
  'NJS-510',
  'NJS-511',
  'NJS-513',
  'NJS-518',
  'NJS-519',
  'NJS-521',
  'NJS-530',
  'NJS-102',
  'NJS-103',
  'NJS-123',
  'NJS-141',
  'DPI-1080',
  'DPI-1010',
];

/** Row-level, may succeed later: RETRY_WAIT. */
const TRANSIENT = ['ORA-00060', 'ORA-00054', 'ORA-08177', 'ORA-30006', 'ORA-00001'];

/** A row's own data: ERROR. */
const REJECTED = ['ORA-01438', 'ORA-01722', 'ORA-02290', 'ORA-02291', 'ORA-01400', 'ORA-12899', 'ORA-01841', 'ORA-00604'];

const NODE_SOCKET = ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH'];

describe('Oracle failure classes, code by code', () => {
  it.each(FATAL)('%s is fatal: alone, in a batch error, behind ORA-00604, as a thrown code', (code) => {
    expect(classifyOracleCode(code)).toBe('fatal');
    expect(classifyBatchError(`${code}: some message`)).toBe('fatal');
    expect(classifyOracleCodes(['ORA-00604', code])).toBe('fatal');
    expect(classifyOracleCodes(['ORA-01438', code])).toBe('fatal');
    expect(classifyOracleError({ code, message: 'lost' })).toBe('fatal');
  });

  it.each(TRANSIENT)('%s is transient as the first code, and only there', (code) => {
    expect(classifyOracleCode(code)).toBe('transient');
    expect(classifyBatchError(`${code}: some message`)).toBe('transient');
    expect(classifyOracleCodes([code, 'ORA-01438'])).toBe('transient');
    expect(classifyOracleCodes(['ORA-01438', code])).toBe('rejected');
    expect(classifyOracleCodes([code, 'ORA-03113'])).toBe('fatal');
  });

  it.each(REJECTED)('%s is a row rejected', (code) => {
    expect(classifyOracleCode(code)).toBe('rejected');
    expect(classifyBatchError(`${code}: value larger than specified precision`)).toBe('rejected');
  });

  it.each(NODE_SOCKET)('a socket error %s is fatal', (code) => {
    expect(classifyOracleError(Object.assign(new Error('socket'), { code }))).toBe('fatal');
    expect(classifyOracleCodes([code])).toBe('fatal');
  });

  it('no code at all is a row rejected, not a retry', () => {
    expect(classifyOracleCodes([])).toBe('rejected');
    expect(classifyOracleError(new Error('something else'))).toBe('rejected');
  });
});

describe('codes read from messages and errors', () => {
  it('normalises ORA to five digits and NJS/DPI to three, in order of appearance', () => {
    expect(codesInText('ORA-1438: x ORA-604: y NJS-500 DPI-1010')).toEqual(['ORA-01438', 'ORA-00604', 'NJS-500', 'DPI-1010']);
    expect(codesInText('XORA-01438 ORA-1 ORA-123456')).toEqual([]);
    expect(codesInText('')).toEqual([]);
  });

  it('a batch error message of a bare number is read as that ORA code; none at all as ORA-UNKNOWN', () => {
    expect(oracleCodesFromMessage('1438')).toEqual(['ORA-01438']);
    expect(oracleCodesFromMessage('  60 ')).toEqual(['ORA-00060']);
    expect(oracleCodesFromMessage('no code here')).toEqual(['ORA-UNKNOWN']);
    expect(oracleCodesFromMessage('123456')).toEqual(['ORA-UNKNOWN']);
    expect(oracleCodeFromMessage('ORA-00604: recursive\nORA-01653: unable to extend')).toBe('ORA-00604');
    expect(oracleCodeFromMessage('')).toBe('ORA-UNKNOWN');
  });

  it("a thrown error's codes: its code, then errorNum, then those in its message", () => {
    expect(oracleCodesOf({ code: 'ORA-1438', errorNum: 1438, message: 'ORA-01438: value larger' })).toEqual([
      'ORA-01438',
      'ORA-01438',
      'ORA-01438',
    ]);
    expect(oracleCodesOf({ code: 'NJS-500', message: 'NJS-500: closed\nORA-03113: eof' })).toEqual(['NJS-500', 'NJS-500', 'ORA-03113']);
    expect(oracleCodesOf({ code: 'ECONNRESET' })).toEqual(['ECONNRESET']);
    expect(oracleCodesOf({ code: '', errorNum: 0, message: 'plain' })).toEqual([]);
    expect(oracleCodesOf({ errorNum: 60 })).toEqual(['ORA-00060']);
    expect(oracleCodesOf('ORA-00001: unique constraint')).toEqual(['ORA-00001']);
    expect(oracleCodesOf(null)).toEqual([]);
    expect(oracleCodesOf(42)).toEqual([]);
  });

  it('the code recorded for a thrown error: its first Oracle or driver code, else its own code, else UNKNOWN', () => {
    expect(primaryOracleCode({ code: 'ECONNRESET', message: 'ORA-03113: eof' })).toBe('ORA-03113');
    expect(primaryOracleCode({ code: 'ECONNRESET', message: 'reset' })).toBe('ECONNRESET');
    expect(primaryOracleCode(new Error('nothing'))).toBe('UNKNOWN');
    expect(primaryOracleCode({ errorNum: 1, message: '' })).toBe('ORA-00001');
  });
});
