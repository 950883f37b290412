/**
 * The review page's reads on the Oracle engine (pageErrorRows, rowHistory) against a RECORDING
 * connection (test/oracle/recording-connection.ts): the SQL text and binds the engine sends and
 * how it reads thin-mode-shaped answers. They run no SQL: the statements' validity is the PL/SQL
 * grammar check's (test-statements.grammar.test.ts), their plans on a real Oracle are not tested.
 * The page's writes are `retry`'s own operator calls (operations.recording.test.ts).
 */
import { describe, expect, it } from 'vitest';
import oracledb from 'oracledb';
import { createOracleEngineWith } from '../../src/engine/oracle/index.js';
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import { constants, RecordingDatabase, type Call } from './recording-connection.js';

const NUMBER = (oracledb as unknown as { DB_TYPE_NUMBER: unknown }).DB_TYPE_NUMBER;
const VARCHAR = (oracledb as unknown as { DB_TYPE_VARCHAR: unknown }).DB_TYPE_VARCHAR;

type ExecuteCall = Extract<Call, { kind: 'execute' }>;
const executes = (db: RecordingDatabase): ExecuteCall[] => db.calls.filter((c): c is ExecuteCall => c.kind === 'execute');

function errorRow(stageId: number): Record<string, unknown> {
  return {
    STAGE_ID: String(stageId),
    SOURCE_KEY: `K${stageId}`,
    CUSTOMER_ID: '42',
    ORDER_DATE: '2024-04-01',
    AMOUNT: null,
    CURRENCY: 'JPY',
    PROCESS_STATUS: 'ERROR',
    ATTEMPT_COUNT: '1',
    LOAD_ID: '7',
    LINE_NO: '3',
    ERROR_CODE: 'INVALID_AMOUNT',
    ERROR_MESSAGE: 'amount is missing',
    UPDATED_AT: '2024-05-01T10:00:00.123Z',
    ATTRIBUTES: null,
    PHASE: 'VALIDATE',
    RAW_RECORD: null,
    LOGGED_AT: '2024-05-01T10:00:01.000Z',
    ERROR_LOAD_ID: '7',
  };
}

const slotsOf = (name: string, values: (number | string)[] | null, maxSize?: number): Record<string, unknown> => {
  const out: Record<string, unknown> = { [`by_${name}`]: { val: values === null ? 0 : 1, type: NUMBER } };
  for (let i = 0; i < 20; i++) {
    const val = values?.[i] ?? null;
    out[`${name}${i + 1}`] = maxSize === undefined ? { val, type: NUMBER } : { val, type: VARCHAR, maxSize };
  }
  return out;
};

describe('Oracle engine (recording connection): the review page', () => {
  it('pageErrorRows: newest first below the keyset bound, the phase filter bound, rows mapped and ordered newest first', async () => {
    const db = new RecordingDatabase({ execute: () => ({ rows: [errorRow(9), errorRow(5)] }) });
    const engine = createOracleEngineWith(db, constants);
    const rows = await engine.pageErrorRows({ loadIds: [7], phase: 'VALIDATE', beforeStageId: 10, limit: 2 });
    expect(rows.map((r) => [r.stageId, r.phase, r.amount, r.loggedAt?.toISOString()])).toEqual([
      [9, 'VALIDATE', null, '2024-05-01T10:00:01.000Z'],
      [5, 'VALIDATE', null, '2024-05-01T10:00:01.000Z'],
    ]);
    const [call] = executes(db);
    expect(call!.sql).toBe(oracleQuery('page_error_rows'));
    expect(call!.sql).toContain('INDEX_DESC(s ix_order_stage_error)');
    expect(call!.sql).toContain("CASE WHEN s.process_status = 'ERROR' THEN s.stage_id END < :before_stage_id");
    expect(call!.sql).toMatch(/ORDER BY p\.stage_id DESC\s*$/);
    expect(call!.sql).not.toMatch(/\bOFFSET\b|FOR UPDATE/i);
    expect(call!.binds).toEqual({
      ...slotsOf('load_id', [7]),
      ...slotsOf('error_code', null, 120),
      before_stage_id: { val: 10, type: NUMBER },
      by_phase: { val: 1, type: NUMBER },
      phase_name: { val: 'VALIDATE', type: VARCHAR, maxSize: 10 },
      row_limit: { val: 2, type: NUMBER },
    });
  });

  it('pageErrorRows: the first page starts below the largest safe stage_id, no phase; a limit of 0 sends nothing', async () => {
    const db = new RecordingDatabase({ execute: () => ({ rows: [] }) });
    const engine = createOracleEngineWith(db, constants);
    expect(await engine.pageErrorRows({ limit: 0 })).toEqual([]);
    expect(db.calls).toEqual([]);
    await engine.pageErrorRows({ limit: 100 });
    const [call] = executes(db);
    expect(call!.binds.before_stage_id).toEqual({ val: Number.MAX_SAFE_INTEGER, type: NUMBER });
    expect(call!.binds.by_phase).toEqual({ val: 0, type: NUMBER });
    expect(call!.binds.phase_name).toEqual({ val: null, type: VARCHAR, maxSize: 10 });
  });

  it('rowHistory: the row, its error-log rows and its audit rows, each by :stage_id, read in that order', async () => {
    const db = new RecordingDatabase({
      execute: (sql) => {
        if (sql === oracleQuery('row_history_row')) return { rows: [errorRow(5)] };
        if (sql === oracleQuery('row_history_errors'))
          return {
            rows: [
              {
                ERROR_ID: '11',
                LOAD_ID: '7',
                LINE_NO: '3',
                BATCH_ID: '7-1',
                ATTEMPT_NO: '1',
                PHASE: 'VALIDATE',
                ERROR_CODE: 'INVALID_AMOUNT',
                ERROR_MESSAGE: 'amount is missing',
                RAW_RECORD: null,
                LOGGED_AT: '2024-05-01T10:00:01.000Z',
              },
            ],
          };
        return {
          rows: [
            {
              AUDIT_ID: '3',
              ACTION: 'RETRY',
              OLD_STATUS: 'ERROR',
              NEW_STATUS: 'READY',
              OLD_VALUES: '{"amount":null}',
              NEW_VALUES: '{"amount":"1500"}',
              OPERATOR: 'alice',
              REASON: 'mail',
              AUDITED_AT: '2024-05-02T08:00:00.000Z',
            },
          ],
        };
      },
    });
    const engine = createOracleEngineWith(db, constants);
    const history = await engine.rowHistory(5);
    expect(history.row?.stageId).toBe(5);
    expect(history.errors).toEqual([
      {
        errorId: 11,
        loadId: 7,
        lineNo: 3,
        batchId: '7-1',
        attemptNo: 1,
        phase: 'VALIDATE',
        errorCode: 'INVALID_AMOUNT',
        errorMessage: 'amount is missing',
        rawRecord: null,
        loggedAt: new Date('2024-05-01T10:00:01.000Z'),
      },
    ]);
    expect(history.audit).toEqual([
      {
        auditId: 3,
        action: 'RETRY',
        oldStatus: 'ERROR',
        newStatus: 'READY',
        oldValues: '{"amount":null}',
        newValues: '{"amount":"1500"}',
        operator: 'alice',
        reason: 'mail',
        at: new Date('2024-05-02T08:00:00.000Z'),
      },
    ]);
    expect(executes(db).map((c) => c.sql)).toEqual([
      oracleQuery('row_history_row'),
      oracleQuery('row_history_errors'),
      oracleQuery('row_history_audit'),
    ]);
    for (const c of executes(db)) expect(c.binds).toEqual({ stage_id: { val: 5, type: NUMBER } });
  });

  it('rowHistory of a stage_id that is not an integer fails before anything is sent', async () => {
    const db = new RecordingDatabase();
    const engine = createOracleEngineWith(db, constants);
    await expect(engine.rowHistory(1.5)).rejects.toThrow(/not an integer/);
    expect(db.calls).toEqual([]);
  });
});
