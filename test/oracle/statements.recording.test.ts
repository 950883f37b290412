/**
 * The Oracle statements that decide which rows are staged, claimed, merged and
 * finalized, checked against expectations written in the test (statement-shapes.ts), and the
 * engine run against the table model (table-model.ts), whose counts and rows follow from what
 * the statements say. mutants.recording.test.ts shows that each check can fail.
 */
import oracledb from 'oracledb';
import { describe, expect, it } from 'vitest';
import type { OraBindDef } from '../../src/engine/oracle/oracledb-types.js';
import { RecordingDatabase } from './recording-connection.js';
import { literalChecks, modelChecks } from './statement-checks.js';
import { normalizeSql, shapeProblems, splitTop } from './statement-shapes.js';
import { TableModel } from './table-model.js';

describe('Oracle statements: the predicates and SET columns each must have (literals in the test)', () => {
  it.each(literalChecks.map((c) => [c.name, c] as const))('%s', async (_name, check) => {
    await check.run();
  });
});

describe('Oracle engine against the table model: counts and rows computed from the tables', () => {
  it.each(modelChecks.map((c) => [c.name, c] as const))('%s', async (_name, check) => {
    await check.run();
  });
});

const NUMBER = (oracledb as unknown as { DB_TYPE_NUMBER: unknown }).DB_TYPE_NUMBER;
const VARCHAR = (oracledb as unknown as { DB_TYPE_VARCHAR: unknown }).DB_TYPE_VARCHAR;

/** executeMany options for binds like `row`: numbers NUMBER, the rest VARCHAR2. */
function many(row: Record<string, unknown>, batchErrors = false) {
  const bindDefs: Record<string, OraBindDef> = Object.fromEntries(
    Object.entries(row).map(([k, v]) => [k, typeof v === 'number' ? { type: NUMBER } : { type: VARCHAR, maxSize: 100 }]),
  );
  return { autoCommit: false as const, bindDefs, ...(batchErrors ? { batchErrors: true } : {}) };
}

describe('the statement reader and the table model themselves', () => {
  it('normalizes comments, hints, white space and case (string literals keep their case), and splits at the top level only', () => {
    expect(normalizeSql("SELECT /*+ INDEX(t i) */ a -- x\n  FROM  t WHERE ( b = 'Done' )")).toBe("select a from t where (b = 'Done')");
    expect(splitTop("a = 1 and (b = 2 and c = 3) and case when x and y then 1 end = 1 and d = ' and '", ' and ')).toEqual([
      'a = 1',
      '(b = 2 and c = 3)',
      'case when x and y then 1 end = 1',
      "d = ' and '",
    ]);
  });

  it('a shape finds a predicate missing, a predicate added and a SET column changed', () => {
    const ok =
      "UPDATE order_stage SET process_status = 'HELD', updated_at = SYSTIMESTAMP WHERE source_key = :source_key AND load_id = :load_id AND process_status IN ('READY', 'RETRY_WAIT')";
    expect(shapeProblems('hold_rows', ok)).toEqual([]);
    expect(shapeProblems('hold_rows', ok.replace(" AND process_status IN ('READY', 'RETRY_WAIT')", ''))).toEqual([
      `WHERE (AND): lacks "process_status in ('READY', 'RETRY_WAIT')"`,
    ]);
    expect(shapeProblems('hold_rows', `${ok} AND 1 = 1`)).toEqual(['WHERE (AND): has "1 = 1", not expected']);
    expect(shapeProblems('hold_rows', ok.replace("'HELD'", "'READY'"))).toEqual([
      `SET: lacks "process_status = 'HELD'"`,
      `SET: has "process_status = 'READY'", not expected`,
    ]);
  });

  it('a predicate the statement leaves out is not applied (the rows it would touch); one the model does not know fails the call', async () => {
    const model = new TableModel();
    model.addStage({ stage_id: 1, source_key: 'A', load_id: 1 });
    model.addStage({ stage_id: 2, source_key: 'B', load_id: 2 });
    const connection = await new RecordingDatabase(model.script()).getConnection();
    const run = async (sql: string, row: Record<string, unknown>) => (await connection.executeMany(sql, [row], many(row))).rowsAffected;
    const hold = "UPDATE order_stage SET process_status = 'HELD' WHERE source_key = :source_key AND load_id = :load_id";
    expect(await run(hold, { source_key: 'A', load_id: 2 })).toBe(0);
    expect(await run("UPDATE order_stage SET process_status = 'HELD' WHERE source_key = :source_key", { source_key: 'A' })).toBe(1);
    expect(await run("UPDATE order_stage SET process_status = 'HELD' WHERE load_id >= :load_id", { load_id: 1 })).toBe(2);
    await expect(run("UPDATE order_stage SET process_status = 'DONE' WHERE stage_id IN (:stage_id, 0)", { stage_id: 1 })).rejects.toThrow(
      'model: update order_stage: unknown predicate "stage_id in (:stage_id, 0)"',
    );
    await expect(
      run("UPDATE order_stage SET process_status = NVL(:status, 'DONE') WHERE stage_id = :stage_id", { status: 'ERROR', stage_id: 1 }),
    ).rejects.toThrow("model: a SET expression it does not know: nvl(:status, 'DONE')");
  });

  it('a key order_stage holds, inserted again, is a batch error ORA-00001 for that row alone; a rollback restores the tables', async () => {
    const model = new TableModel();
    model.addStage({ stage_id: 1, source_key: 'A' });
    const connection = await new RecordingDatabase(model.script()).getConnection();
    const batch = [
      { source_key: 'A', line_no: 2 },
      { source_key: 'B', line_no: 3 },
    ];
    await connection.executeMany(
      'INSERT INTO order_stage_batch (source_key, line_no) VALUES (:source_key, :line_no)',
      batch,
      many(batch[0]!, true),
    );
    // the new-key insert without its NOT EXISTS
    const insert =
      "INSERT INTO order_stage (source_key, customer_id, order_date, amount, currency, process_status, error_code, error_message, load_id, line_no) SELECT i.source_key, i.customer_id, i.order_date, i.amount, i.currency, 'READY', NULL, NULL, :load_id, i.line_no FROM order_stage_batch i WHERE i.source_key = :source_key";
    const keys = [
      { source_key: 'A', load_id: 2 },
      { source_key: 'B', load_id: 2 },
    ];
    const result = await connection.executeMany(insert, keys, many(keys[0]!, true));
    expect(result.rowsAffected).toBe(1);
    expect(result.batchErrors?.map((e) => [e.offset, e.message])).toEqual([
      [
        0,
        "ORA-00001: unique constraint (LOADER.UQ_ORDER_STAGE_SOURCE) violated on table LOADER.ORDER_STAGE columns (SOURCE_KEY)\nORA-03301: (ORA-00001 details) row with column values (SOURCE_KEY:'A') already exists",
      ],
    ]);
    expect(model.stage.map((r) => r.source_key)).toEqual(['A', 'B']);
    await connection.rollback();
    expect(model.stage.map((r) => r.source_key)).toEqual(['A']);
    expect(model.batch).toEqual([]);
  });
});
