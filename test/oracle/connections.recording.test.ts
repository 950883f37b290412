/**
 * How the Oracle engine gets, keeps and replaces its connections, against a RECORDING database
 * that models thin mode (test/oracle/recording-connection.ts): a pool's close() ignores
 * `{ drop: true }` and its free list is LIFO; a standalone connection's close() ends its
 * session. `oracledb` itself is replaced by a module whose getConnection / createPool hand out
 * recording connections, so createOracleEngine is tested as the CLI opens it. Nothing here runs
 * on an Oracle Database.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { parseDbUrl } from '../../src/engine/db-url.js';
import { createOracleEngine, DEFAULT_CALL_TIMEOUT_SECONDS, DEFAULT_EXPIRE_TIME_MINUTES } from '../../src/engine/oracle/index.js';
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import type { ClaimedRow } from '../../src/engine/types.js';
import { driverError, RecordingDatabase, type RecordingConnection, type Script } from './recording-connection.js';
import { UserError } from '../../src/errors.js';

const fake = vi.hoisted(() => ({
  db: undefined as unknown as { getConnection(): Promise<unknown>; createPool(): unknown },
  connectAttributes: [] as unknown[],
  poolAttributes: [] as unknown[],
  connections: [] as unknown[],
}));

vi.mock('oracledb', async (importOriginal) => {
  const real = await importOriginal<{ default?: Record<string, unknown> } & Record<string, unknown>>();
  const base = real.default ?? real;
  const mocked = {
    ...base,
    getConnection: async (attributes: unknown) => {
      fake.connectAttributes.push(attributes);
      const connection = await fake.db.getConnection();
      fake.connections.push(connection);
      return connection;
    },
    createPool: async (attributes: unknown) => {
      fake.poolAttributes.push(attributes);
      return fake.db.createPool();
    },
  };
  return { ...mocked, default: mocked };
});

function claimed(stageId: number): ClaimedRow {
  return {
    stageId,
    sourceKey: `K${stageId}`,
    customerId: '1',
    orderDate: '2024-04-01',
    amount: '1.00',
    currency: 'JPY',
    attemptCount: 0,
    transientFailures: 0,
    loadId: 1,
    lineNo: 2,
  };
}

/** A script whose database is AL32UTF8 (the check createOracleEngine makes), over `script`. */
function utf8(script: Script = {}, charset = 'AL32UTF8'): Script {
  return {
    ...script,
    execute: (sql, binds, options, conn) =>
      sql === oracleQuery('database_charset')
        ? { rows: [{ VALUE: charset }] }
        : (script.execute?.(sql, binds, options, conn) ?? { rows: [] }),
  };
}

const options = { user: 'loader', password: 'pw-secret', connectString: 'db:1521/FREEPDB1', poolMax: 3 };

describe('Oracle connections (recording database, thin-mode semantics)', () => {
  let db: RecordingDatabase;
  beforeEach(() => {
    fake.connectAttributes.length = 0;
    fake.poolAttributes.length = 0;
    fake.connections.length = 0;
  });

  it('the model: a thin pool ignores close({ drop: true }) and hands the same session back (LIFO)', async () => {
    db = new RecordingDatabase();
    const pool = db.createPool();
    const first = await pool.getConnection();
    const second = await pool.getConnection();
    await first.close();
    await second.close({ drop: true });
    expect((await pool.getConnection()).id).toBe(second.id);
    expect((await pool.getConnection()).id).toBe(first.id);
    expect(db.ended.size).toBe(0);
  });

  it('a connection that saw a fatal error is really closed, and the retry runs on a new session', async () => {
    let merges = 0;
    db = new RecordingDatabase(
      utf8({
        executeMany: (sql) => {
          if (sql === oracleQuery('merge_orders') && ++merges === 1) throw driverError('NJS-123', 'call timeout of 1800000 ms exceeded');
          return { batchErrors: [] };
        },
      }),
    );
    fake.db = db;
    const engine = await createOracleEngine(options);
    const failed = await engine.transaction((tx) => tx.mergeOrders([claimed(1)], { isolationBlock: 1 })).catch((e: unknown) => e);
    expect(engine.classifyError(failed)).toBe('fatal');
    expect(db.trace()).toEqual([
      '1:execute:SELECT value FROM',
      "1:execute:SELECT LENGTHB(RPAD('x', 32767,",
      '1:commit',
      '1:executeMany:MERGE INTO orders',
      '1:rollback',
      '1:close',
    ]);
    expect(db.ended).toEqual(new Set([1]));
    await engine.transaction((tx) => tx.mergeOrders([claimed(1)], { isolationBlock: 1 }));
    expect(db.trace().slice(6)).toEqual(['2:executeMany:MERGE INTO orders', '2:commit']);
    expect(fake.poolAttributes).toEqual([]);
    await engine.close();
  });

  it('a healthy connection is kept for the next use; one whose socket died while idle is replaced', async () => {
    db = new RecordingDatabase(utf8());
    fake.db = db;
    const engine = await createOracleEngine(options);
    await engine.transaction((tx) => tx.mergeOrders([claimed(1)], { isolationBlock: 1 }));
    await engine.transaction((tx) => tx.mergeOrders([claimed(2)], { isolationBlock: 1 }));
    expect(db.sessions()).toBe(1);
    (fake.connections[0] as RecordingConnection).healthy = false;
    await engine.transaction((tx) => tx.mergeOrders([claimed(3)], { isolationBlock: 1 }));
    expect(db.sessions()).toBe(2);
    expect(db.trace().slice(-3)).toEqual(['1:close', '2:executeMany:MERGE INTO orders', '2:commit']);
    await engine.close();
    expect(db.ended).toEqual(new Set([1, 2]));
  });

  it('sets callTimeout on every connection and expireTime (TCP keepalive) on connect; both from the URL', async () => {
    db = new RecordingDatabase(utf8());
    fake.db = db;
    const defaults = await createOracleEngine(options);
    await defaults.transaction(async () => undefined);
    expect(fake.connectAttributes.at(-1)).toMatchObject({
      user: 'loader',
      connectString: 'db:1521/FREEPDB1',
      expireTime: DEFAULT_EXPIRE_TIME_MINUTES,
    });
    expect((fake.connections.at(-1) as RecordingConnection).callTimeout).toBe(DEFAULT_CALL_TIMEOUT_SECONDS * 1000);
    expect(DEFAULT_CALL_TIMEOUT_SECONDS).toBeGreaterThanOrEqual(600);

    const target = parseDbUrl('oracle://loader@db:1521/FREEPDB1?call_timeout=90&expire_time=0', { ORDER_LOADER_DB_PASSWORD: 'pw-secret' });
    if (target.kind !== 'oracle') throw new Error('expected oracle');
    expect(target.oracle).toEqual({ callTimeoutSeconds: 90, expireTimeMinutes: 0 });
    const tuned = await createOracleEngine({ ...options, oracle: target.oracle });
    await tuned.transaction(async () => undefined);
    expect(fake.connectAttributes.at(-1)).not.toHaveProperty('expireTime');
    expect((fake.connections.at(-1) as RecordingConnection).callTimeout).toBe(90_000);
  });

  it('refuses a database whose character set is not AL32UTF8, in one line, and closes its connection', async () => {
    db = new RecordingDatabase(utf8({}, 'WE8MSWIN1252'));
    fake.db = db;
    const error = await createOracleEngine(options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toContain('WE8MSWIN1252');
    expect(message).toContain('are replaced (by ? or ¿)');
    expect(message).not.toMatch(/['"]/); // the CLI blanks quoted text in database errors
    expect(message).toContain('two distinct source keys can collapse into one');
    expect(message).toContain('?charset_check=off');
    expect(db.trace()).toEqual(['1:execute:SELECT value FROM', '1:rollback', '1:close']);
    expect(db.ended).toEqual(new Set([1]));
  });

  it('checks the character set once, on the first connection, which is then kept; charset_check=off skips it', async () => {
    db = new RecordingDatabase(utf8());
    fake.db = db;
    const engine = await createOracleEngine(options);
    await engine.transaction((tx) => tx.mergeOrders([claimed(1)], { isolationBlock: 1 }));
    await engine.transaction((tx) => tx.mergeOrders([claimed(2)], { isolationBlock: 1 }));
    expect(db.trace().filter((t) => t.includes('SELECT value FROM'))).toHaveLength(1);
    expect(db.sessions()).toBe(1);

    const ascii = new RecordingDatabase(utf8({}, 'US7ASCII'));
    fake.db = ascii;
    const unchecked = await createOracleEngine({ ...options, oracle: { charsetCheck: false } });
    await unchecked.transaction((tx) => tx.mergeOrders([claimed(1)], { isolationBlock: 1 }));
    // the VARCHAR2 limit is read all the same (string-size.ts)
    expect(ascii.trace()).toEqual(["1:execute:SELECT LENGTHB(RPAD('x', 32767,", '1:commit', '1:executeMany:MERGE INTO orders', '1:commit']);
  });

  it('a database whose dictionary view cannot be read is refused with the way out', async () => {
    db = new RecordingDatabase({
      execute: (sql) => {
        if (sql === oracleQuery('database_charset'))
          throw Object.assign(driverError('ORA-00942', 'table or view does not exist'), { errorNum: 942 });
        return { rows: [] };
      },
    });
    fake.db = db;
    await expect(createOracleEngine(options)).rejects.toThrow(/cannot read NLS_CHARACTERSET .*ORA-00942.*charset_check=off/);
  });

  it('Oracle URL parameters: unknown names and bad values are refused in one line', () => {
    expect(parseDbUrl('oracle://u@h/s', {})).not.toHaveProperty('oracle');
    expect(parseDbUrl('oracle://u@h/s?charset_check=off', {})).toMatchObject({ oracle: { charsetCheck: false } });
    expect(() => parseDbUrl('oracle://u@h/s?call_timeout=-1', {})).toThrow(/call_timeout must be a whole number/);
    expect(() => parseDbUrl('oracle://u@h/s?expire_time=abc', {})).toThrow(/expire_time must be a whole number/);
    expect(() => parseDbUrl('oracle://u@h/s?charset_check=maybe', {})).toThrow(/charset_check must be on or off/);
    expect(() => parseDbUrl('oracle://u@h/s?calltimeout=5', {})).toThrow(/unknown Oracle URL parameter "calltimeout"/);
  });
});
