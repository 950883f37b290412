/**
 * INITRANS >= 3 on every table a staging transaction writes (migration 003, from when staging was
 * SERIALIZABLE: Oracle's documented requirement against spurious ORA-08177; staging is READ
 * COMMITTED since, stage_batch_lock.sql, and the extra transaction slots stay harmless), against a
 * RECORDING database: the tables are read out of what a staging transaction sends, and the
 * INITRANS out of what migrate sends. Staging sends no SET TRANSACTION any more.
 */
import { describe, expect, it } from 'vitest';
import { createOracleEngineWith } from '../../src/engine/oracle/index.js';
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import type { StageInput } from '../../src/engine/types.js';
import { catalogRows, constants, everyObject, RecordingDatabase } from './recording-connection.js';

const WRITE = /^\s*(?:INSERT\s+INTO|MERGE\s+INTO|UPDATE|DELETE\s+FROM)\s+([A-Za-z][A-Za-z0-9_$#]*)/i;

function stageInput(lineNo: number): StageInput {
  return { lineNo, sourceKey: `K${lineNo}`, customerId: '1', orderDate: '2024-04-01', amount: '1.00', currency: 'JPY' };
}

describe('Oracle INITRANS of the tables staging writes (recording database)', () => {
  it('every permanent table the staging transaction writes gets INITRANS >= 3 from migrate', async () => {
    // a staging transaction as src/pipeline/stage.ts runs it: the batch, its rejects, its checkpoint
    const staging = new RecordingDatabase({
      execute: () => ({ rows: [{ UPDATED: 0, UNCHANGED: 0, UNCHANGED_ERROR: 0, REPEATED_IN_LOAD: 0 }] }),
    });
    const engine = createOracleEngineWith(staging, constants);
    await engine.transaction(async (tx) => {
      await tx.stageBatch(1, [stageInput(2), stageInput(3)]);
      await tx.logErrors([
        {
          stageId: null,
          sourceKey: 'K4',
          loadId: 1,
          lineNo: 4,
          batchId: null,
          attemptNo: null,
          phase: 'PARSE',
          code: 'X',
          message: 'bad',
          rawRecord: 'K4',
        },
      ]);
      await tx.addRunEvent(1, { event: 'staged_checkpoint', detail: { line: 4 } });
    });
    const sent = staging.calls.flatMap((c) => (c.kind === 'execute' || c.kind === 'executeMany' ? [c.sql] : []));
    expect(sent.some((sql) => /^\s*SET\s+TRANSACTION\b/i.test(sql))).toBe(false);
    const temporary = new Set(
      everyObject()
        .filter((o) => o.kind === 'TABLE' && o.temporary === true)
        .map((o) => o.name),
    );
    const written = [...new Set(sent.flatMap((sql) => WRITE.exec(sql)?.[1]?.toUpperCase() ?? []))].filter((t) => !temporary.has(t)).sort();
    expect(written).toEqual(['LOAD_RUN_EVENT', 'ORDER_BULK_ERROR', 'ORDER_STAGE']);

    // what migrate sends to a new database
    const db = new RecordingDatabase({
      execute: (sql, binds) => (sql === oracleQuery('schema_objects') ? { rows: catalogRows(everyObject(), binds) } : { rows: [] }),
    });
    await createOracleEngineWith(db, constants).migrate();
    const ddl = db.calls.flatMap((c) => (c.kind === 'execute' ? [c.sql.replace(/\s+/g, ' ')] : []));
    for (const table of written) {
      const initrans = ddl.flatMap((sql) => {
        const m = new RegExp(String.raw`^(?:ALTER TABLE|CREATE TABLE) ${table}\b.*\bINITRANS (\d+)`, 'i').exec(sql);
        return m?.[1] === undefined ? [] : [Number(m[1])];
      });
      expect(initrans.at(-1), `INITRANS of ${table}`).toBeGreaterThanOrEqual(3);
    }
  });
});
