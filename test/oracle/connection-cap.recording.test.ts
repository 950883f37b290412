/**
 * The Oracle driver never has more than `maxOpen` connections open at once: a burst of callers
 * waits, first come first served, for the next connection released. Against a RECORDING
 * database (test/oracle/recording-connection.ts): each getConnection() is a new standalone
 * session, each close() ends one. Nothing here runs on an Oracle Database.
 */
import { describe, expect, it } from 'vitest';
import { createOracleEngineWith } from '../../src/engine/oracle/index.js';
import type { OraConnection } from '../../src/engine/oracle/oracledb-types.js';
import { constants, driverError, RecordingDatabase } from './recording-connection.js';

/** A connector over `db` that records the most sessions ever open at once (opened, not yet ended). */
function counting(db: RecordingDatabase) {
  const stats = { peak: 0 };
  const connector = {
    async getConnection(): Promise<OraConnection> {
      await new Promise((resolve) => setTimeout(resolve, 2)); // a logon takes a round trip
      const connection = await db.getConnection();
      stats.peak = Math.max(stats.peak, db.sessions() - db.ended.size);
      return connection;
    },
  };
  return { connector, stats };
}

const slow = () => new Promise<{ rows: unknown[] }>((resolve) => setTimeout(() => resolve({ rows: [] }), 5));

describe('Oracle driver: a cap on open connections', () => {
  it('20 concurrent callers never open more than maxOpen, and every one of them runs', async () => {
    const db = new RecordingDatabase({ execute: slow });
    const { connector, stats } = counting(db);
    const engine = createOracleEngineWith(connector, constants, { maxIdle: 2, maxOpen: 3 });
    const done = await Promise.all(
      Array.from({ length: 20 }, (_, i) => engine.transaction((tx) => tx.lockStaleProcessing(new Date(0))).then(() => i)),
    );
    expect(done).toHaveLength(20);
    expect(stats.peak).toBe(3);
    expect(db.sessions()).toBe(3); // the waiting callers got released connections, not new ones
    await engine.close();
    expect(db.ended.size).toBe(3);
  });

  it('a connection released broken is closed and the waiting caller gets a new one in its place', async () => {
    let failed = false;
    const db = new RecordingDatabase({
      execute: async (_sql, _binds, _options, conn) => {
        await slow();
        if (conn === 1 && !failed) {
          failed = true;
          throw driverError('ORA-03113', 'end-of-file on communication channel');
        }
        return { rows: [] };
      },
    });
    const { connector, stats } = counting(db);
    const engine = createOracleEngineWith(connector, constants, { maxIdle: 1, maxOpen: 1 });
    const first = engine.transaction((tx) => tx.lockStaleProcessing(new Date(0)));
    const second = engine.transaction((tx) => tx.lockStaleProcessing(new Date(0)));
    await expect(first).rejects.toThrow(/ORA-03113/);
    await expect(second).resolves.toEqual([]);
    expect(stats.peak).toBe(1);
    expect(db.sessions()).toBe(2);
    expect(db.ended.has(1)).toBe(true);
    await engine.close();
  });

  it('a caller still waiting when the engine closes is refused, not left hanging', async () => {
    const db = new RecordingDatabase({ execute: slow });
    const engine = createOracleEngineWith(counting(db).connector, constants, { maxIdle: 1, maxOpen: 1 });
    const first = engine.transaction((tx) => tx.lockStaleProcessing(new Date(0)));
    const second = engine.transaction((tx) => tx.lockStaleProcessing(new Date(0)));
    await new Promise((resolve) => setTimeout(resolve, 1));
    await engine.close();
    await expect(second).rejects.toThrow(/closed/);
    await first.catch(() => undefined);
  });
});
