/**
 * Oracle: no index of order_stage that a status change must write beyond what the
 * claim needs. The indexes are read out of sql/oracle/migrations (each CREATE INDEX on
 * order_stage and its key, a later DROP INDEX taking it away, the PRIMARY KEY and UNIQUE
 * constraints of 001), and for each status change the loader makes (the statement's SET list
 * read from sql/oracle/queries) the test works out which index keys change: a key whose columns
 * the statement does not set is never written (Oracle updates a row in place and maintains the
 * indexes whose key columns it changes); a function-based key on process_status is evaluated for
 * the row before and after. Static: no Oracle server says here which index Oracle writes.
 */
import { describe, expect, it } from 'vitest';
import { oracleQuery, splitStatements } from '../../src/engine/oracle/sql-text.js';
import { listMigrations } from '../../src/sql-files.js';
import { normalizeSql, setList, splitTop } from './statement-shapes.js';

interface StageIndex {
  name: string;
  /** Normalized key expressions (statement-shapes.ts normalizeSql). */
  keys: string[];
}

/** The indexes of order_stage after every migration, in the order they were made. */
function stageIndexes(): StageIndex[] {
  const indexes = new Map<string, string[]>();
  for (const migration of listMigrations('oracle')) {
    for (const statement of splitStatements(migration.sql).map(normalizeSql)) {
      const create = /^create (?:unique )?index ([a-z0-9_$#]+) on order_stage \((.*)\)$/.exec(statement);
      if (create?.[1] !== undefined && create[2] !== undefined) indexes.set(create[1], splitTop(create[2], ','));
      const drop = /^drop index ([a-z0-9_$#]+)$/.exec(statement);
      if (drop?.[1] !== undefined) indexes.delete(drop[1]);
      if (statement.startsWith('create table order_stage (')) {
        for (const m of statement.matchAll(/constraint ([a-z0-9_]+) (?:primary key|unique) \(([^)]*)\)/g))
          if (m[1] !== undefined && m[2] !== undefined) indexes.set(m[1], splitTop(m[2], ','));
      }
    }
  }
  return [...indexes].map(([name, keys]) => ({ name, keys }));
}

type StageRow = Record<string, string | number | null>;

/** A key expression's value for a row: a column, or CASE WHEN process_status = / IN (…) THEN column END. */
function keyValue(key: string, row: StageRow): string | number | null {
  if (/^[a-z_]+$/.test(key)) return row[key] ?? null;
  const m = /^case when process_status (?:= '([A-Z_]+)'|in \(([^)]*)\)) then ([a-z_]+) end$/.exec(key);
  if (m === null) throw new Error(`an index key this test cannot evaluate: ${key}`);
  const statuses = m[1] !== undefined ? [m[1]] : (m[2] ?? '').split(',').map((s) => s.trim().replace(/'/g, ''));
  return statuses.includes(String(row.process_status)) ? (row[m[3] ?? ''] ?? null) : null;
}

/** The columns a key expression reads. */
function keyColumns(key: string): string[] {
  return [...key.replace(/'[^']*'/g, '').matchAll(/\b[a-z_]+\b/g)]
    .map((m) => m[0])
    .filter((w) => !['case', 'when', 'then', 'end', 'in'].includes(w));
}

/**
 * The indexes an UPDATE of order_stage (queries/<name>.sql) writes when it takes a row from status
 * `from` to `to`: those with a key column in its SET list whose key value changes (a column other
 * than process_status in the SET list counts as changed).
 */
function written(name: string, from: string, to: string): string[] {
  const set = setList(normalizeSql(oracleQuery(name))).map((a) => a.split(' = ')[0]?.replace(/^s\./, '') ?? '');
  expect(set).toContain('process_status');
  const before: StageRow = { stage_id: 7, source_key: 'K', load_id: 3, process_status: from };
  const after: StageRow = { ...before, process_status: to };
  return stageIndexes()
    .filter(({ keys }) =>
      keys.some((key) => {
        const columns = keyColumns(key).filter((c) => set.includes(c));
        if (columns.length === 0) return false;
        if (columns.some((c) => c !== 'process_status')) return true;
        return keyValue(key, before) !== keyValue(key, after);
      }),
    )
    .map((i) => i.name);
}

describe('Oracle: the indexes of order_stage a status change writes (read from the migrations)', () => {
  it('order_stage has these indexes, the status only inside function-based keys that hold few rows', () => {
    expect(stageIndexes()).toEqual([
      { name: 'pk_order_stage', keys: ['stage_id'] },
      { name: 'uq_order_stage_source', keys: ['source_key'] },
      { name: 'ix_order_stage_claimable', keys: ["case when process_status in ('READY', 'RETRY_WAIT') then stage_id end"] },
      { name: 'ix_order_stage_error', keys: ["case when process_status = 'ERROR' then stage_id end"] },
      // 006: on load_id alone (it was (load_id, process_status), written by every status change)
      { name: 'ix_order_stage_load', keys: ['load_id'] },
      { name: 'ix_order_stage_held', keys: ["case when process_status = 'HELD' then load_id end"] },
    ]);
  });

  it('a processed row going DONE (finalize_done.sql, the hot statement) writes the claim index only', () => {
    expect(written('finalize_done', 'READY', 'DONE')).toEqual(['ix_order_stage_claimable']);
    expect(written('finalize_done', 'RETRY_WAIT', 'DONE')).toEqual(['ix_order_stage_claimable']);
  });

  it('a failed row: ERROR enters the ERROR index (retry, the errors export), RETRY_WAIT stays claimable and writes none', () => {
    expect(written('finalize_failed', 'READY', 'ERROR')).toEqual(['ix_order_stage_claimable', 'ix_order_stage_error']);
    expect(written('finalize_failed', 'READY', 'RETRY_WAIT')).toEqual([]);
  });

  it('the hold rule: HELD leaves the claim index for the HELD index, and back when released', () => {
    expect(written('hold_rows', 'READY', 'HELD')).toEqual(['ix_order_stage_claimable', 'ix_order_stage_held']);
    expect(written('release_held', 'HELD', 'READY')).toEqual(['ix_order_stage_claimable', 'ix_order_stage_held']);
  });

  it('an index with the status in its key would be written by every DONE (the check can fail)', () => {
    const withStatus = (key: string) =>
      keyColumns(key).includes('process_status') &&
      keyValue(key, { process_status: 'READY' }) !== keyValue(key, { process_status: 'DONE' });
    expect(withStatus('process_status')).toBe(true);
    expect(withStatus("case when process_status = 'HELD' then load_id end")).toBe(false);
  });
});
