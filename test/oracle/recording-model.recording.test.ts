/**
 * The recording connection (recording-connection.ts) against what node-oracledb 26 thin mode
 * does, read in node_modules/oracledb/lib: the error a call gets, and when. These tests are of
 * the model, so that the engine's tests over it mean what they say; they run no SQL.
 */
import oracledb from 'oracledb';
import { describe, expect, it } from 'vitest';
import type { OraBindDef } from '../../src/engine/oracle/oracledb-types.js';
import { RecordingDatabase } from './recording-connection.js';

const NUMBER = (oracledb as unknown as { DB_TYPE_NUMBER: unknown }).DB_TYPE_NUMBER;
const VARCHAR = (oracledb as unknown as { DB_TYPE_VARCHAR: unknown }).DB_TYPE_VARCHAR;
const NO_COMMIT = { autoCommit: false } as const;

function many(defs: Record<string, OraBindDef>) {
  return { autoCommit: false as const, bindDefs: defs };
}

describe('recording connection: bind checks as thin mode makes them', () => {
  it('a bind name the statement lacks, with the same count: NJS-097 naming it (lib/thin/connection.js _bind)', async () => {
    const c = await new RecordingDatabase().getConnection();
    await expect(c.execute('SELECT :a, :b FROM dual', { a: 1, c: 2 }, NO_COMMIT)).rejects.toMatchObject({ code: 'NJS-097' });
    await expect(c.execute('SELECT :a, :b FROM dual', { a: 1, c: 2 }, NO_COMMIT)).rejects.toThrow(
      'NJS-097: no bind placeholder named ":C" was found in the statement text',
    );
    await expect(
      c.executeMany('INSERT INTO t (x, y) VALUES (:x, :y)', [{ x: 1, z: 2 }], many({ x: { type: NUMBER }, z: { type: NUMBER } })),
    ).rejects.toMatchObject({ code: 'NJS-097' });
  });

  it('a count that matches neither the placeholders nor the distinct names: NJS-098; a name used twice counts once when the binds name it once', async () => {
    const c = await new RecordingDatabase().getConnection();
    await expect(c.execute('SELECT :a, :b FROM dual', { a: 1 }, NO_COMMIT)).rejects.toThrow(
      'NJS-098: 2 bind placeholders were used in the SQL statement but 1 bind values were provided',
    );
    // 3 occurrences, 2 distinct names, 2 binds: accepted (the distinct count matches)
    await expect(c.execute('SELECT :a, :b, :a FROM dual', { a: 1, b: 2 }, NO_COMMIT)).resolves.toBeDefined();
    // 2 occurrences of one name, 2 binds: the counts match, the unknown name is NJS-097
    await expect(c.execute('SELECT :a, :a FROM dual', { a: 1, b: 2 }, NO_COMMIT)).rejects.toMatchObject({ code: 'NJS-097' });
    // DDL has no placeholders for the driver (its parser stops at the first keyword)
    await expect(c.execute('CREATE TABLE t (x NUMBER DEFAULT 1)', { x: 1 }, NO_COMMIT)).rejects.toMatchObject({ code: 'NJS-098' });
    // a placeholder inside a /* */ comment is no placeholder
    await expect(c.execute('SELECT /* :hidden */ :a FROM dual', { a: 1 }, NO_COMMIT)).resolves.toBeDefined();
  });

  it('a VARCHAR2 bindDef without maxSize: NJS-057 before any row is looked at, even when every value is null', async () => {
    const db = new RecordingDatabase();
    const c = await db.getConnection();
    const sql = 'INSERT INTO t (k) VALUES (:k)';
    await expect(c.executeMany(sql, [{ k: null }], many({ k: { type: VARCHAR } }))).rejects.toThrow(
      'NJS-057: maxSize for bind "k" must be specified and greater than zero',
    );
    // before the row's type mismatch (NJS-011), and before the statement check (NJS-157)
    await expect(c.executeMany(sql, [{ k: 5 }], many({ k: { type: VARCHAR } }))).rejects.toMatchObject({ code: 'NJS-057' });
    await expect(c.executeMany('SELECT :k FROM dual', [{ k: 'x' }], many({ k: { type: VARCHAR } }))).rejects.toMatchObject({
      code: 'NJS-057',
    });
    // with maxSize: a value too long is NJS-058 naming its row
    await expect(c.executeMany(sql, [{ k: 'ab' }, { k: 'abc' }], many({ k: { type: VARCHAR, maxSize: 2 } }))).rejects.toThrow(
      'NJS-058: maxSize of 2 is too small for value of length 3 in row 1',
    );
  });

  it('a pooled session whose socket died is not listed again: the next getConnection is a new session', async () => {
    const db = new RecordingDatabase();
    const pool = db.createPool();
    const first = await pool.getConnection();
    first.healthy = false;
    await first.close();
    expect(db.ended.has(first.id)).toBe(true);
    const second = await pool.getConnection();
    expect(second.id).not.toBe(first.id);
    // a healthy one still comes back (LIFO)
    await second.close();
    expect((await pool.getConnection()).id).toBe(second.id);
  });
});
