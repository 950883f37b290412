/**
 * The table model's (table-model.ts) reading of the later-load guard's statements: the record of
 * an unchanged line in order_stage_unchanged (stage_batch_unchanged.sql) and the guard's question
 * (later_load_keys.sql). As the rest of the model, each WHERE is read as its top-level conjuncts,
 * each one the model must know (a predicate left out is not applied; one it does not know throws).
 */
import { splitTop } from './statement-shapes.js';
import type { BatchRow, StageRow, UnchangedRow } from './table-model.js';

/** What these statements read and write of the model. */
export interface UnchangedTables {
  batch: BatchRow[];
  unchanged: UnchangedRow[];
  stageRow(key: string): StageRow | undefined;
}

type Binds = Record<string, unknown>;

/** DECODE(a, b, 0, 1) = 0: equal, NULL equal to NULL. */
const same = (a: unknown, b: unknown) => a === b || ((a ?? null) === null && (b ?? null) === null);

/** Each conjunct of `where` as the predicate `known` names for it. */
function read<P>(where: string, known: Record<string, P>, what: string): P[] {
  return splitTop(where, ' and ').map((c) => {
    const p = known[c];
    if (p === undefined) throw new Error(`model: ${what}: unknown predicate "${c}"`);
    return p;
  });
}

const UNCHANGED =
  /^merge into order_stage_unchanged u using \(select i\.source_key from order_stage_batch i join order_stage s on s\.source_key = i\.source_key where (.*)\) src on \(u\.source_key = src\.source_key\) when matched then update set u\.load_id = :load_id( where .*?)? when not matched then insert \(source_key, load_id\) values \(src\.source_key, :load_id\)$/;

/**
 * stage_batch_unchanged.sql: its source rows (the batch row and the stage row of one key) by the
 * conjuncts of its USING query's WHERE; a key matched is updated by its WHEN MATCHED ... WHERE,
 * else inserted. Returns the rows merged.
 */
export function recordUnchanged(model: UnchangedTables, text: string, b: Binds): number {
  const m = UNCHANGED.exec(text);
  if (m?.[1] === undefined) throw new Error('model: stage batch unchanged of an unknown form');
  const loadId = Number(b.load_id);
  const pair: Record<string, (i: BatchRow, s: StageRow) => boolean> = {
    'i.parse_code is null': (i) => i.parse_code === null,
    'decode(s.customer_id, i.customer_id, 0, 1) = 0': (i, s) => same(s.customer_id, i.customer_id),
    'decode(s.order_date, i.order_date, 0, 1) = 0': (i, s) => same(s.order_date, i.order_date),
    'decode(s.amount, i.amount, 0, 1) = 0': (i, s) => same(s.amount, i.amount),
    'decode(s.currency, i.currency, 0, 1) = 0': (i, s) => same(s.currency, i.currency),
    'case when s.attributes is null and i.attributes is null then 0 when s.attributes is null or i.attributes is null then 1 when dbms_lob.compare(s.attributes, i.attributes) = 0 then 0 else 1 end = 0':
      (i, s) => same(s.attributes, i.attributes),
    "not (s.process_status = 'ERROR' and nvl(s.error_code, '-') like 'PARSE%')": (_i, s) =>
      !(s.process_status === 'ERROR' && (s.error_code ?? '-').startsWith('PARSE')),
    'decode(s.load_id, :load_id, 0, 1) = 1': (_i, s) => s.load_id !== loadId,
  };
  const where = read(m[1], pair, 'stage batch unchanged');
  const matched = read(
    m[2]?.replace(/^ where /, '') ?? '',
    { 'u.load_id < :load_id': (u: UnchangedRow) => u.load_id < loadId },
    'stage batch unchanged',
  );
  let n = 0;
  for (const i of model.batch) {
    const s = model.stageRow(i.source_key);
    if (s === undefined || !where.every((p) => p(i, s))) continue;
    const record = model.unchanged.find((u) => u.source_key === i.source_key);
    if (record === undefined) model.unchanged.push({ source_key: i.source_key, load_id: loadId });
    else if (matched.every((p) => p(record))) record.load_id = loadId;
    else continue;
    n++;
  }
  return n;
}

const LATER =
  /^begin select \(select s\.load_id from order_stage s where (.*?)\), \(select u\.load_id from order_stage_unchanged u where (.*?)\) into :stage_load, :unchanged_load from dual; end;$/;

/**
 * later_load_keys.sql, one iteration per key: each OUT bind is its subquery's load_id, read by the
 * conjuncts of the subquery's WHERE, NULL without a row.
 */
export function laterLoads(
  model: UnchangedTables & { stage: StageRow[] },
  text: string,
  rows: Binds[],
): { stage_load: number | null; unchanged_load: number | null }[] {
  const m = LATER.exec(text);
  if (m?.[1] === undefined || m[2] === undefined) throw new Error('model: later load keys of an unknown form');
  const known = (alias: string): Record<string, (r: { source_key: string; load_id: number | null }, b: Binds) => boolean> => ({
    [`${alias}.source_key = :source_key`]: (r, b) => r.source_key === b.source_key,
    [`${alias}.load_id > :load_id`]: (r, b) => r.load_id !== null && r.load_id > Number(b.load_id),
  });
  const stageWhere = read(m[1], known('s'), 'later load keys (order_stage)');
  const unchangedWhere = read(m[2], known('u'), 'later load keys (order_stage_unchanged)');
  return rows.map((b) => ({
    stage_load: model.stage.find((r) => stageWhere.every((p) => p(r, b)))?.load_id ?? null,
    unchanged_load: model.unchanged.find((r) => unchangedWhere.every((p) => p(r, b)))?.load_id ?? null,
  }));
}
