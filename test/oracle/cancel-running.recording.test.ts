/**
 * A second SIGINT cancels what runs on the server before the process exits (Engine.cancelRunning,
 * as the PostgreSQL engine sends each leased backend a cancel request): on Oracle, each connection
 * checked out is sent node-oracledb's connection.break(). Against a RECORDING connection: the break
 * is recorded; that Oracle then ends the running call with ORA-01013 and releases its locks is not
 * tested here (no server).
 */
import { describe, expect, it } from 'vitest';
import { createOracleEngineWith } from '../../src/engine/oracle/index.js';
import { constants, RecordingDatabase } from './recording-connection.js';

describe('Oracle cancelRunning (recording connection)', () => {
  it('breaks the call of each connection checked out, and none given back', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    expect(engine.cancelRunning).toBeTypeOf('function');
    let inside: () => void = () => undefined;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    let finish: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (finish = resolve));
    const running = engine.transaction(async () => {
      inside();
      await held;
    });
    await entered;
    await engine.cancelRunning?.();
    const breaks = () => db.calls.filter((c) => c.kind === 'break').map((c) => c.conn);
    expect(breaks()).toEqual([1]);
    finish();
    await running;
    // the connection went back to the idle stack: nothing runs on it, nothing is broken
    await engine.cancelRunning?.();
    expect(breaks()).toEqual([1]);
    await engine.close();
  });
});
