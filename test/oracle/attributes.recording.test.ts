/**
 * Attributes on Oracle, against a RECORDING connection (nothing runs on an Oracle Database):
 * the attributes of a staging batch are bound to the batch insert as VARCHAR2 while every value
 * fits the database's VARCHAR2 limit, and as a CLOB for the rows whose value passes it (the call
 * split where the bind type changes, batch error offsets mapped back to their lines); the
 * statements that carry them use the CLOB only where Oracle takes one, and pass the PL/SQL
 * grammar check when the checker is built (test-statements.grammar.test.ts says where it comes from).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import oracledb from 'oracledb';
import { describe, expect, it } from 'vitest';
import { createOracleEngineWith, openOracleEngine } from '../../src/engine/oracle/index.js';
import type { OraBinds } from '../../src/engine/oracle/oracledb-types.js';
import { oracleQuery, splitStatements, stripCommentLines } from '../../src/engine/oracle/sql-text.js';
import type { StageInput } from '../../src/engine/types.js';
import { clobMisuse } from '../support/oracle-test-statements.js';
import { batchError, constants, RecordingDatabase } from './recording-connection.js';

const DB = oracledb as unknown as { DB_TYPE_VARCHAR: unknown; DB_TYPE_CLOB: unknown };
/** Every batch through the session's batch table (the direct insert, stage_batch_direct.sql, has a test of its own below). */
const BATCH_TABLE = { stageDirect: false };
const COUNTS = { rows: [{ UPDATED: '0', UNCHANGED: '0', UNCHANGED_ERROR: '0', REPEATED_IN_LOAD: '0' }] };

const row = (lineNo: number, attributes?: string): StageInput => ({
  sourceKey: `K${lineNo}`,
  customerId: '1',
  orderDate: '2026-01-01',
  amount: '10',
  currency: 'JPY',
  lineNo,
  ...(attributes === undefined ? {} : { attributes }),
});

/** A database that refuses, in the batch insert, the rows whose attributes hold "refuse". */
function database() {
  return new RecordingDatabase({
    execute: (sql) => (sql === oracleQuery('stage_batch_counts') ? COUNTS : { rows: [] }),
    executeMany: (sql, binds: OraBinds[]) => {
      if (sql !== oracleQuery('stage_batch_insert')) return { rowsAffected: binds.length, batchErrors: [] };
      const errors = binds.flatMap((b, offset) =>
        typeof b.attributes === 'string' && b.attributes.includes('refuse')
          ? [batchError(offset, 'ORA-02290: check constraint (LOADER.CK_STAGE_BATCH_ATTRIBUTES) violated')]
          : [],
      );
      return { rowsAffected: binds.length - errors.length, batchErrors: errors };
    },
  });
}

describe('Oracle staging of attributes (recording connection)', () => {
  it('binds them to the batch insert as VARCHAR2 of the database limit, NULL for a row without: one call', async () => {
    const db = database();
    const engine = createOracleEngineWith(db, constants, BATCH_TABLE);
    await engine.transaction((tx) => tx.stageBatch(3, [row(2, '{"Region":"EU"}'), row(3)]));
    const inserts = db.executeManyCalls().filter((c) => c.sql === oracleQuery('stage_batch_insert'));
    expect(inserts).toHaveLength(1);
    expect(inserts[0]?.binds.map((b) => b.attributes)).toEqual(['{"Region":"EU"}', null]);
    expect(inserts[0]?.options.bindDefs.attributes).toEqual({ type: DB.DB_TYPE_VARCHAR, maxSize: 4000 });
    // the other statements read them from order_stage_batch: no bind of their own
    for (const name of ['stage_batch_update', 'stage_batch_new'])
      expect(db.executeManyCalls().find((c) => c.sql === oracleQuery(name))?.options.bindDefs).not.toHaveProperty('attributes');
  });

  it('a value past 4000 bytes goes as a CLOB, in a call of its own; batch errors map back to their lines', async () => {
    const db = database();
    const engine = createOracleEngineWith(db, constants, BATCH_TABLE);
    const long = JSON.stringify({ Note: 'x'.repeat(5000) });
    const result = await engine.transaction((tx) =>
      tx.stageBatch(3, [row(2, '{"a":"1"}'), row(3, '{"a":"refuse"}'), row(4, long), row(5, '{"a":"refuse"}'), row(6)]),
    );
    const inserts = db.executeManyCalls().filter((c) => c.sql === oracleQuery('stage_batch_insert'));
    expect(inserts.map((c) => [c.binds.map((b) => b.source_key), c.options.bindDefs.attributes])).toEqual([
      [['K2', 'K3'], { type: DB.DB_TYPE_VARCHAR, maxSize: 4000 }],
      [['K4'], { type: DB.DB_TYPE_CLOB }],
      [['K5', 'K6'], { type: DB.DB_TYPE_VARCHAR, maxSize: 4000 }],
    ]);
    expect(result.refused.map((r) => [r.lineNo, r.code])).toEqual([
      [3, 'ORA-02290'],
      [5, 'ORA-02290'],
    ]);
  });

  it('the direct insert into order_stage binds them too: VARCHAR2 while they fit, one call', async () => {
    const rows = [row(2, '{"Region":"EU"}'), row(3)];
    const db = database();
    const engine = createOracleEngineWith(db, constants);
    await engine.transaction((tx) => tx.stageBatch(3, [...rows]));
    const direct = db.executeManyCalls().filter((c) => c.sql === oracleQuery('stage_batch_direct'));
    expect(direct).toHaveLength(1);
    expect(direct[0]?.binds.map((b) => b.attributes)).toEqual(['{"Region":"EU"}', null]);
    expect(direct[0]?.options.bindDefs.attributes).toEqual({ type: DB.DB_TYPE_VARCHAR, maxSize: 4000 });
  });

  it('one value past the limit makes a CLOB of that row alone in the direct insert, not of the whole batch (a temporary LOB per CLOB value)', async () => {
    // thin mode creates and writes a temporary LOB for each non-empty value of a CLOB bind
    // (lib/thin/connection.js, the CLOB binds' loop): two round trips per value
    const rows = Array.from({ length: 1000 }, (_, i) => row(i + 2, `{"n":"${i}"}`));
    rows[500] = row(502, JSON.stringify({ Note: 'x'.repeat(5000) }));
    const db = database();
    const engine = createOracleEngineWith(db, constants);
    const result = await engine.transaction((tx) => tx.stageBatch(3, rows));
    const direct = db.executeManyCalls().filter((c) => c.sql === oracleQuery('stage_batch_direct'));
    const clobValues = direct
      .filter((c) => c.options.bindDefs.attributes?.type === DB.DB_TYPE_CLOB)
      .flatMap((c) => c.binds.filter((b) => typeof b.attributes === 'string' && b.attributes !== ''));
    expect(clobValues).toHaveLength(1);
    expect(direct.map((c) => [c.binds.length, c.options.bindDefs.attributes?.type])).toEqual([
      [500, DB.DB_TYPE_VARCHAR],
      [1, DB.DB_TYPE_CLOB],
      [499, DB.DB_TYPE_VARCHAR],
    ]);
    // every line in line order, each once (stage_id follows the file)
    expect(direct.flatMap((c) => c.binds.map((b) => b.line_no))).toEqual(rows.map((r) => r.lineNo));
    expect(result.inserted).toBe(1000);
  });

  it('a batch error of a later run of the direct insert is mapped back to its own line', async () => {
    const db = new RecordingDatabase({
      execute: (sql) => (sql === oracleQuery('stage_batch_counts') ? COUNTS : { rows: [] }),
      executeMany: (sql, binds: OraBinds[]) => {
        if (sql !== oracleQuery('stage_batch_direct')) return { rowsAffected: binds.length, batchErrors: [] };
        const errors = binds.flatMap((b, offset) =>
          b.source_key === 'K5' ? [batchError(offset, 'ORA-00001: unique constraint (LOADER.UQ_ORDER_STAGE_SOURCE) violated')] : [],
        );
        return { rowsAffected: binds.length - errors.length, batchErrors: errors };
      },
    });
    const engine = createOracleEngineWith(db, constants);
    const long = JSON.stringify({ Note: 'x'.repeat(5000) });
    const result = await engine.transaction((tx) => tx.stageBatch(3, [row(2, '{"a":"1"}'), row(3, long), row(4), row(5, '{"a":"2"}')]));
    expect(result.fellBack).toBe(1);
    const batchTable = db.executeManyCalls().filter((c) => c.sql === oracleQuery('stage_batch_insert'));
    expect(batchTable.flatMap((c) => c.binds.map((b) => b.source_key))).toEqual(['K5']);
  });

  it('under MAX_STRING_SIZE = EXTENDED (the probe answers 32767) a value up to 32767 bytes stays VARCHAR2', async () => {
    const db = new RecordingDatabase({
      execute: (sql) =>
        sql === oracleQuery('max_string_size')
          ? { rows: [{ MAX_BYTES: '32767' }] }
          : sql === oracleQuery('stage_batch_counts')
            ? COUNTS
            : { rows: [] },
    });
    const engine = await openOracleEngine(db, constants, { charsetCheck: false, ...BATCH_TABLE });
    await engine.transaction((tx) => tx.stageBatch(3, [row(2, JSON.stringify({ Note: 'x'.repeat(5000) }))]));
    await engine.close();
    const inserts = db.executeManyCalls().filter((c) => c.sql === oracleQuery('stage_batch_insert'));
    expect(inserts.map((c) => c.options.bindDefs.attributes)).toEqual([{ type: DB.DB_TYPE_VARCHAR, maxSize: 32767 }]);
  });
});

const STATEMENTS = [
  'stage_batch_direct',
  'stage_batch_insert',
  'stage_batch_update',
  'stage_batch_counts',
  'stage_batch_new',
  'merge_orders',
  'error_rows',
];
const MIGRATION = 'sql/oracle/migrations/008_attributes.sql';

function statements(): Array<{ where: string; text: string }> {
  return [
    ...STATEMENTS.map((name) => ({ where: `queries/${name}.sql`, text: oracleQuery(name) })),
    ...splitStatements(stripCommentLines(readFileSync(MIGRATION, 'utf8'))).map((text, i) => ({ where: `${MIGRATION} #${i + 1}`, text })),
  ];
}

describe('the statements that carry attributes', () => {
  it('use the CLOB only where Oracle takes one (no =, DECODE, ORDER BY, GROUP BY, DISTINCT on it)', () => {
    expect(clobMisuse('SELECT 1 FROM orders o WHERE o.attributes = :a')).toEqual(['attributes in a comparison']);
    for (const s of statements()) {
      // a MERGE's SET of the CLOB from its source is an assignment, which clobMisuse cannot tell
      // from a comparison: left out here (statements.recording.test.ts holds each SET list)
      expect(clobMisuse(s.text.replace(/\b\w+\.attributes\s*=\s*src\.attributes\b/g, '')), s.where).toEqual([]);
      expect(s.text, s.where).not.toMatch(/DECODE\([a-z]+\.attributes/i);
    }
    expect(statements().filter((s) => s.where.startsWith(MIGRATION))).toHaveLength(6);
  });

  const CHECK = process.env.ORDER_LOADER_PLSQL_CHECK ?? '/work/shared/tools/plsql/check.sh';
  const BUILT = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'order-loader-plsql', '.built');
  const missing = !existsSync(CHECK) || !existsSync(BUILT);
  it.skipIf(missing)(`pass the PL/SQL grammar check${missing ? ' (skipped: the checker is not built)' : ''}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'ora-attributes-sql-'));
    try {
      const files = statements().map((s, i) => {
        const file = join(dir, `s${i}.sql`);
        writeFileSync(file, s.text);
        return file;
      });
      const result = spawnSync(CHECK, files, { encoding: 'utf8' });
      expect(`${result.stdout}${result.stderr}`).not.toContain('FAIL');
      expect(result.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
