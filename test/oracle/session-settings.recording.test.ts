/**
 * The session settings every Oracle connection starts with (queries/session_settings.sql, sent
 * by src/engine/oracle/driver.ts), against a RECORDING database: what is sent, and when. That a
 * real server then compares source_key byte for byte is tested in
 * test/oracle-server/session-settings.test.ts (a server only).
 */
import { describe, expect, it } from 'vitest';
import { createOracleEngineWith, openOracleEngine } from '../../src/engine/oracle/index.js';
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import { type Call, catalogRows, constants, driverError, everyObject, RecordingDatabase, type Script } from './recording-connection.js';

const SETTINGS = oracleQuery('session_settings');

/** The calls of each connection, in order, from the full log (session settings included). */
function byConnection(db: RecordingDatabase): Map<number, Call[]> {
  const out = new Map<number, Call[]>();
  for (const call of db.log) {
    const list = out.get(call.conn) ?? [];
    list.push(call);
    out.set(call.conn, list);
  }
  return out;
}

function isSettings(call: Call | undefined): boolean {
  return call?.kind === 'execute' && call.sql === SETTINGS;
}

/** Every connection's first call is the settings, and no connection sends them twice. */
function expectSettingsFirstOnEach(db: RecordingDatabase): void {
  const connections = byConnection(db);
  expect(connections.size).toBe(db.sessions());
  for (const [conn, calls] of connections) {
    expect(isSettings(calls[0]), `connection ${conn}: first call ${JSON.stringify(calls[0])}`).toBe(true);
    expect(calls.filter(isSettings), `connection ${conn}`).toHaveLength(1);
  }
}

/** A database that answers the character set and string-size probes of openOracleEngine. */
function probes(script: Script = {}): Script {
  return {
    ...script,
    execute: (sql, binds, options, conn) => {
      if (sql === oracleQuery('database_charset')) return { rows: [{ VALUE: 'AL32UTF8' }] };
      if (sql === oracleQuery('max_string_size')) return { rows: [{ MAX_BYTES: 4000 }] };
      if (sql === oracleQuery('schema_objects')) return { rows: catalogRows(everyObject(), binds) };
      return script.execute?.(sql, binds, options, conn) ?? { rows: [] };
    },
  };
}

describe('Oracle session settings (recording database)', () => {
  it('pins binary comparison and sort, the Gregorian calendar and the decimal point, in one ALTER SESSION without binds', () => {
    expect(SETTINGS).toMatch(/^ALTER SESSION SET /);
    expect(SETTINGS).toContain("NLS_COMP = 'BINARY'");
    expect(SETTINGS).toContain("NLS_SORT = 'BINARY'");
    expect(SETTINGS).toContain("NLS_CALENDAR = 'GREGORIAN'");
    expect(SETTINGS).toContain("NLS_NUMERIC_CHARACTERS = '.,'");
    expect(SETTINGS).not.toMatch(/;|:/);
  });

  it('is the first statement of every connection the engine opens: open, concurrent transactions, migrate, reports, a bench workspace', async () => {
    const db = new RecordingDatabase(probes());
    const engine = await openOracleEngine(db, constants, { maxIdle: 1, maxOpen: 4 }); // few kept: many opened
    // two transactions at once: a second connection
    await Promise.all([
      engine.transaction((tx) => tx.mergeOrders([], { isolationBlock: 1 })),
      engine.transaction(async (tx) => {
        await tx.addRunEvent(1, { event: 'staged' });
      }),
    ]);
    // migrate holds its lock on one connection and works on another
    await engine.migrate();
    await engine.listRuns(5);
    // a bench workspace: its lock holder is a connection of its own
    await engine.createWorkspace('case-1');
    await engine.dropWorkspace('case-1');
    await engine.close();
    expect(db.sessions()).toBeGreaterThanOrEqual(3);
    expectSettingsFirstOnEach(db);
  });

  it('a connection opened to replace a broken one starts with the settings too', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    await expect(
      engine.transaction(async (tx) => {
        await tx.addRunEvent(1, { event: 'staged' });
        throw driverError('NJS-500', 'connection to the Oracle Database was broken');
      }),
    ).rejects.toThrow(/NJS-500/);
    await engine.transaction((tx) => tx.addRunEvent(1, { event: 'staged' }));
    await engine.close();
    expect(db.sessions()).toBe(2);
    expectSettingsFirstOnEach(db);
  });

  it('a connection whose settings fail is closed and sends nothing else; the error reaches the caller and the next use opens a new one', async () => {
    let refuse = true;
    const db = new RecordingDatabase({
      sessionSettings: () => {
        if (refuse) throw driverError('ORA-12705', 'Cannot access NLS data files or invalid environment specified');
      },
    });
    const engine = createOracleEngineWith(db, constants);
    await expect(engine.transaction((tx) => tx.addRunEvent(1, { event: 'staged' }))).rejects.toThrow(/ORA-12705/);
    expect(db.log.map((c) => `${c.conn}:${c.kind}`)).toEqual(['1:execute', '1:close']);
    expect(db.ended.has(1)).toBe(true);
    refuse = false;
    await engine.transaction((tx) => tx.addRunEvent(1, { event: 'staged' }));
    await engine.close();
    expectSettingsFirstOnEach(db);
    expect(db.calls.some((c) => c.conn === 2 && c.kind === 'commit')).toBe(true);
  });
});
