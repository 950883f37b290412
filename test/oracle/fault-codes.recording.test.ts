/**
 * The fault injector's lost connection (test/support/fault-engine.ts) is what each engine's own
 * classifier retries: a test that injects PostgreSQL's 08006 into the Oracle engine would see it
 * classified as a refused row, nothing retried, and fail on the Oracle job only. The Oracle
 * engine here is over a RECORDING connection (no Oracle Database); the PostgreSQL engine's
 * classifier is PGlite's and the server's alike.
 */
import { describe, expect, it } from 'vitest';
import { createOracleEngineWith } from '../../src/engine/oracle/index.js';
import { classifyPgError } from '../../src/engine/postgres/classify.js';
import { connectionLost, lostConnectionCode } from '../support/fault-engine.js';
import { constants, RecordingDatabase } from './recording-connection.js';

describe("the fault injector's lost connection, per engine", () => {
  it('is fatal for the chunk (rolled back and retried) on Oracle, as thin mode raises it: NJS-500 then NJS-521', () => {
    const engine = createOracleEngineWith(new RecordingDatabase(), constants);
    const lost = connectionLost('oracle') as Error & { code?: string; isRecoverable?: boolean };
    expect(engine.classifyError(lost)).toBe('fatal');
    expect(lost.code).toBe(lostConnectionCode('oracle'));
    expect(lost.isRecoverable).toBe(true);
    expect(lost.message.split('\n')).toEqual([
      'NJS-500: connection to Oracle Database was closed or broken',
      'NJS-521: connection to host 127.0.0.1 port 1521 received end-of-file on communication channel. (CONNECTION_ID=injected: connection lost)',
    ]);
  });

  it('is fatal for the chunk on PostgreSQL and PGlite (SQLSTATE 08006)', () => {
    expect(classifyPgError(connectionLost('postgres'))).toBe('fatal');
    expect(classifyPgError(connectionLost('pglite'))).toBe('fatal');
  });

  it("PostgreSQL's code given to the Oracle engine would not be retried (what the injector spoke before)", () => {
    const engine = createOracleEngineWith(new RecordingDatabase(), constants);
    expect(engine.classifyError(connectionLost('postgres'))).toBe('rejected');
  });
});
