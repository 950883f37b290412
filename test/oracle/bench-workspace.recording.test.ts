/**
 * `bench` on Oracle against a RECORDING connection (recording-connection.ts): the whole bench
 * (runBench: staging, processing, every case, the sweep of dead workspaces) runs on the Oracle
 * engine, and every statement it sends is read for the tables it names (sql-tables.ts): none may
 * be a table of the loader. The recording database answers as a small model of the workspace
 * (the rows staged, claimed and finalized; the tables created and dropped); it runs no SQL and
 * says nothing about how a real Oracle executes it (test/oracle-server/bench.test.ts does).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderChart } from '../../src/bench/chart.js';
import { listMigrations } from '../../src/sql-files.js';
import { splitStatements } from '../../src/engine/oracle/sql-text.js';
import { runBench } from '../../src/bench/run-bench.js';
import { renderBench } from '../../src/cli/render.js';
import { createOracleEngineWith } from '../../src/engine/oracle/index.js';
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import { loaderObjectNames, replaceNames, WorkspaceSql, workspaceObjectName } from '../../src/engine/oracle/workspace-sql.js';
import { memoryLogger } from '../support/memory-logger.js';
import { constants, driverError, RecordingDatabase, type Call } from './recording-connection.js';
import { hintWords, tablesNamed } from './sql-tables.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const QUERY_NAMES = readdirSync(join(root, 'sql/oracle/queries'))
  .filter((f) => f.endsWith('.sql'))
  .map((f) => f.slice(0, -'.sql'.length));
/** The loader's own queries (the bench's workspace statements excepted). */
const LOADER_QUERIES = QUERY_NAMES.filter((n) => !n.startsWith('bench_'));

/** The data dictionary views the bench reads (its own objects only: USER_ views, no DBA view). */
const DICTIONARY = new Set(['USER_TABLES', 'USER_OBJECTS', 'DUAL']);
const WORKSPACE_TABLE = /^OLB_[0-9A-F]{8}_[A-Z][A-Z0-9_$#]*$/;

function statements(calls: readonly Call[]): string[] {
  return calls.flatMap((c) => (c.kind === 'execute' || c.kind === 'executeMany' ? [c.sql] : []));
}

/** The statements that name a table outside the workspaces, or whose hint names a loader object. */
function outsideWorkspaces(sqls: readonly string[]): { sql: string; tables: string[] }[] {
  const loader = loaderObjectNames();
  return sqls
    .map((sql) => ({
      sql,
      tables: [
        ...tablesNamed(sql).filter((t) => !WORKSPACE_TABLE.test(t) && !DICTIONARY.has(t)),
        ...hintWords(sql).filter((w) => loader.has(w)),
      ],
    }))
    .filter((s) => s.tables.length > 0);
}

/** The text with the workspace prefix taken off (loader SQL names its objects in lower case). */
/** Workspace names back to the loader's (lower case, as the SQL files spell them). */
function unprefixed(sql: string): string {
  return sql.replace(/\b(OLB_[0-9A-F]{8})_([A-Z0-9_$#]+)/g, (full: string, prefix: string, name: string) => {
    const loaderName = [...loaderObjectNames()].find((n) => workspaceObjectName(prefix, n) === full);
    return (loaderName ?? name).toLowerCase();
  });
}

const num = (bind: unknown): number => Number((bind as { val: unknown }).val);
const str = (bind: unknown): string => String((bind as { val: unknown }).val);

interface Model {
  db: RecordingDatabase;
  /** Tables that exist (upper case), as the CREATE / DROP statements sent made them. */
  tables: Set<string>;
  created: string[];
  dropped: string[];
}

/**
 * A recording database that answers like a schema holding five leftover workspaces, each with
 * its owner table: OLB_00000001 (its session gone, no owner row, the table old: dropped),
 * OLB_00000002 (its session alive: LOCK … NOWAIT fails with ORA-00054), OLB_00000003 (session
 * gone, its owner row within the grace period), OLB_00000004 (session gone, its owner row old:
 * dropped), OLB_00000005 (session gone, no owner row, the table created within the grace period).
 */
const KEPT = ['OLB_00000002_OWNER', 'OLB_00000003_OWNER', 'OLB_00000005_OWNER'];

function workspaceModel(options: { onClaim?: () => void } = {}): Model {
  const tables = new Set([
    'OLB_00000001_OWNER',
    'OLB_00000001_ORDERS',
    'OLB_00000001_ORDER_STAGE',
    'OLB_00000004_OWNER',
    'OLB_00000004_LOAD_RUN',
    ...KEPT,
  ]);
  const created: string[] = [];
  const dropped: string[] = [];
  // the stage of the workspace in scope: stage rows by id, and which are finalized
  let stage: {
    id: number;
    key: string;
    amount: string | null;
    customer: string | null;
    date: string | null;
    currency: string | null;
    line: number;
  }[] = [];
  let batch: typeof stage = [];
  const finalized = new Set<number>();
  // rows locked by a claim, by session, until its COMMIT or ROLLBACK (FOR UPDATE SKIP LOCKED)
  const locks = new Map<number, number>();
  const unlock = (conn: number) => {
    for (const [id, holder] of locks) if (holder === conn) locks.delete(id);
  };
  let runId = 0;
  const is = (sql: string, name: string) => unprefixed(sql) === oracleQuery(name);
  const db = new RecordingDatabase({
    execute(sql, binds) {
      const create = /^CREATE\s+(?:GLOBAL\s+TEMPORARY\s+)?TABLE\s+([A-Z0-9_$#]+)/i.exec(sql);
      if (create?.[1] !== undefined) {
        const name = create[1].toUpperCase();
        if (tables.has(name)) throw driverError('ORA-00955', 'name is already used by an existing object');
        tables.add(name);
        created.push(name);
        if (/_ORDER_STAGE$/.test(name)) {
          stage = [];
          finalized.clear();
        }
        return {};
      }
      const drop = /^DROP\s+TABLE\s+([A-Z0-9_$#]+)/i.exec(sql);
      if (drop?.[1] !== undefined) {
        const name = drop[1].toUpperCase();
        if (!tables.delete(name)) throw driverError('ORA-00942', 'table or view does not exist');
        dropped.push(name);
        return {};
      }
      const lock = /^LOCK\s+TABLE\s+([A-Z0-9_$#]+).*NOWAIT/i.exec(sql);
      if (lock?.[1] === 'OLB_00000002_OWNER')
        throw driverError('ORA-00054', 'resource busy and acquire with NOWAIT specified or timeout expired');
      if (sql === oracleQuery('bench_workspaces'))
        return {
          rows: [...tables]
            .filter((t) => t.endsWith('_OWNER'))
            .sort()
            .map((t) => ({ OWNER_TABLE: t, CREATED_PAST_GRACE: t === 'OLB_00000005_OWNER' ? '0' : '1' })),
        };
      if (sql === oracleQuery('bench_workspace_tables')) {
        const prefix = str(binds.pattern).replace(/\\_/g, '_').replace(/%$/, '');
        const mine = [...tables].filter((t) => t.startsWith(prefix)).sort();
        return {
          rows: [...mine.filter((t) => !t.endsWith('_OWNER')), ...mine.filter((t) => t.endsWith('_OWNER'))].map((t) => ({ TABLE_NAME: t })),
        };
      }
      if (/^SELECT host/.test(sql)) {
        if (/OLB_0000000[15]_OWNER/.test(sql)) return { rows: [] };
        expect(num(binds.grace_seconds)).toBe(600);
        return {
          rows: [
            { HOST: 'old-host', PID: '4242', STARTED_AT: '2026-11-30T01:02:03.000Z', PAST_GRACE: sql.includes('OLB_00000003') ? '0' : '1' },
          ],
        };
      }
      if (is(sql, 'run_start')) return { outBinds: { run_id: [++runId] }, rowsAffected: 1 };
      // each case's file claimed in the workspace's own claim table (no other bench holds it)
      // and each batch's check of it: the barrier row free, the claim row the claim session's
      if (is(sql, 'file_claim_lock') || is(sql, 'file_claim_barrier')) return { rows: [{ CLAIM_KEY: str(binds.claim_key) }] };
      if (is(sql, 'stage_batch_counts'))
        return { rows: [{ INSERTED: String(batch.length), UPDATED: '0', UNCHANGED: '0', UNCHANGED_ERROR: '0', REPEATED_IN_LOAD: '0' }] };
      if (is(sql, 'stage_batch_update')) return { rowsAffected: 0 };
      if (is(sql, 'claimable_count')) return { rows: [{ N: String(stage.filter((r) => !finalized.has(r.id)).length) }] };
      return { rows: [] };
    },
    executeMany(sql, binds) {
      // the bench's keys are all new: each batch goes straight into the workspace's order_stage
      if (is(sql, 'stage_batch_direct')) {
        for (const b of binds) {
          stage.push({
            id: stage.length + 1,
            key: String(b.source_key),
            amount: (b.amount as string | null) ?? null,
            customer: (b.customer_id as string | null) ?? null,
            date: (b.order_date as string | null) ?? null,
            currency: (b.currency as string | null) ?? null,
            line: Number(b.line_no),
          });
        }
        return { rowsAffected: binds.length, batchErrors: [] };
      }
      if (is(sql, 'stage_batch_insert')) {
        for (const b of binds) {
          batch.push({
            id: stage.length + batch.length + 1,
            key: String(b.source_key),
            amount: (b.amount as string | null) ?? null,
            customer: (b.customer_id as string | null) ?? null,
            date: (b.order_date as string | null) ?? null,
            currency: (b.currency as string | null) ?? null,
            line: Number(b.line_no),
          });
        }
      }
      if (is(sql, 'stage_batch_new')) {
        const keys = new Set(binds.map((b) => String(b.source_key)));
        const added = batch.filter((r) => keys.has(r.key));
        stage.push(...added.map((r, i) => ({ ...r, id: stage.length + i + 1 })));
        return { rowsAffected: added.length, batchErrors: [] };
      }
      if (is(sql, 'finalize_done') || is(sql, 'finalize_failed')) for (const b of binds) finalized.add(Number(b.stage_id));
      return { rowsAffected: binds.length, ...(is(sql, 'merge_orders') ? { batchErrors: [] } : {}) };
    },
    // the session's batch table empties at each commit and rollback (ON COMMIT DELETE ROWS)
    commit: (conn) => {
      batch = [];
      unlock(conn);
    },
    rollback: (conn) => {
      batch = [];
      unlock(conn);
    },
    resultSetRows(sql, binds, executeOptions, conn) {
      if (!is(sql, 'claim')) return [];
      options.onClaim?.();
      const after = num(binds.after_stage_id);
      // the claim fetches fetchArraySize rows: those are the rows it locks, others' skipped
      const picked = stage
        .filter((r) => r.id > after && !finalized.has(r.id) && (locks.get(r.id) ?? conn) === conn)
        .slice(0, executeOptions.fetchArraySize ?? 0);
      for (const r of picked) locks.set(r.id, conn);
      return picked.map((r) => ({
        STAGE_ID: String(r.id),
        SOURCE_KEY: r.key,
        CUSTOMER_ID: r.customer,
        ORDER_DATE: r.date,
        AMOUNT: r.amount,
        CURRENCY: r.currency,
        ATTEMPT_COUNT: '0',
        TRANSIENT_FAILURES: '0',
        LOAD_ID: '1',
        LINE_NO: String(r.line),
      }));
    },
  });
  return { db, tables, created, dropped };
}

describe('Oracle bench workspace: the SQL pointed at the workspace', () => {
  it('names every object the migrations create, and a prefixed name stays within 30 bytes (COMPATIBLE < 12.2), each its own', () => {
    const names = loaderObjectNames();
    for (const table of [
      'ORDERS',
      'ORDER_STAGE',
      'ORDER_BULK_ERROR',
      'LOAD_RUN',
      'LOAD_RUN_EVENT',
      'ORDER_STAGE_AUDIT',
      'ORDER_STAGE_BATCH',
    ])
      expect(names).toContain(table);
    expect(names).toContain('IX_ORDER_STAGE_CLAIMABLE');
    expect(names).toContain('UQ_ORDERS_SOURCE');
    // 30 bytes at most (databases with COMPATIBLE below 12.2), each name its own
    const workspace = new WorkspaceSql('OLB_0123ABCD');
    for (const name of names) expect(Buffer.byteLength(workspace.names.get(name) ?? ''), name).toBeLessThanOrEqual(30);
    expect(Buffer.byteLength(workspaceObjectName('OLB_0123ABCD', 'OWNER'))).toBeLessThanOrEqual(30);
    expect(new Set(workspace.names.values()).size).toBe(names.size);
    expect(workspaceObjectName('OLB_0123ABCD', 'orders')).toBe('OLB_0123ABCD_ORDERS');
    // a longer name keeps its start and gets a hash of the whole: the same in every process
    const long = workspaceObjectName('OLB_0123ABCD', 'ORDER_LOADER_MIGRATION_LOCK');
    expect(long).toMatch(/^OLB_0123ABCD_ORDER_LOADER_[0-9A-F]{4}$/);
    expect(workspaceObjectName('OLB_0123ABCD', 'order_loader_migration_lock')).toBe(long);
    expect(workspaceObjectName('OLB_0123ABCD', 'ORDER_LOADER_MIGRATION')).not.toBe(long);
    expect(() => workspaceObjectName('ORDERS; DROP', 'ORDERS')).toThrow(/not a bench workspace prefix/);
  });

  it("no migration names a loader object inside a string literal (a workspace would run it on the loader's own object)", () => {
    // replaceNames leaves literals alone, so `EXECUTE IMMEDIATE 'ALTER TABLE order_stage …'` in a
    // migration, run in a workspace, would change the loader's table instead of the workspace's
    const names = [...loaderObjectNames()];
    const inLiterals = listMigrations('oracle').flatMap((m) =>
      splitStatements(m.sql).flatMap((statement) =>
        [...statement.matchAll(/'((?:[^']|'')*)'/g)].flatMap(([, literal]) =>
          names
            .filter((name) => new RegExp(`(^|[^A-Za-z0-9_$#])${name}($|[^A-Za-z0-9_$#])`, 'i').test(literal ?? ''))
            .map((name) => `${m.name}: ${name}`),
        ),
      ),
    );
    expect(inLiterals).toEqual([]);
  });

  it('replaces whole names only: not in literals, binds, columns of an alias or plain comments; in hints yes', () => {
    const names = new Map([
      ['ORDERS', 'OLB_0123ABCD_ORDERS'],
      ['ORDER_STAGE', 'OLB_0123ABCD_ORDER_STAGE'],
    ]);
    const sql = `SELECT /*+ INDEX(order_stage) */ s.orders, 'orders', "orders", :orders, orders_x -- orders\nFROM order_stage s, ORDERS o /* orders */ WHERE x = 'it''s orders'`;
    expect(replaceNames(sql, names)).toBe(
      `SELECT /*+ INDEX(OLB_0123ABCD_ORDER_STAGE) */ s.orders, 'orders', "orders", :orders, orders_x -- orders\nFROM OLB_0123ABCD_ORDER_STAGE s, OLB_0123ABCD_ORDERS o /* orders */ WHERE x = 'it''s orders'`,
    );
    expect(() => replaceNames("SELECT q'[orders]' FROM orders", names)).toThrow(/q'…' literals/);
    expect(() => replaceNames("SELECT 'orders FROM orders", names)).toThrow(/unterminated/);
  });

  it.each(LOADER_QUERIES)('%s: pointed at a workspace, it names only workspace tables; the check reads its loader tables', (name) => {
    const sql = oracleQuery(name);
    const rewritten = new WorkspaceSql('OLB_0123ABCD').rewrite(sql);
    expect(
      outsideWorkspaces([rewritten]).filter((s) =>
        s.tables.some(
          (t) =>
            ![
              'USER_TABLES',
              'USER_TAB_COLUMNS',
              'USER_INDEXES',
              'USER_IND_COLUMNS',
              'USER_IND_EXPRESSIONS',
              'USER_CONSTRAINTS',
              'NLS_DATABASE_PARAMETERS',
              'DUAL',
            ].includes(t),
        ),
      ),
    ).toEqual([]);
    // the same SQL otherwise: only the names changed
    expect(unprefixed(rewritten)).toBe(sql);
    // the check is not blind: every loader table named as a word of the original is read as a table
    const loader = loaderObjectNames();
    const words = new Set(sql.toUpperCase().match(/[A-Z][A-Z0-9_$#]*/g) ?? []);
    const tablesInText = [...words].filter((w) => loader.has(w) && !w.startsWith('IX_') && !w.startsWith('PK_') && !w.startsWith('UQ_'));
    expect(outsideWorkspaces([sql]).flatMap((s) => s.tables)).toEqual(expect.arrayContaining(tablesInText));
  });

  it('the check fails on the loader statements of an ordinary chunk (ORDERS, ORDER_STAGE, the error log)', async () => {
    const { db } = workspaceModel();
    const engine = createOracleEngineWith(db, constants);
    await engine.transaction(async (tx) => {
      const rows = await tx.claimChunk({ afterStageId: 0, limit: 10 });
      await tx.mergeOrders(
        [
          {
            stageId: 1,
            sourceKey: 'K1',
            customerId: '1',
            orderDate: '2024-01-01',
            amount: '1.00',
            currency: 'JPY',
            attemptCount: 0,
            transientFailures: 0,
            loadId: 1,
            lineNo: 2,
          },
        ],
        { isolationBlock: 1 },
      );
      await tx.finalizeChunk({
        batchId: 'b',
        done: [1],
        failed: [
          {
            stageId: 2,
            sourceKey: 'K2',
            status: 'ERROR',
            attemptNo: 1,
            transientFailures: 0,
            loadId: 1,
            lineNo: 3,
            error: { phase: 'VALIDATE', code: 'X', message: 'x' },
          },
        ],
      });
      return rows;
    });
    const flagged = outsideWorkspaces(statements(db.calls)).flatMap((s) => s.tables);
    expect(flagged).toEqual(expect.arrayContaining(['ORDERS', 'ORDER_STAGE', 'ORDER_BULK_ERROR']));
  });
});

describe('Oracle bench (recording connection): the whole bench in workspaces of its own', () => {
  it('runs every case on OLB_<id>_ tables only, with the loader MERGE and finalize, sweeps dead workspaces, drops its own', async () => {
    const model = workspaceModel();
    const engine = createOracleEngineWith(model.db, constants);
    const logs = memoryLogger();
    const { logger } = logs;
    const report = await runBench(engine, { rows: 120, chunkSizes: [25, 50], workers: [1, 2], batchSize: 40, logger });
    await engine.close();

    // the report: every case measured, every row accounted for (1% missing amounts → ERROR)
    expect(report.engine).toBe('oracle');
    expect(report.cases.map((c) => [c.chunkSize, c.workers])).toEqual([
      [25, 1],
      [25, 2],
      [50, 1],
      [50, 2],
    ]);
    for (const c of report.cases) expect(c.done + c.error).toBe(120);
    // the CLI's table and chart, the same code as on PostgreSQL
    expect(renderBench(report)).toMatch(/^bench: 120 synthetic rows on oracle[\s\S]*\n\s*50\s+2\s/);
    expect(renderChart(report.cases, 'oracle')).toContain('2 workers');

    // no statement names a table of the loader, and the statistics gathered after each case's
    // staging are the workspace's (DBMS_STATS takes the name as a bind, not as an identifier)
    const gathered = model.db.calls.flatMap((c) =>
      c.kind === 'execute' && c.sql === oracleQuery('gather_stage_stats') ? [(c.binds.table_name as { val: unknown }).val] : [],
    );
    expect(gathered).toHaveLength(4);
    for (const name of gathered) expect(name).toMatch(/^OLB_[0-9A-F]{8}_ORDER_STAGE$/);
    const sent = statements(model.db.calls);
    expect(outsideWorkspaces(sent)).toEqual([]);
    expect(sent.length).toBeGreaterThan(50);

    // the loader's own MERGE, finalize and claim statements, pointed at the workspace
    for (const name of ['merge_orders', 'finalize_done', 'finalize_failed', 'finalize_failed_log', 'claim', 'stage_batch_direct'])
      expect(sent.some((sql) => sql !== oracleQuery(name) && unprefixed(sql) === oracleQuery(name))).toBe(true);
    const claim = sent.find((sql) => unprefixed(sql) === oracleQuery('claim')) ?? '';
    const hinted = /INDEX_ASC\((OLB_[0-9A-F]{8})_ORDER_STAGE (OLB_[0-9A-F]{8}_[A-Z0-9_]+)\)/.exec(claim);
    expect(hinted?.[2]).toBe(workspaceObjectName(hinted?.[1] ?? '', 'IX_ORDER_STAGE_CLAIMABLE'));

    // four workspaces, one per case, each with its own prefix, all dropped
    const owners = model.created.filter((t) => /^OLB_[0-9A-F]{8}_OWNER$/.test(t));
    expect(owners).toHaveLength(4);
    expect(new Set(owners).size).toBe(4);
    for (const owner of owners) {
      const prefix = owner.slice(0, 'OLB_01234567'.length);
      const made = model.created.filter((t) => t.startsWith(prefix));
      expect(made).toEqual(
        expect.arrayContaining([`${prefix}_ORDERS`, `${prefix}_ORDER_STAGE`, `${prefix}_LOAD_RUN`, `${prefix}_ORDER_STAGE_BATCH`]),
      );
      expect(model.dropped.filter((t) => t.startsWith(prefix)).sort()).toEqual([...made].sort());
      // its owner table dropped last
      expect(model.dropped.filter((t) => t.startsWith(prefix)).at(-1)).toBe(owner);
    }

    // the sweep: the dead workspace dropped (and logged), the live and the young one untouched
    expect(model.dropped.filter((t) => t.startsWith('OLB_0000000'))).toEqual([
      'OLB_00000001_ORDERS',
      'OLB_00000001_ORDER_STAGE',
      'OLB_00000001_OWNER',
      'OLB_00000004_LOAD_RUN',
      'OLB_00000004_OWNER',
    ]);
    expect([...model.tables].sort()).toEqual(KEPT);
    expect(logs.records.filter((r) => /dropped the workspace of a run that is gone/.test(r.msg)).map((r) => r.workspace)).toEqual([
      'OLB_00000001 (owner unknown; 3 tables)',
      'OLB_00000004 (pid 4242 on old-host, started 2026-11-30T01:02:03.000Z; 2 tables)',
    ]);
  });

  it('the owner lock is taken before the tables are made, held by one session, and that session drops the owner table last', async () => {
    const model = workspaceModel();
    const engine = createOracleEngineWith(model.db, constants);
    const { logger } = memoryLogger();
    await runBench(engine, { rows: 30, chunkSizes: [10], workers: [1], batchSize: 30, logger });
    await engine.close();
    const calls = model.db.calls.filter((c): c is Extract<Call, { kind: 'execute' }> => c.kind === 'execute');
    const createOwner = calls.findIndex((c) => /^CREATE TABLE OLB_[0-9A-F]{8}_OWNER/.test(c.sql));
    const holder = calls[createOwner]!.conn;
    const lock = calls.findIndex((c) => /^LOCK TABLE OLB_[0-9A-F]{8}_OWNER IN EXCLUSIVE MODE$/.test(c.sql));
    const firstLoaderTable = calls.findIndex((c) => /^CREATE TABLE OLB_[0-9A-F]{8}_ORDER_STAGE/.test(c.sql));
    expect(calls[lock]!.conn).toBe(holder);
    expect(lock).toBeLessThan(firstLoaderTable);
    // the holder commits its owner row before the lock, and runs nothing else until the drop
    // (a session from the idle stack: what it ran before, the sweep, is not the workspace's)
    const holderCalls = model.db.calls
      .filter((c) => c.conn === holder)
      .slice(model.db.calls.filter((c) => c.conn === holder).indexOf(calls[createOwner]!));
    const trace = holderCalls.map((c) => (c.kind === 'execute' ? c.sql.split(/\s+/).slice(0, 2).join(' ') : c.kind));
    expect(trace).toEqual(['CREATE TABLE', 'INSERT INTO', 'commit', 'LOCK TABLE', 'DROP TABLE', 'close']);
    const drops = calls.filter((c) => /^DROP TABLE/.test(c.sql));
    expect(drops.at(-1)!.conn).toBe(holder);
    expect(drops.at(-1)!.sql).toMatch(/^DROP TABLE OLB_[0-9A-F]{8}_OWNER CASCADE CONSTRAINTS PURGE$/);
  });

  it('interrupted (SIGINT) during a case: the case is not reported, the workspace is dropped all the same', async () => {
    const controller = new AbortController();
    let claims = 0;
    const model = workspaceModel({
      onClaim: () => {
        if (++claims === 2) controller.abort();
      },
    });
    const engine = createOracleEngineWith(model.db, constants);
    const { logger } = memoryLogger();
    const report = await runBench(engine, {
      rows: 200,
      chunkSizes: [20, 40],
      workers: [1],
      batchSize: 100,
      logger,
      signal: controller.signal,
    });
    await engine.close();
    expect(report.interrupted).toBe(true);
    expect(report.cases).toEqual([]);
    expect(report.interruptedCase).toEqual({ chunkSize: 20, workers: 1 });
    const mine = model.created.filter((t) => !t.startsWith('OLB_0000000'));
    expect(mine.length).toBeGreaterThan(5);
    expect(model.dropped).toEqual(expect.arrayContaining(mine));
    expect([...model.tables].sort()).toEqual(KEPT);
    expect(outsideWorkspaces(statements(model.db.calls))).toEqual([]);
  });

  it('a table that cannot be dropped: the owner table stays (a later sweep finds it) and the lock is ended by a rollback', async () => {
    const model = workspaceModel();
    const inner = model.db.script.execute!;
    model.db.script.execute = (sql, binds, options, conn) => {
      if (/^DROP TABLE OLB_[0-9A-F]{8}_ORDERS /.test(sql) && !sql.startsWith('DROP TABLE OLB_00000001'))
        throw driverError('ORA-00604', 'error occurred at recursive SQL level 1');
      return inner(sql, binds, options, conn);
    };
    const engine = createOracleEngineWith(model.db, constants);
    const { logger } = memoryLogger();
    await expect(runBench(engine, { rows: 30, chunkSizes: [10], workers: [1], batchSize: 30, logger })).rejects.toThrow(/ORA-00604/);
    await engine.close();
    const owner = model.created.find((t) => /^OLB_[0-9A-F]{8}_OWNER$/.test(t) && !t.startsWith('OLB_0000000'))!;
    expect(model.tables).toContain(owner);
    const holder = model.db.calls.find((c) => c.kind === 'execute' && c.sql.startsWith(`CREATE TABLE ${owner}`))!.conn;
    expect(
      model.db.calls
        .filter((c) => c.conn === holder)
        .map((c) => c.kind)
        .slice(-2),
    ).toEqual(['rollback', 'close']);
  });
});
