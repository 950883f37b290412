/**
 * MAX_STRING_SIZE detection when the Oracle engine opens (src/engine/oracle/string-size.ts):
 * long raw records are bound as VARCHAR2 up to 32767 bytes on an EXTENDED database, up to 4000
 * on a STANDARD one, and as CLOB beyond. Against a RECORDING database: the probe's answer is
 * scripted; nothing here runs on an Oracle Database.
 */
import { describe, expect, it } from 'vitest';
import oracledb from 'oracledb';
import { openOracleEngine } from '../../src/engine/oracle/index.js';
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import type { ErrorLogInput } from '../../src/engine/types.js';
import { constants, driverError, RecordingDatabase } from './recording-connection.js';

const VARCHAR = (oracledb as unknown as { DB_TYPE_VARCHAR: unknown }).DB_TYPE_VARCHAR;
const CLOB = (oracledb as unknown as { DB_TYPE_CLOB: unknown }).DB_TYPE_CLOB;

function database(probe: () => { rows: unknown[] }) {
  return new RecordingDatabase({
    execute: (sql) => (sql === oracleQuery('max_string_size') ? probe() : { rows: [] }),
  });
}

const reject = (lineNo: number, rawRecord: string): ErrorLogInput => ({
  stageId: null,
  sourceKey: null,
  loadId: 1,
  lineNo,
  batchId: null,
  attemptNo: null,
  phase: 'PARSE',
  code: 'PARSE_FIELD_COUNT',
  message: 'expected 5 fields',
  rawRecord,
});

/** The raw_record bind type of each log_errors call, with the lines it carried. */
async function rawBinds(db: RecordingDatabase, settings: { charsetCheck: false }) {
  const engine = await openOracleEngine(db, constants, settings);
  await engine.transaction((tx) => tx.logErrors([reject(2, 'a'.repeat(10_000)), reject(3, 'b'.repeat(40_000)), reject(4, 'short')]));
  await engine.close();
  return db
    .executeManyCalls()
    .filter((c) => c.sql === oracleQuery('log_errors'))
    .map((c) => [c.binds.map((b) => b.line_no), c.options.bindDefs.raw_record]);
}

describe('Oracle engine: MAX_STRING_SIZE detected when it opens', () => {
  it('EXTENDED (the probe answers 32767): text up to 32767 bytes is bound as VARCHAR2, longer as CLOB', async () => {
    const db = database(() => ({ rows: [{ MAX_BYTES: '32767' }] }));
    expect(await rawBinds(db, { charsetCheck: false })).toEqual([
      [[2], { type: VARCHAR, maxSize: 32767 }],
      [[3], { type: CLOB }],
      [[4], { type: VARCHAR, maxSize: 32767 }],
    ]);
    // the probe is the one statement sent before the first use, and it needs no privilege
    expect(db.trace().slice(0, 2)).toEqual(["1:execute:SELECT LENGTHB(RPAD('x', 32767,", '1:commit']);
    expect(oracleQuery('max_string_size')).not.toMatch(/v\$parameter/i);
  });

  it('STANDARD (the probe answers 4000): text over 4000 bytes is bound as CLOB', async () => {
    const db = database(() => ({ rows: [{ MAX_BYTES: '4000' }] }));
    expect(await rawBinds(db, { charsetCheck: false })).toEqual([
      [[2, 3], { type: CLOB }],
      [[4], { type: VARCHAR, maxSize: 4000 }],
    ]);
  });

  it('a probe that cannot be read counts as STANDARD; a lost connection fails the open', async () => {
    const refused = database(() => {
      throw driverError('ORA-01031', 'insufficient privileges');
    });
    expect(await rawBinds(refused, { charsetCheck: false })).toEqual([
      [[2, 3], { type: CLOB }],
      [[4], { type: VARCHAR, maxSize: 4000 }],
    ]);
    const lost = database(() => {
      throw driverError('ORA-03113', 'end-of-file on communication channel');
    });
    await expect(openOracleEngine(lost, constants, { charsetCheck: false })).rejects.toThrow(/ORA-03113/);
  });
});
