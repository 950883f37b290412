/**
 * A small in-memory model of order_stage, order_stage_batch, orders and order_bulk_error for the
 * recording connection: a Script (recording-connection.ts) that answers the
 * statements deciding which rows are staged, claimed, merged and finalized with rowsAffected,
 * batch errors and fetched rows computed from the model's tables, not echoed back.
 *
 * It is no SQL engine. Each statement is recognised by how its normalized text begins
 * (statement-shapes.ts normalizeSql), and its WHERE is read as a list of top-level conjuncts
 * (or, for the MERGEs' WHEN MATCHED, disjuncts), each of which must be one of the predicates
 * the model knows (PREDICATES below, written here, not read from sql/oracle). A predicate the
 * statement leaves out is not applied, so the statement updates, claims or inserts the rows it
 * would on a real database; a predicate the model does not know, a SET expression it cannot
 * evaluate, or a statement on these tables it does not recognise throws ("model: ..."), which
 * fails the test. Constraints that decide outcomes are kept: order_stage's unique source_key
 * (ORA-00001 as a batch error, worded as 23ai words it: the first line, then ORA-03301 with the
 * key's value), NUMBER(18, 2) amounts in the batch insert and the direct insert (ORA-01438), its
 * status CHECK, CHECK constraints a test adds (`siteChecks`, ORA-02290, on every write of
 * order_stage), and a MERGE's stable set of source rows (ORA-30926). In an INSERT they are
 * checked in Oracle's order: the values first (a conversion error), then the CHECKs, then the
 * unique index, so a line that breaks a CHECK is refused with ORA-02290 even when its key is
 * staged already.
 *
 * The direct insert (stage_batch_direct.sql, INSERT ... VALUES) is evaluated from its own column
 * and VALUES lists: each expression must be one the model knows (a bind, the explicit TO_NUMBER
 * / TO_DATE conversions with their CAST, `CASE WHEN :b IS NULL THEN 'x' ELSE 'y' END`), and a
 * column the statement leaves out gets its default. An array DML with batchErrors goes on after
 * a refused iteration, each refused iteration undone alone (statement-level rollback), and its
 * rowsAffected counts the rows of the iterations that went through, as thin mode reports it
 * (lib/thin/protocol/messages/base.js: the error array; withData.js: the call does not throw).
 *
 * Time: SYSTIMESTAMP is `now` (ms), which moves 1 ms per statement so that each write has its
 * own updated_at. One transaction at a time (one connection): commit keeps, rollback restores
 * the tables as the transaction found them, ROLLBACK TO SAVEPOINT as the savepoint found them;
 * commit empties order_stage_batch (ON COMMIT DELETE ROWS). The identity of order_stage is a
 * sequence: a value taken is never given back, by a refused iteration or a rollback (stage_id
 * then has gaps, as on Oracle). Row locks are not modelled.
 */
import type { OraBatchError, OraBinds, OraExecuteManyResult, OraExecuteResult } from '../../src/engine/oracle/oracledb-types.js';
import { batchError, type Script } from './recording-connection.js';
import { clause, CONTROL_NOT_HELD, normalizeSql, outerWhere, setList, splitTop } from './statement-shapes.js';
import { laterLoads, recordUnchanged } from './unchanged-model.js';
import { isPlaceRead, isPlaceRecord, readPlaces, recordPlace, type PlaceRow } from './place-model.js';

export interface StageRow {
  stage_id: number;
  source_key: string;
  customer_id: string | null;
  order_date: string | null;
  amount: number | null;
  currency: string | null;
  process_status: string;
  attempt_count: number;
  transient_failures: number;
  next_attempt_at: number | null;
  load_id: number | null;
  line_no: number | null;
  error_code: string | null;
  error_message: string | null;
  batch_id: string | null;
  processed_at: number | null;
  updated_at: number;
  /** JSON text (a CLOB); absent: NULL. */
  attributes?: string | null;
}

export interface BatchRow {
  source_key: string;
  customer_id: string | null;
  order_date: string | null;
  amount: number | null;
  currency: string | null;
  line_no: number | null;
  parse_code: string | null;
  parse_message: string | null;
  attributes?: string | null;
}

export interface OrderRow {
  source_key: string;
  customer_id: string | null;
  order_date: string | null;
  amount: number | null;
  currency: string | null;
  updated_at: number;
  attributes?: string | null;
}

/** A row of order_stage_unchanged (migrations/015_unchanged_loads.sql). */
export interface UnchangedRow {
  source_key: string;
  load_id: number;
}

interface Tables {
  stage: StageRow[];
  batch: BatchRow[];
  orders: OrderRow[];
  errorLog: Record<string, unknown>[];
  unchanged: UnchangedRow[];
  places: PlaceRow[];
  nextStageId: number;
}

/** What the model answered to one statement (for tests that look at the counts themselves). */
export interface Answer {
  statement: string;
  rowsAffected: number;
  batchErrors: number[];
}

type Binds = Record<string, unknown>;
type Predicate<R> = (row: R, binds: Binds, model: TableModel) => boolean;

/** `execute` binds are { val, type }; executeMany binds are plain values. */
function plain(binds: OraBinds): Binds {
  return Object.fromEntries(Object.entries(binds).map(([k, v]) => [k, v !== null && typeof v === 'object' && 'val' in v ? v.val : v]));
}

/** A bind value as text (the binds are text and numbers). */
function textOf(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return v.toString();
  throw new Error('model: a bind value that is neither text nor a number');
}

function str(v: unknown): string | null {
  return v === null || v === undefined ? null : textOf(v);
}

/** DECODE(a, b, 0, 1) = 0: equal, NULL equal to NULL. */
function same(a: unknown, b: unknown): boolean {
  return a === b || (a === null && b === null);
}

/** ORA-00001 on order_stage's source_key as 23ai words it (19c: the first line, without "on table ..."). */
function ora00001(key: string): string {
  return [
    'ORA-00001: unique constraint (LOADER.UQ_ORDER_STAGE_SOURCE) violated on table LOADER.ORDER_STAGE columns (SOURCE_KEY)',
    `ORA-03301: (ORA-00001 details) row with column values (SOURCE_KEY:'${key}') already exists`,
  ].join('\n');
}
const STATUSES = ['READY', 'PROCESSING', 'DONE', 'ERROR', 'RETRY_WAIT', 'HELD'];
const ORA_01438 = 'ORA-01438: value larger than specified precision allowed for this column';

/** The predicates the model knows, by their normalized text (see the file comment). */
const STAGE_PREDICATES: Record<string, Predicate<StageRow>> = {
  'stage_id = :stage_id': (r, b) => r.stage_id === Number(b.stage_id),
  'source_key = :source_key': (r, b) => r.source_key === b.source_key,
  'load_id = :load_id': (r, b) => r.load_id === Number(b.load_id),
  "process_status in ('READY', 'RETRY_WAIT')": (r) => r.process_status === 'READY' || r.process_status === 'RETRY_WAIT',
  "case when process_status = 'HELD' then load_id end = :load_id": (r, b) => r.process_status === 'HELD' && r.load_id === Number(b.load_id),
  "case when process_status in ('READY', 'RETRY_WAIT') then stage_id end > :after_stage_id": (r, b) =>
    (r.process_status === 'READY' || r.process_status === 'RETRY_WAIT') && r.stage_id > Number(b.after_stage_id),
  "(process_status = 'READY' or next_attempt_at <= systimestamp)": (r, _b, m) =>
    r.process_status === 'READY' || (r.next_attempt_at !== null && r.next_attempt_at <= m.now),
  // the model keeps no run journal: no load of it is held for its control totals (release_held.sql)
  [CONTROL_NOT_HELD]: () => true,
  "(:load_ids is null or instr(:load_ids, ',' || to_char(load_id) || ',') > 0)": (r, b) =>
    b.load_ids === null || b.load_ids === undefined || textOf(b.load_ids).includes(`,${String(r.load_id)},`),
};

/** Conjuncts of a WHERE (none: every row), each a known predicate. */
function conjuncts<R>(where: string | undefined, known: Record<string, Predicate<R>>, what: string): Predicate<R>[] {
  if (where === undefined) return [];
  return splitTop(where, ' and ').map((c) => {
    const p = known[c] ?? comparison<R>(c);
    if (p === undefined) throw new Error(`model: ${what}: unknown predicate "${c}"`);
    return p;
  });
}

/** `column <op> :bind` on a number column (stage_id, load_id, attempt_count ...). */
function comparison<R>(text: string): Predicate<R> | undefined {
  const m = /^(?:[a-z]+\.)?([a-z_]+) (=|<>|<=|>=|<|>) :([a-z_]+)$/.exec(text);
  if (m === null) return undefined;
  const [, column = '', op, bind = ''] = m;
  return (row, binds) => {
    const a = (row as Record<string, unknown>)[column];
    const b = Number(binds[bind]);
    if (typeof a !== 'number') return false; // NULL, or not a number column: no row
    return op === '=' ? a === b : op === '<>' ? a !== b : op === '<=' ? a <= b : op === '>=' ? a >= b : op === '<' ? a < b : a > b;
  };
}

export class TableModel implements Tables {
  stage: StageRow[] = [];
  batch: BatchRow[] = [];
  orders: OrderRow[] = [];
  errorLog: Record<string, unknown>[] = [];
  unchanged: UnchangedRow[] = [];
  places: PlaceRow[] = [];
  nextStageId = 1;
  /** SYSTIMESTAMP, ms since the epoch; +1 per statement. */
  now = Date.parse('2024-05-01T10:00:00.000Z');
  readonly answers: Answer[] = [];
  /**
   * CHECK constraints a test adds to order_stage: each returns the ORA-02290 message for a row
   * it refuses, or null. Checked on every insert and update of order_stage.
   */
  readonly siteChecks: ((row: StageRow) => string | null)[] = [];
  private txStart: Tables | undefined;
  private savepoint: Tables | undefined;
  /** The claim answers its `plain` column (claim.sql); false: as before it had one (every row to the client). */
  plainColumn = true;
  /** Keys whose stage rows the open transaction locked (stage_batch_lock.sql). */
  private readonly locked = new Set<string>();
  /** When another session last committed a change to a key's stage row (otherSessionCommits). */
  private readonly committedAt = new Map<string, number>();
  /** The open transaction is SERIALIZABLE, begun at this time. */
  private serializableSince: number | undefined;
  /** Called before each statement with its normalized text: a test's other session acts here. */
  beforeStatement: ((text: string) => void) | undefined;

  /** A stage row as a test sets it up (stage_id given or the next one). */
  addStage(row: Partial<StageRow> & { source_key: string }): StageRow {
    const full: StageRow = {
      stage_id: row.stage_id ?? this.nextStageId,
      customer_id: '42',
      order_date: '2024-04-01',
      amount: 1200,
      currency: 'JPY',
      process_status: 'READY',
      attempt_count: 0,
      transient_failures: 0,
      next_attempt_at: null,
      load_id: 1,
      line_no: 2,
      error_code: null,
      error_message: null,
      batch_id: null,
      processed_at: null,
      updated_at: this.now,
      ...row,
    };
    this.nextStageId = Math.max(this.nextStageId, full.stage_id + 1);
    this.stage.push(full);
    return full;
  }

  stageRow(key: string): StageRow | undefined {
    return this.stage.find((r) => r.source_key === key);
  }

  order(key: string): OrderRow | undefined {
    return this.orders.find((r) => r.source_key === key);
  }

  private copy(): Tables {
    return structuredClone({
      stage: this.stage,
      batch: this.batch,
      orders: this.orders,
      errorLog: this.errorLog,
      unchanged: this.unchanged,
      places: this.places,
      nextStageId: this.nextStageId,
    });
  }

  /** The tables as `t` holds them; the identity's sequence keeps the values it gave. */
  private restore(t: Tables): void {
    const sequence = this.nextStageId;
    Object.assign(this, structuredClone(t));
    this.nextStageId = Math.max(this.nextStageId, sequence);
  }

  /** order_stage's CHECKs on a row written: its status list, then the site's. */
  private checkStage(row: StageRow): void {
    if (!STATUSES.includes(row.process_status)) throw new RowError('ORA-02290: check constraint (LOADER.CK_ORDER_STAGE_STATUS) violated');
    for (const check of this.siteChecks) {
      const refused = check(row);
      if (refused !== null) throw new RowError(refused);
    }
  }

  private begin(): void {
    this.txStart ??= this.copy();
    this.now += 1;
  }

  /** The Script for a RecordingDatabase. */
  script(): Script {
    return {
      execute: (sql, binds) => this.execute(sql, plain(binds)),
      executeMany: (sql, rows, options) => this.executeMany(sql, rows.map(plain), options.batchErrors === true),
      resultSetRows: (sql, binds) => this.query(sql, plain(binds)),
      commit: () => {
        this.txStart = undefined;
        this.savepoint = undefined;
        this.batch = [];
        this.endTransaction();
      },
      rollback: () => {
        if (this.txStart !== undefined) this.restore(this.txStart);
        this.txStart = undefined;
        this.savepoint = undefined;
        this.batch = [];
        this.endTransaction();
      },
    };
  }

  private endTransaction(): void {
    this.locked.clear();
    this.serializableSince = undefined;
  }

  private record(statement: string, rowsAffected: number, errors: OraBatchError[] = []): void {
    this.answers.push({ statement, rowsAffected, batchErrors: errors.map((e) => e.offset) });
  }

  private execute(sql: string, binds: Binds): OraExecuteResult {
    const text = normalizeSql(sql);
    this.beforeStatement?.(text);
    if (text === 'set transaction isolation level serializable') {
      if (this.txStart !== undefined) throw new Error('ORA-01453: SET TRANSACTION must be first statement of transaction');
      this.begin();
      this.serializableSince = this.now;
      return {};
    }
    if (text === 'delete from order_stage_batch') {
      this.begin();
      const n = this.batch.length;
      this.batch = [];
      return { rowsAffected: n };
    }
    if (text.startsWith('savepoint ')) {
      this.begin();
      this.savepoint = this.copy();
      return {};
    }
    if (text.startsWith('rollback to savepoint ')) {
      if (this.savepoint === undefined) throw new Error('model: ROLLBACK TO SAVEPOINT without a savepoint');
      this.restore(this.savepoint);
      return {};
    }
    if (text.startsWith('select count(case when is_new = 0')) return { rows: [this.counts(Number(binds.load_id))] };
    if (text.startsWith('merge into order_stage_unchanged u ')) {
      this.begin();
      const n = recordUnchanged(this, text, binds);
      this.record('stage batch unchanged', n);
      return { rowsAffected: n };
    }
    if (isPlaceRead(text)) return { rows: readPlaces(this.places, text, binds) };
    if (text.startsWith('declare cursor staged is select ') && text.includes(' for update of s.stage_id')) {
      this.lockStaged();
      return {};
    }
    if (text.startsWith('update order_stage ')) {
      this.begin();
      const n = this.update(text, binds);
      this.record('update order_stage', n);
      return { rowsAffected: n };
    }
    if (/\b(order_stage|orders|order_stage_batch)\b/.test(text) && /^(insert|update|delete|merge)\b/.test(text)) {
      throw new Error(`model: a statement on the modelled tables it does not know: ${text.slice(0, 80)}`);
    }
    return { rows: [] };
  }

  private executeMany(sql: string, rows: Binds[], withBatchErrors: boolean): OraExecuteManyResult {
    const text = normalizeSql(sql);
    this.beforeStatement?.(text);
    this.begin();
    if (text.startsWith('declare cancelled exception;')) return this.processRows(text, rows);
    if (text.startsWith('begin select (select s.load_id from order_stage s ')) {
      const outBinds = laterLoads(this, text, rows);
      this.record('later load keys', outBinds.filter((o) => o.stage_load !== null || o.unchanged_load !== null).length);
      return { outBinds };
    }
    let statement: string;
    let each: (binds: Binds) => number;
    if (text.startsWith('insert into order_stage_batch ')) [statement, each] = ['stage batch insert', (b) => this.batchInsert(b)];
    else if (text.startsWith('merge into order_stage s ')) [statement, each] = ['stage batch update', (b) => this.stageUpdate(text, b)];
    else if (text.startsWith('insert into order_stage (') && / values \(/.test(text))
      [statement, each] = ['stage batch direct', (b) => this.stageDirect(text, b)];
    else if (text.startsWith('insert into order_stage (')) [statement, each] = ['stage batch new', (b) => this.stageNew(text, b)];
    else if (text.startsWith('delete from order_stage_batch where source_key = :source_key'))
      [statement, each] = ['stage batch drop key', (b) => this.dropKey(b)];
    else if (text.startsWith('merge into orders o ')) [statement, each] = ['merge orders', (b) => this.mergeOrders(text, b)];
    else if (text.startsWith('update order_stage ')) [statement, each] = ['update order_stage', (b) => this.update(text, b)];
    else if (text.startsWith('insert into order_bulk_error ')) [statement, each] = ['error log', (b) => (this.errorLog.push(b), 1)];
    else if (isPlaceRecord(text))
      [statement, each] = ['load place record', (b) => recordPlace(this.places, text, b, (m) => new RowError(m))];
    else if (/\b(order_stage|orders|order_stage_batch)\b/.test(text) && /^(insert|update|delete|merge)\b/.test(text))
      throw new Error(`model: a statement on the modelled tables it does not know: ${text.slice(0, 80)}`);
    else return { rowsAffected: rows.length, ...(withBatchErrors ? { batchErrors: [] } : {}) };
    let rowsAffected = 0;
    const errors: OraBatchError[] = [];
    rows.forEach((binds, offset) => {
      // an iteration the database refuses changes nothing (statement-level atomicity)
      const before = this.copy();
      try {
        rowsAffected += each(binds);
      } catch (error) {
        if (!(error instanceof RowError)) throw error;
        this.restore(before);
        if (!withBatchErrors) throw Object.assign(new Error(error.message), { offset });
        errors.push(batchError(offset, error.message));
      }
    });
    this.record(statement, rowsAffected, errors);
    return { rowsAffected, ...(withBatchErrors ? { batchErrors: errors } : {}) };
  }

  /**
   * process_rows.sql as the engine composes it (chunk-in-database.ts): per iteration, at a
   * savepoint, the MERGE of merge_orders.sql and the update of finalize_done.sql, both read from
   * the block's own text; an error of either undoes the row and comes back in its :failure. Row
   * locks are not modelled (the block's NOWAIT lock finds nothing held).
   */
  private processRows(text: string, rows: Binds[]): OraExecuteManyResult {
    const merge = /\b(merge into orders o .*?);/.exec(text)?.[1];
    const done = /\b(update order_stage set process_status = 'DONE'.*?);/.exec(text)?.[1];
    if (merge === undefined || done === undefined) throw new Error('model: process rows without its MERGE and its update to DONE');
    const outBinds = rows.map((binds) => {
      const before = this.copy();
      try {
        this.mergeOrders(merge, binds);
        this.update(done, binds);
        return { failure: null };
      } catch (error) {
        if (!(error instanceof RowError)) throw error;
        this.restore(before);
        return { failure: error.message };
      }
    });
    this.record('process rows', rows.length - outBinds.filter((o) => o.failure !== null).length);
    return { outBinds };
  }

  /** queries/claim.sql: the claimable rows in stage_id order (the cursor; the engine fetches N). */
  private query(sql: string, binds: Binds): unknown[] {
    const text = normalizeSql(sql);
    if (!text.startsWith('select stage_id, source_key,') || !text.endsWith(' for update skip locked')) return [];
    this.begin();
    const from = clause(text, ' from ', [' where ']);
    if (from !== 'order_stage') throw new Error(`model: claim from "${from ?? ''}"`);
    const order = clause(text, ' order by ', [' for update']);
    if (order !== "case when process_status in ('READY', 'RETRY_WAIT') then stage_id end")
      throw new Error(`model: claim ordered by "${order ?? ''}"`);
    const where = conjuncts(outerWhere(text), STAGE_PREDICATES, 'claim');
    return this.stage
      .filter((r) => where.every((p) => p(r, binds, this)))
      .sort((a, b) => a.stage_id - b.stage_id)
      .map((r) => ({
        STAGE_ID: String(r.stage_id),
        SOURCE_KEY: r.source_key,
        CUSTOMER_ID: r.customer_id,
        ORDER_DATE: r.order_date,
        AMOUNT: r.amount === null ? null : r.amount.toFixed(2),
        CURRENCY: r.currency,
        ATTEMPT_COUNT: String(r.attempt_count),
        TRANSIENT_FAILURES: String(r.transient_failures),
        LOAD_ID: r.load_id === null ? null : String(r.load_id),
        LINE_NO: r.line_no === null ? null : String(r.line_no),
        // claim.sql's plain: the values plainly pass the business rules (NULL: no)
        PLAIN: this.plainColumn && plainValues(r) ? '1' : '0',
      }));
  }

  /** An UPDATE of order_stage: its WHERE's known predicates, its SET's known expressions. */
  private update(text: string, binds: Binds): number {
    const target = /^update order_stage (?:s )?set /.exec(text);
    if (target === null) throw new Error(`model: UPDATE of ${text.slice(0, 40)}`);
    const where = conjuncts(outerWhere(text), STAGE_PREDICATES, 'update order_stage');
    const sets = setList(text).map((a) => assignment(a));
    let n = 0;
    for (const row of this.stage) {
      if (!where.every((p) => p(row, binds, this))) continue;
      // every SET expression sees the row as it was before the update
      const values = sets.map(([column, expr]) => [column, evaluate(expr, row, binds, this)] as const);
      for (const [column, value] of values) (row as unknown as Record<string, unknown>)[column] = value;
      this.checkStage(row);
      n++;
    }
    return n;
  }

  /** queries/stage_batch_insert.sql: one batch row, converted as order_stage would hold it. */
  private batchInsert(b: Binds): number {
    const amount = b.amount === null || b.amount === undefined ? null : Math.round(Number(b.amount) * 100) / 100;
    if (amount !== null && (!Number.isFinite(amount) || Math.abs(amount) >= 1e16)) throw new RowError(ORA_01438);
    const key = String(b.source_key);
    if (this.batch.some((r) => r.source_key === key))
      throw new RowError('ORA-00001: unique constraint (LOADER.PK_ORDER_STAGE_BATCH) violated');
    this.batch.push({
      source_key: key,
      customer_id: b.customer_id === null || b.customer_id === undefined ? null : BigInt(textOf(b.customer_id)).toString(),
      order_date: str(b.order_date),
      amount,
      currency: str(b.currency),
      line_no: b.line_no === null || b.line_no === undefined ? null : Number(b.line_no),
      parse_code: str(b.parse_code),
      parse_message: str(b.parse_message),
      attributes: str(b.attributes),
    });
    return 1;
  }

  private isIdentical(s: StageRow, i: BatchRow): boolean {
    return (
      i.parse_code === null &&
      same(s.customer_id, i.customer_id) &&
      same(s.order_date, i.order_date) &&
      same(s.amount, i.amount) &&
      same(s.currency, i.currency) &&
      same(s.attributes ?? null, i.attributes ?? null) &&
      !(s.process_status === 'ERROR' && (s.error_code ?? '-').startsWith('PARSE'))
    );
  }

  /**
   * queries/stage_batch_lock.sql: the order_stage rows of the batch table's keys, locked by this
   * transaction until it ends (`locked`: another session's commit to one of them would wait, see
   * otherSessionCommits).
   */
  private lockStaged(): void {
    this.begin();
    for (const i of this.batch) if (this.stageRow(i.source_key) !== undefined) this.locked.add(i.source_key);
  }

  /**
   * Another session's transaction on order_stage, committed now (processing's chunk that writes
   * rows DONE, a concurrent stager): `change` is applied to the tables as this model's open
   * transaction and savepoint will restore them too (committed work is not undone by this
   * transaction's rollback). Its rows are stamped with the time of the commit, which a
   * SERIALIZABLE transaction begun earlier cannot write past (ORA-08177). A row this model's
   * transaction holds locked (stage_batch_lock.sql) cannot be changed: the other session would
   * wait for it, so the test may not commit it here (throws).
   */
  otherSessionCommits(keys: readonly string[], change: (row: StageRow) => void): void {
    for (const key of keys)
      if (this.locked.has(key)) throw new Error(`model: ${key} is locked by the open transaction: the other session waits`);
    this.now += 1;
    for (const tables of [this, this.txStart, this.savepoint]) {
      if (tables === undefined) continue;
      for (const row of tables.stage) if (keys.includes(row.source_key)) change(row);
    }
    for (const key of keys) this.committedAt.set(key, this.now);
  }

  /** ORA-08177 when a SERIALIZABLE transaction writes a row another session committed after it began. */
  private checkSerializable(key: string): void {
    const since = this.serializableSince;
    const committed = this.committedAt.get(key);
    if (since !== undefined && committed !== undefined && committed > since)
      throw new RowError("ORA-08177: can't serialize access for this transaction");
  }

  /** queries/stage_batch_counts.sql, by its comment's rules. */
  private counts(loadId: number): Record<string, string> {
    let updated = 0;
    let unchanged = 0;
    let unchangedError = 0;
    let repeated = 0;
    for (const i of this.batch) {
      const s = this.stageRow(i.source_key);
      if (s === undefined) continue;
      if (s.load_id === loadId) repeated++;
      else if (!this.isIdentical(s, i)) updated++;
      else {
        unchanged++;
        if (s.process_status === 'ERROR') unchangedError++;
      }
    }
    return {
      UPDATED: String(updated),
      UNCHANGED: String(unchanged),
      UNCHANGED_ERROR: String(unchangedError),
      REPEATED_IN_LOAD: String(repeated),
    };
  }

  /** queries/stage_batch_update.sql for one key: the WHEN MATCHED ... WHERE read as its known disjuncts. */
  private stageUpdate(text: string, b: Binds): number {
    const i = this.batch.find((r) => r.source_key === b.source_key);
    const s = this.stageRow(String(b.source_key));
    if (i === undefined || s === undefined) return 0;
    const changed = !this.isIdentical(s, i);
    const loadId = Number(b.load_id);
    const known: Record<string, () => boolean> = {
      'src.is_changed = 1': () => changed,
      "(s.process_status <> 'DONE' and decode(s.load_id, :load_id, 0, 1) = 1)": () => s.process_status !== 'DONE' && s.load_id !== loadId,
      '(decode(s.load_id, :load_id, 1, 0) = 1 and s.line_no < src.line_no)': () =>
        s.load_id === loadId && s.line_no !== null && i.line_no !== null && s.line_no < i.line_no,
    };
    const where = outerWhere(text);
    const applies =
      where === undefined ||
      splitTop(where, ' or ').some((d) => {
        const p = known[d];
        if (p === undefined) throw new Error(`model: stage batch update: unknown predicate "${d}"`);
        return p();
      });
    if (!applies) return 0;
    this.checkSerializable(s.source_key);
    Object.assign(s, {
      customer_id: i.customer_id,
      order_date: i.order_date,
      amount: i.amount,
      currency: i.currency,
      attributes: i.attributes ?? null,
      ...(changed
        ? {
            process_status: i.parse_code === null ? 'READY' : 'ERROR',
            error_code: i.parse_code,
            error_message: i.parse_message,
            next_attempt_at: null,
            transient_failures: 0,
          }
        : {}),
      load_id: loadId,
      line_no: i.line_no,
      updated_at: this.now,
    });
    this.checkStage(s);
    return 1;
  }

  /** queries/stage_batch_new.sql for one key: the batch rows its WHERE selects, into order_stage. */
  private stageNew(text: string, b: Binds): number {
    const known: Record<string, Predicate<BatchRow>> = {
      'i.source_key = :source_key': (i, binds) => i.source_key === binds.source_key,
      'not exists (select 1 from order_stage s where s.source_key = i.source_key)': (i, _b, m) => m.stageRow(i.source_key) === undefined,
    };
    const where = conjuncts(outerWhere(text), known, 'stage batch new');
    const rows = this.batch.filter((i) => where.every((p) => p(i, b, this)));
    for (const i of rows) {
      const stageId = this.nextStageId++;
      const row: StageRow = {
        stage_id: stageId,
        source_key: i.source_key,
        customer_id: i.customer_id,
        order_date: i.order_date,
        amount: i.amount,
        currency: i.currency,
        process_status: i.parse_code === null ? 'READY' : 'ERROR',
        attempt_count: 0,
        transient_failures: 0,
        next_attempt_at: null,
        load_id: Number(b.load_id),
        line_no: i.line_no,
        error_code: i.parse_code,
        error_message: i.parse_message,
        batch_id: null,
        processed_at: null,
        updated_at: this.now,
        attributes: i.attributes ?? null,
      };
      this.insertStage(row);
    }
    return rows.length;
  }

  /** An INSERT of one order_stage row: its CHECKs, then the unique index on source_key. */
  private insertStage(row: StageRow): void {
    this.checkStage(row);
    if (this.stageRow(row.source_key) !== undefined) throw new RowError(ora00001(row.source_key));
    this.stage.push(row);
  }

  /**
   * queries/stage_batch_direct.sql for one line: the row its column and VALUES lists make (a
   * column left out takes its default; stage_id the next identity value, taken before any check,
   * so a refused line leaves a gap), inserted as insertStage inserts it.
   */
  private stageDirect(text: string, b: Binds): number {
    const m = /^insert into order_stage \(([^)]*)\) values \((.*)\)$/.exec(text);
    if (m?.[1] === undefined || m[2] === undefined) throw new Error('model: stage batch direct of an unknown form');
    const columns = splitTop(m[1], ',');
    const values = splitTop(m[2], ',');
    if (columns.length !== values.length) throw new Error('model: stage batch direct: columns and values differ in number');
    const row: StageRow = {
      stage_id: this.nextStageId++,
      source_key: '',
      customer_id: null,
      order_date: null,
      amount: null,
      currency: null,
      process_status: 'READY',
      attempt_count: 0,
      transient_failures: 0,
      next_attempt_at: null,
      load_id: null,
      line_no: null,
      error_code: null,
      error_message: null,
      batch_id: null,
      processed_at: null,
      updated_at: this.now,
      attributes: null,
    };
    const known = new Set(Object.keys(row).filter((c) => c !== 'stage_id' && c !== 'updated_at'));
    columns.forEach((column, k) => {
      if (!known.has(column)) throw new Error(`model: stage batch direct: column "${column}"`);
      (row as unknown as Record<string, unknown>)[column] = valueOf(values[k] ?? 'null', b);
    });
    if (typeof row.source_key !== 'string' || row.source_key === '')
      throw new RowError('ORA-01400: cannot insert NULL into ("LOADER"."ORDER_STAGE"."SOURCE_KEY")');
    this.insertStage(row);
    return 1;
  }

  private dropKey(b: Binds): number {
    const before = this.batch.length;
    this.batch = this.batch.filter((r) => r.source_key !== b.source_key);
    return before - this.batch.length;
  }

  /** queries/merge_orders.sql for one stage_id: source rows, ON, WHEN MATCHED ... WHERE, INSERT. */
  private mergeOrders(text: string, b: Binds): number {
    const using = /^merge into orders o using \((select .*?)\) src on \((.*?)\) when matched then update set /.exec(text);
    if (using?.[1] === undefined || using[2] === undefined) throw new Error('model: merge into orders of an unknown form');
    if (using[2] !== 'o.source_key = src.source_key') throw new Error(`model: merge into orders on "${using[2]}"`);
    const source = using[1];
    if (clause(source, ' from ', [' where ']) !== 'order_stage s') throw new Error('model: merge into orders from an unknown source');
    const where = conjuncts<StageRow>(
      clause(source, ' where '),
      { 's.stage_id = :stage_id': (r, binds) => r.stage_id === Number(binds.stage_id) },
      'merge source',
    );
    const sources = this.stage.filter((r) => where.every((p) => p(r, b, this)));
    const sets = setList(text).map((a) => assignment(a));
    const matchedWhere = outerWhere(text);
    const differs = (o: OrderRow, s: StageRow) =>
      matchedWhere === undefined ||
      splitTop(matchedWhere, ' or ').some((d) => {
        if (d === ATTRIBUTES_DIFFER) return !same(o.attributes ?? null, s.attributes ?? null);
        const m = /^decode\(o\.(customer_id|order_date|amount|currency), src\.\1, 0, 1\) = 1$/.exec(d);
        if (m?.[1] === undefined) throw new Error(`model: merge into orders: unknown predicate "${d}"`);
        const column = m[1] as 'customer_id' | 'order_date' | 'amount' | 'currency';
        return !same(o[column], s[column]);
      });
    const insert = /when not matched then insert \(([^)]*)\) values \(([^)]*)\)$/.exec(text);
    if (insert?.[1] === undefined || insert[2] === undefined) throw new Error('model: merge into orders without its INSERT');
    const columns = splitTop(insert[1], ',');
    const values = splitTop(insert[2], ',');
    const touched = new Set<string>();
    let n = 0;
    for (const s of sources) {
      if (touched.has(s.source_key)) throw new RowError('ORA-30926: unable to get a stable set of rows in the source tables');
      touched.add(s.source_key);
      const o = this.order(s.source_key);
      if (o !== undefined) {
        if (!differs(o, s)) continue;
        const next = sets.map(([column, expr]) => [column.replace(/^o\./, ''), evaluate(expr, o, b, this, s)] as const);
        for (const [column, value] of next) (o as unknown as Record<string, unknown>)[column] = value;
        if (o.amount !== null && Math.abs(o.amount) >= 1e10) throw new RowError(ORA_01438);
      } else {
        const row: Record<string, unknown> = { updated_at: this.now };
        columns.forEach((c, k) => (row[c] = evaluate(values[k] ?? 'null', s, b, this, s)));
        if (row.customer_id === null || row.order_date === null || row.amount === null || row.currency === null)
          throw new RowError('ORA-01400: cannot insert NULL into ("LOADER"."ORDERS")');
        // orders.amount is NUMBER(12, 2)
        if (typeof row.amount === 'number' && Math.abs(row.amount) >= 1e10) throw new RowError(ORA_01438);
        this.orders.push(row as unknown as OrderRow);
      }
      n++;
    }
    return n;
  }
}

/** merge_orders.sql's comparison of the attributes (CLOBs): NULL tests, then DBMS_LOB.COMPARE. */
const ATTRIBUTES_DIFFER =
  'case when o.attributes is null and src.attributes is null then 0 when o.attributes is null or src.attributes is null then 1 when dbms_lob.compare(o.attributes, src.attributes) = 0 then 0 else 1 end = 1';

/** A refusal of one iteration (a batch error); anything else is the model's own failure. */
class RowError extends Error {}

/** claim.sql's plain rule: customer_id > 0, a date from 1900, 0 <= amount < 1E16, three capitals. */
function plainValues(r: StageRow): boolean {
  const date = r.order_date;
  return (
    r.customer_id !== null &&
    BigInt(r.customer_id) > 0n &&
    date !== null &&
    date >= '1900-01-01' &&
    date <= '9999-12-31' &&
    r.amount !== null &&
    r.amount >= 0 &&
    r.amount < 1e16 &&
    r.currency !== null &&
    /^[A-Z]{3}$/.test(r.currency)
  );
}

/** NUMBER(p, s) of a decimal text: rounded to s decimals; ORA-01438 past p - s integer digits. */
function numberOf(text: string, precision: number, scale: number): number | string {
  if (!/^-?\d*(\.\d*)?$/.test(text) || !/\d/.test(text)) throw new RowError('ORA-01722: invalid number');
  if (scale === 0) {
    if (text.includes('.')) throw new Error('model: an integer column given a decimal text');
    const digits = text.replace(/^-/, '').replace(/^0+(?=\d)/, '');
    if (digits.length > precision) throw new RowError(ORA_01438);
    return BigInt(text).toString(); // as batchInsert keeps customer_id: text of the integer
  }
  const value = Math.round(Number(text) * 10 ** scale) / 10 ** scale;
  if (Math.abs(value) >= 10 ** (precision - scale)) throw new RowError(ORA_01438);
  return value;
}

/** CAST(TO_NUMBER(:b, '9…[D9…]', 'NLS_NUMERIC_CHARACTERS=''.,''') AS NUMBER(p[, s])), normalized. */
const CAST_TO_NUMBER = new RegExp(
  String.raw`^cast\(to_number\(:([a-z_]+), '9+(?:D9+)?', 'NLS_NUMERIC_CHARACTERS=''\.,'''\) as number\((\d+)(?:, (\d+))?\)\)$`,
);

/** A VALUES expression of the direct insert, for one line's binds (the forms the model knows). */
function valueOf(expr: string, binds: Binds): unknown {
  let m: RegExpExecArray | null;
  const bind = (name: string | undefined) => {
    const v = binds[name ?? ''];
    return v === undefined ? null : v;
  };
  if (expr === 'null') return null;
  if ((m = /^:([a-z_]+)$/.exec(expr)) !== null) return bind(m[1]);
  if ((m = /^'([^']*)'$/.exec(expr)) !== null) return m[1];
  if ((m = CAST_TO_NUMBER.exec(expr)) !== null) {
    const v = bind(m[1]);
    return v === null ? null : numberOf(textOf(v), Number(m[2]), Number(m[3] ?? 0));
  }
  if ((m = /^to_date\(:([a-z_]+), 'YYYY-MM-DD'\)$/.exec(expr)) !== null) {
    const v = bind(m[1]);
    if (v === null) return null;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(textOf(v))) throw new RowError('ORA-01861: literal does not match format string');
    return textOf(v);
  }
  if ((m = /^case when :([a-z_]+) is null then '([^']*)' else '([^']*)' end$/.exec(expr)) !== null)
    return bind(m[1]) === null ? m[2] : m[3];
  throw new Error(`model: a VALUES expression it does not know: ${expr}`);
}

function assignment(text: string): [string, string] {
  const m = /^([a-z_.]+) = (.+)$/.exec(text);
  if (m?.[1] === undefined || m[2] === undefined) throw new Error(`model: SET "${text}"`);
  return [m[1].replace(/^s\./, ''), m[2]];
}

/** The SET expressions the model knows; `src` is a MERGE's source row. */
function evaluate(expr: string, row: object, binds: Binds, model: TableModel, src?: StageRow): unknown {
  const r = row as Record<string, unknown>;
  let m: RegExpExecArray | null;
  if ((m = /^:([a-z_]+)$/.exec(expr)) !== null) return binds[m[1] ?? ''] ?? null;
  if ((m = /^'([^']*)'$/.exec(expr)) !== null) return m[1];
  if (expr === 'null') return null;
  if (expr === 'systimestamp') return model.now;
  if ((m = /^([a-z_]+) \+ 1$/.exec(expr)) !== null && typeof r[m[1] ?? ''] === 'number') return (r[m[1] ?? ''] as number) + 1;
  if ((m = /^src\.([a-z_]+)$/.exec(expr)) !== null && src !== undefined) return (src as unknown as Record<string, unknown>)[m[1] ?? ''];
  if ((m = /^substr\(:([a-z_]+), 1, (\d+)\)$/.exec(expr)) !== null) {
    const v = binds[m[1] ?? ''];
    return v === null || v === undefined ? null : Array.from(textOf(v)).slice(0, Number(m[2])).join('');
  }
  if ((m = /^from_tz\(to_timestamp\(:([a-z_]+), 'YYYY-MM-DD"T"HH24:MI:SS.FF3'\), '\+00:00'\)$/.exec(expr)) !== null) {
    const v = binds[m[1] ?? ''];
    return v === null || v === undefined ? null : Date.parse(`${textOf(v)}Z`);
  }
  if (expr === "case when next_attempt_at is null then 'READY' else 'RETRY_WAIT' end")
    return r.next_attempt_at === null ? 'READY' : 'RETRY_WAIT';
  throw new Error(`model: a SET expression it does not know: ${expr}`);
}
