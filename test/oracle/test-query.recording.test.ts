/**
 * The shared tests' own Oracle statements (test/support/oracle-query.ts, db.sql of the Oracle
 * target in test/support/databases.ts) against a RECORDING pool: thin mode's pooled close()
 * rolls back what was not committed, so the helper commits; CLOBs come back as strings and
 * scaled NUMBERs as canonical decimal text, as the shared tests read them on PostgreSQL.
 * Nothing here runs on an Oracle Database.
 */
import { describe, expect, it } from 'vitest';
import { decimalText, oracleDateText, oracleTestQueryOptions, oracleTestSql, runOracleTestQuery } from '../support/oracle-query.js';
import type { OraColumnMeta, OraFetchTypeResult } from '../../src/engine/oracle/oracledb-types.js';
import { constants, RecordingDatabase } from './recording-connection.js';

const c = constants as unknown as {
  DB_TYPE_NUMBER: unknown;
  DB_TYPE_VARCHAR: unknown;
  DB_TYPE_CLOB: unknown;
  DB_TYPE_DATE: unknown;
  OUT_FORMAT_OBJECT: number;
};

describe('the Oracle test query helper (recording pool)', () => {
  it('commits what it sent before the pooled connection is closed, so a test’s setup rows stay', async () => {
    const db = new RecordingDatabase();
    const pool = db.createPool();
    const connection = await pool.getConnection();
    await runOracleTestQuery(connection, c, "UPDATE order_stage SET process_status = 'RUNNING' WHERE stage_id = $1", [3]);
    await connection.close();
    expect(db.rolledBackAtClose).toEqual([]);
    expect(db.trace()).toEqual(['1:execute:UPDATE order_stage SET', '1:commit', '1:close']);
    const call = db.calls[0];
    expect(call?.kind === 'execute' && call.sql).toBe("UPDATE order_stage SET process_status = 'RUNNING' WHERE stage_id = :p1");
    expect(call?.kind === 'execute' && call.binds).toEqual({ p1: 3 });
  });

  it('the model: without the commit, the pooled close rolls the update back', async () => {
    const db = new RecordingDatabase();
    const connection = await db.createPool().getConnection();
    await connection.execute("UPDATE order_stage SET process_status = 'RUNNING'", {}, { autoCommit: false });
    await connection.close();
    expect(db.rolledBackAtClose).toEqual([1]);
  });

  it('fetches CLOBs as strings, scaled NUMBERs as decimal text, other NUMBERs as numbers; names lower-case', async () => {
    const handler = oracleTestQueryOptions(c).fetchTypeHandler as (meta: OraColumnMeta & { scale?: number }) => OraFetchTypeResult & {
      converter?: (v: unknown) => unknown;
    };
    expect(handler({ name: 'RAW_RECORD', dbType: c.DB_TYPE_CLOB })).toEqual({ type: c.DB_TYPE_VARCHAR });
    const amount = handler({ name: 'AMOUNT', dbType: c.DB_TYPE_NUMBER, scale: 2 });
    expect(amount.type).toBe(c.DB_TYPE_VARCHAR);
    expect(['4', '.5', '-1.5', '12345678901.25', null].map((v) => amount.converter?.(v))).toEqual([
      '4.00',
      '0.50',
      '-1.50',
      '12345678901.25',
      null,
    ]);
    expect(handler({ name: 'STAGE_ID', dbType: c.DB_TYPE_NUMBER, scale: 0 })).toBeUndefined();
    // a DATE as PostgreSQL's order_date::text reads (thin mode decodes it at local midnight)
    const date = handler({ name: 'ORDER_DATE', dbType: c.DB_TYPE_DATE });
    expect([new Date(2026, 0, 1), new Date(999, 11, 31, 23, 5, 9), null].map((v) => date.converter?.(v))).toEqual([
      '2026-01-01',
      '0999-12-31 23:05:09',
      null,
    ]);
    expect(oracleDateText('2026-01-01')).toBe('2026-01-01');
    const db = new RecordingDatabase({ execute: () => ({ rows: [{ RAW_RECORD: 'a,b', AMOUNT: '4.00' }] }) });
    const rows = await runOracleTestQuery(
      await db.getConnection(),
      c,
      'SELECT raw_record, amount::text AS amount FROM order_bulk_error',
      [],
    );
    expect(rows).toEqual([{ raw_record: 'a,b', amount: '4.00' }]);
  });

  it('translates PostgreSQL spellings: casts dropped, $n binds, now(), intervals', () => {
    expect(oracleTestSql("SELECT amount::text FROM x WHERE a = $1 AND t < now() - interval '5 minutes'")).toBe(
      "SELECT amount FROM x WHERE a = :p1 AND t < SYSTIMESTAMP - INTERVAL '5' MINUTE",
    );
    expect(() => decimalText('1.234', 2)).toThrow(/more than 2 decimals/);
  });
});
