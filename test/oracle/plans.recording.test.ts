/**
 * The plans the Oracle statements pin, read from the statements the engine sends
 * and the objects the migrations create: the ERROR rows' function-based index
 * (migrations/004_error_rows_index.sql) walked by retry's and the export's queries, and nested
 * loops from the staging batch's global temporary table (no statistics) into order_stage's
 * unique index. Static checks of the text: nothing runs on an Oracle Database.
 */
import { describe, expect, it } from 'vitest';
import { objectsCreatedBy, EXPRESSION } from '../../src/engine/oracle/schema-check.js';
import { oracleQuery, splitStatements } from '../../src/engine/oracle/sql-text.js';
import { listMigrations } from '../../src/sql-files.js';

const ERROR_KEY = "CASE WHEN process_status = 'ERROR' THEN stage_id END";

describe('Oracle plans (static)', () => {
  it('a migration creates ix_order_stage_error on order_stage, keyed by the ERROR rows’ stage_id only', () => {
    const statements = listMigrations('oracle').flatMap((m) => splitStatements(m.sql));
    const index = statements.find((s) => /^CREATE INDEX ix_order_stage_error\b/.test(s));
    expect(index).toBeDefined();
    expect(index!.replace(/\s+/g, ' ')).toContain(`ON order_stage ( ${ERROR_KEY} )`);
    expect(objectsCreatedBy(index!)).toEqual([
      { kind: 'INDEX', table: 'ORDER_STAGE', name: 'IX_ORDER_STAGE_ERROR', columns: [EXPRESSION] },
    ]);
  });

  it.each([
    ['find_error_rows', 'order_stage', ERROR_KEY],
    ['lock_error_rows', 'order_stage', ERROR_KEY],
    ['error_rows', 's', "CASE WHEN s.process_status = 'ERROR' THEN s.stage_id END"],
  ])('%s walks the ERROR index: hinted, filtered and ordered by its very expression', (name, alias, key) => {
    const sql = oracleQuery(name);
    expect(sql).toContain(`/*+ INDEX_ASC(${alias} ix_order_stage_error) */`);
    expect(sql).toContain(`WHERE ${key} > :after_stage_id`);
    expect(sql).toContain(`ORDER BY ${key}`);
    // no plain filter the index cannot answer
    expect(sql.replaceAll(key, '')).not.toMatch(/process_status = 'ERROR'/);
  });

  it.each([
    ['stage_batch_counts', /SELECT \/\*\+ LEADING\(i s\) USE_NL\(s\) INDEX\(s uq_order_stage_source\) \*\//],
    ['stage_batch_update', /^MERGE \/\*\+ USE_NL\(s\) INDEX\(s uq_order_stage_source\) \*\/ INTO order_stage s/],
    [
      'stage_batch_update',
      /USING \(SELECT \/\*\+ LEADING\(i cur\) USE_NL\(cur\) INDEX\(i pk_order_stage_batch\) INDEX\(cur uq_order_stage_source\) \*\//,
    ],
    ['stage_batch_new', /SELECT \/\*\+ INDEX\(i pk_order_stage_batch\) \*\//],
    ['stage_batch_new', /NOT EXISTS \(SELECT \/\*\+ INDEX\(s uq_order_stage_source\) \*\/ 1 FROM order_stage s/],
  ])('%s joins the batch table to order_stage by index nested loops, whatever the optimizer guesses (%s)', (name, pattern) => {
    expect(oracleQuery(name)).toMatch(pattern);
  });

  it('the per-key staging statements look the batch row up by its key (a bind), never scan the batch per key', () => {
    expect(oracleQuery('stage_batch_update')).toMatch(/WHERE i\.source_key = :source_key\) src/);
    expect(oracleQuery('stage_batch_new')).toMatch(/WHERE i\.source_key = :source_key/);
  });

  it('the hinted names are the constraint indexes the migrations create', () => {
    const names = listMigrations('oracle')
      .flatMap((m) => splitStatements(m.sql))
      .flatMap(objectsCreatedBy)
      .map((o) => o.name);
    for (const name of ['UQ_ORDER_STAGE_SOURCE', 'PK_ORDER_STAGE_BATCH', 'IX_ORDER_STAGE_ERROR']) expect(names).toContain(name);
  });
});
