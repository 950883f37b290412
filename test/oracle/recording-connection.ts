/**
 * A RECORDING database for the Oracle engine's unit tests. It is not Oracle and runs no SQL: it
 * records every call (SQL text, binds, options) and answers with what the test scripts. Where
 * node-oracledb 26.0 thin mode checks something on the client before sending (read in
 * node_modules/oracledb/lib/connection.js, lib/transformer.js, lib/thin/*), it checks the same
 * thing and throws an error shaped like the driver's:
 *   - any call on a closed connection                       -> NJS-003
 *   - executeMany with an empty array                       -> NJS-005
 *   - executeMany: a VARCHAR2 bindDef without maxSize       -> NJS-057, before any row is looked at
 *     (lib/connection.js _processBindUnit, called for the bindDefs before the rows)
 *   - a value whose JS type does not match bindDefs.type    -> NJS-011
 *   - a string longer (UTF-8 bytes) than bindDefs.maxSize  -> NJS-058 "... in row n"
 *   - executeMany of a query                                -> NJS-157
 *   - named binds whose count matches neither the SQL's placeholders nor its distinct names
 *                                                           -> NJS-098
 *   - a bind name the SQL does not have (counts matching)   -> NJS-097
 *   - executeMany of PL/SQL with batchErrors                -> NJS-095
 * in that order, the driver's (the public layer's bind processing in lib/connection.js, then
 * lib/thin/connection.js _getExecuteMessage: the statement type, the bind count, each bind's
 * name, then the PL/SQL check). Placeholders are counted as lib/thin/statement.js's parser
 * counts them: every occurrence in SQL, each name once in PL/SQL, none in DDL (the parser stops
 * at the first keyword of ALTER / CREATE / DROP ...).
 * Batch errors are returned as thin mode builds them: an Error with `offset` and `message`
 * and no `errorNum` (lib/thin/protocol/messages/base.js).
 *
 * Connections as thin mode has them:
 *   - RecordingDatabase.getConnection() is oracledb.getConnection(): a new standalone session
 *     each time; its close() ends it (lib/thin/connection.js close: LogOff, then disconnect).
 *   - RecordingPool (RecordingDatabase.createPool()) is a thin pool: close() takes no option,
 *     `{ drop: true }` is ignored (lib/thin/connection.js close() has no parameter, it calls
 *     pool.release(this)), and the free list is LIFO (lib/thin/pool.js: release() pushes,
 *     acquire() pops): the next getConnection() hands back the session released last. A
 *     session whose socket died (`healthy = false`) is not listed again: release() keeps only a
 *     connected, healthy one (nscon.connected, _shouldRetainInPool); that session is ended.
 *
 * The session settings (queries/session_settings.sql) that the engine sends as the first
 * statement of each new connection are kept in `log` with every other call, but left out of
 * `calls`, so that the tests of other statements read as the engine's work; a settings
 * statement sent at any other moment is in `calls` too. Tests of the settings read `log`.
 * Rows fetched from the server are counted as thin mode fetches them (lib/thin/resultSet.js,
 * lib/thin/protocol/messages/execute.js, lib/resultset.js): an execute with a result set
 * fetches `prefetchRows` (default 2) rows with the execute, and getRows(n) fetches the n minus
 * the rows still buffered; an execute without a result set fetches every row, or `maxRows`.
 * Under FOR UPDATE SKIP LOCKED the rows fetched are the rows locked.
 *
 * executeMany of PL/SQL with OUT bindDefs returns `outBinds`, one object per iteration with
 * each OUT bind by name (lib/thin/util.js getOutBinds with executeManyFlag); by default every
 * OUT value is null, a script may answer them.
 *
 * close() of a connection with DML not yet committed rolls it back first (lib/thin/connection.js
 * close: txnInProgress), pooled or not: such connections are listed in `rolledBackAtClose`.
 *
 * close() may hang as a logoff on a dead network path does (script `close`: a promise that
 * never settles); destroy() is thin mode's nscon.forceDisconnect(): the socket is destroyed,
 * the pending close() ends without throwing (lib/thin/connection.js close: the read fails, the
 * catch disconnects NSFIMM) and the session is gone.
 */
import oracledb from 'oracledb';
import type {
  OraBatchError,
  OraBindDef,
  OraBinds,
  OraConnection,
  OraConstants,
  OraExecuteManyOptions,
  OraExecuteManyResult,
  OraExecuteOptions,
  OraExecuteResult,
  OraPool,
} from '../../src/engine/oracle/oracledb-types.js';
import { objectDetail, objectsCreatedBy, type SchemaObject } from '../../src/engine/oracle/schema-check.js';
import { readSql, listMigrations } from '../../src/sql-files.js';
import { oracleQuery, splitStatements } from '../../src/engine/oracle/sql-text.js';

export const constants = oracledb as unknown as OraConstants;
const DB = oracledb as unknown as { DB_TYPE_NUMBER: unknown; DB_TYPE_VARCHAR: unknown; DB_TYPE_CLOB: unknown };

export function driverError(code: string, text: string): Error & { code: string } {
  const error = new Error(`${code}: ${text}`) as Error & { code: string };
  error.code = code;
  return error;
}

/** A batch error entry as thin mode makes it: offset + message, no errorNum, no code. */
export function batchError(offset: number, message: string): OraBatchError {
  return Object.assign(new Error(message), { offset });
}

/** Named placeholders of a SQL text, skipping string literals, quoted identifiers, comments. */
export function placeholders(sql: string): Set<string> {
  return new Set(placeholderList(sql));
}

/** Every occurrence of a named placeholder, lower case, in order (see placeholders). */
function placeholderList(sql: string): string[] {
  const names: string[] = [];
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i];
    if (ch === "'" || ch === '"') {
      const end = sql.indexOf(ch, i + 1);
      i = end < 0 ? sql.length : end + 1;
      continue;
    }
    if (ch === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end + 1;
      continue;
    }
    if (ch === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
      continue;
    }
    if (ch === ':') {
      const m = /^:([A-Za-z][A-Za-z0-9_$#]*)/.exec(sql.slice(i));
      if (m?.[1] !== undefined) {
        names.push(m[1].toLowerCase());
        i += m[0].length;
        continue;
      }
    }
    i++;
  }
  return names;
}

function firstKeyword(sql: string): string {
  return (/[A-Za-z]+/.exec(sql)?.[0] ?? '').toUpperCase();
}

const DDL_KEYWORDS = new Set(['ALTER', 'CREATE', 'DROP', 'ANALYZE', 'AUDIT', 'COMMENT', 'GRANT', 'REVOKE', 'TRUNCATE']);
const PLSQL_KEYWORDS = new Set(['BEGIN', 'DECLARE', 'CALL']);
const DML_KEYWORDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/**
 * lib/thin/connection.js _getExecuteMessage and _bind: the statement's placeholders (every
 * occurrence in SQL, each name once in PL/SQL, none in DDL) against the named binds given.
 * Counts that differ are NJS-098 unless the distinct names count as many as the binds; then
 * each bind, in the order given, must name a placeholder (NJS-097, the name upper-cased).
 */
function checkBindNames(sql: string, names: string[]): void {
  const keyword = firstKeyword(sql);
  const occurrences = DDL_KEYWORDS.has(keyword) ? [] : placeholderList(sql);
  const distinct = new Set(occurrences);
  const statementBinds = PLSQL_KEYWORDS.has(keyword) ? distinct.size : occurrences.length;
  if (statementBinds !== names.length && distinct.size !== names.length)
    throw driverError(
      'NJS-098',
      `${statementBinds} bind placeholders were used in the SQL statement but ${names.length} bind values were provided`,
    );
  for (const name of names) {
    if (!distinct.has(name.toLowerCase()))
      throw driverError('NJS-097', `no bind placeholder named ":${name.toUpperCase()}" was found in the statement text`);
  }
}

/**
 * Thrown by a script for a call that waits for another session (a key it inserted and has not
 * committed): the call ends only by its call timeout, as thin mode ends it
 * (lib/thin/protocol/protocol.js _processMessage: the timer sends a break, the server's answer,
 * ORA-01013, is read, then NJS-123 is thrown with the connection still connected). Without a
 * call timeout the call would wait for ever: the connection throws, so that the test fails
 * instead of hanging.
 */
export class WaitsForAnotherSession extends Error {}

export type Call =
  | { kind: 'execute'; conn: number; sql: string; binds: OraBinds; options: OraExecuteOptions; fetched: number; callTimeout: number }
  | { kind: 'executeMany'; conn: number; sql: string; binds: OraBinds[]; options: OraExecuteManyOptions; callTimeout: number }
  | { kind: 'getRows'; conn: number; numRows: number }
  | { kind: 'closeResultSet'; conn: number }
  | { kind: 'commit'; conn: number }
  | { kind: 'rollback'; conn: number }
  | { kind: 'close'; conn: number }
  | { kind: 'destroy'; conn: number }
  | { kind: 'break'; conn: number };

export interface Script {
  /** Answer an execute(); default: no rows. */
  execute?(sql: string, binds: OraBinds, options: OraExecuteOptions, conn: number): OraExecuteResult | Promise<OraExecuteResult>;
  /** Answer an executeMany() that passed the client-side checks; default: no batch errors. */
  executeMany?(
    sql: string,
    binds: OraBinds[],
    options: OraExecuteManyOptions,
    conn: number,
  ): OraExecuteManyResult | Promise<OraExecuteManyResult>;
  /** Rows served by a result set (claim); `conn` and `options` let a script model who locks what. */
  resultSetRows?(sql: string, binds: OraBinds, options: OraExecuteOptions, conn: number): unknown[];
  commit?(conn: number): void;
  rollback?(conn: number): void;
  /** The session settings sent first on connection `conn` (default: accepted); may throw. */
  sessionSettings?(conn: number): void | Promise<void>;
  /** The logoff of close() on connection `conn` (default: at once); may never settle (a dead path). */
  close?(conn: number): void | Promise<void>;
}

/** Thin mode's default (lib/settings.js). */
const DEFAULT_PREFETCH_ROWS = 2;

export class RecordingConnection implements OraConnection {
  callTimeout = 0;
  /** Set false by a test: the socket died (isHealthy() reads it). */
  healthy = true;
  private closed = false;
  /** Ends a close() still waiting for its logoff (destroy). */
  private endPendingClose: (() => void) | undefined;
  /** destroy() was called: the socket is gone. */
  destroyed = false;
  /** DML sent since the last commit or rollback (thin mode's protocol.txnInProgress). */
  private txnInProgress = false;
  /** A statement was sent on this connection (the session settings count only when first). */
  private sentAny = false;

  constructor(
    private readonly db: RecordingDatabase,
    readonly id: number,
    private readonly pool?: RecordingPool,
  ) {}

  private open(): void {
    if (this.closed) throw driverError('NJS-003', 'invalid or closed connection');
  }

  isHealthy(): boolean {
    return !this.closed && this.healthy;
  }

  /** thin mode's nscon.forceDisconnect(): the socket is gone, a pending close() ends, the session ends. */
  destroy(): void {
    this.destroyed = true;
    this.closed = true;
    this.healthy = false;
    this.db.record({ kind: 'destroy', conn: this.id });
    this.db.ended.add(this.id);
    this.endPendingClose?.();
  }

  /** connection.break(): recorded (what the server then does to a running call is not modelled). */
  async break(): Promise<void> {
    this.db.record({ kind: 'break', conn: this.id });
  }

  async execute(sql: string, binds: OraBinds, options: OraExecuteOptions): Promise<OraExecuteResult> {
    this.open();
    const call: Extract<Call, { kind: 'execute' }> = {
      kind: 'execute',
      conn: this.id,
      sql,
      binds,
      options,
      fetched: 0,
      callTimeout: this.callTimeout,
    };
    const openingSettings = !this.sentAny && sql === oracleQuery('session_settings');
    this.db.record(call, openingSettings);
    this.sentAny = true;
    if (openingSettings) {
      checkBindNames(sql, Object.keys(binds));
      await this.db.script.sessionSettings?.(this.id);
      return {};
    }
    checkBindNames(sql, Object.keys(binds));
    if (DML_KEYWORDS.has(firstKeyword(sql))) this.txnInProgress = true;
    const script = this.db.script;
    if (options.resultSet === true) {
      const rows = script.resultSetRows?.(sql, binds, options, this.id) ?? [];
      // the execute round trip fetches prefetchRows rows into the result set's buffer
      let fetched = Math.min(rows.length, options.prefetchRows ?? DEFAULT_PREFETCH_ROWS);
      let served = 0;
      call.fetched = fetched;
      const db = this.db;
      const conn = this.id;
      return {
        resultSet: {
          async getRows(numRows: number) {
            db.record({ kind: 'getRows', conn, numRows });
            const buffered = fetched - served;
            if (numRows > buffered) fetched = Math.min(rows.length, fetched + (numRows - buffered));
            call.fetched = fetched;
            const out = rows.slice(served, Math.min(served + numRows, fetched));
            served += out.length;
            return out;
          },
          async close() {
            db.record({ kind: 'closeResultSet', conn });
          },
        },
      };
    }
    const result = (await this.waited(() => script.execute?.(sql, binds, options, this.id))) ?? { rows: [] };
    if (result.rows !== undefined) {
      // lib/resultset.js _getAllRows: round trips of fetchArraySize rows until a short one, or
      // until maxRows (0: no limit): every row of the cursor, or the first maxRows
      const maxRows = options.maxRows ?? 0;
      const rows = maxRows > 0 ? result.rows.slice(0, maxRows) : result.rows;
      call.fetched = rows.length;
      return { ...result, rows };
    }
    return result;
  }

  async executeMany(sql: string, binds: OraBinds[], options: OraExecuteManyOptions): Promise<OraExecuteManyResult> {
    this.open();
    this.db.record({ kind: 'executeMany', conn: this.id, sql, binds, options, callTimeout: this.callTimeout });
    this.sentAny = true;
    if (!Array.isArray(binds) || binds.length === 0) throw driverError('NJS-005', 'invalid value for parameter 2');
    const defs = options.bindDefs;
    // lib/connection.js _processBindUnit: the bindDefs first, before any row
    for (const [name, def] of Object.entries<OraBindDef>(defs)) {
      if (def.type === DB.DB_TYPE_VARCHAR && def.maxSize === undefined)
        throw driverError('NJS-057', `maxSize for bind "${name}" must be specified and greater than zero`);
    }
    binds.forEach((row, index) => {
      for (const [name, def] of Object.entries<OraBindDef>(defs)) {
        const value = row[name];
        if (value === null || value === undefined) continue;
        if (typeof value === 'string') {
          if (def.type !== DB.DB_TYPE_VARCHAR && def.type !== DB.DB_TYPE_CLOB)
            throw driverError('NJS-011', 'encountered bind value and type mismatch');
          const length = Buffer.byteLength(value);
          if (def.type === DB.DB_TYPE_VARCHAR && def.maxSize !== undefined && length > def.maxSize) {
            throw driverError('NJS-058', `maxSize of ${def.maxSize} is too small for value of length ${length} in row ${index}`);
          }
        } else if (typeof value === 'number') {
          if (def.type !== DB.DB_TYPE_NUMBER) throw driverError('NJS-011', 'encountered bind value and type mismatch');
        } else {
          throw driverError('NJS-011', 'encountered bind value and type mismatch');
        }
      }
    });
    // lib/thin/connection.js _getExecuteMessage
    const keyword = firstKeyword(sql);
    if (keyword === 'SELECT' || keyword === 'WITH')
      throw driverError('NJS-157', 'executeMany() cannot be used with SELECT statement or WITH SQL clause');
    checkBindNames(sql, Object.keys(defs));
    if (PLSQL_KEYWORDS.has(keyword) && options.batchErrors === true) {
      throw driverError('NJS-095', 'setting "batchErrors" or "dmlRowCounts" to true is only permitted for DML statements');
    }
    if (DML_KEYWORDS.has(keyword)) this.txnInProgress = true;
    const outNames = Object.entries<OraBindDef>(defs)
      .filter(([, def]) => def.dir === constants.BIND_OUT)
      .map(([name]) => name);
    const answer = (await this.waited(() => this.db.script.executeMany?.(sql, binds, options, this.id))) ?? {
      rowsAffected: binds.length,
      ...(options.batchErrors === true ? { batchErrors: [] } : {}),
    };
    // PL/SQL with OUT binds: one object of OUT values per iteration (null unless the script answers)
    if (PLSQL_KEYWORDS.has(keyword) && outNames.length > 0 && answer.outBinds === undefined) {
      return { ...answer, outBinds: binds.map(() => Object.fromEntries(outNames.map((name) => [name, null]))) };
    }
    return answer;
  }

  /** A script's answer; a WaitsForAnotherSession ends as the call timeout ends it (see there). */
  private async waited<T>(answer: () => T | Promise<T>): Promise<T> {
    try {
      return await answer();
    } catch (error) {
      if (!(error instanceof WaitsForAnotherSession)) throw error;
      if (!(this.callTimeout > 0))
        throw new Error(`recording connection ${this.id}: the call waits for another session for ever (no call timeout)`, { cause: error });
      throw driverError('NJS-123', `call timeout of ${this.callTimeout} ms exceeded`);
    }
  }

  async commit(): Promise<void> {
    this.open();
    this.db.record({ kind: 'commit', conn: this.id });
    this.txnInProgress = false;
    this.db.script.commit?.(this.id);
  }

  async rollback(): Promise<void> {
    this.open();
    this.db.record({ kind: 'rollback', conn: this.id });
    this.txnInProgress = false;
    this.db.script.rollback?.(this.id);
  }

  /** Options are accepted and ignored, as thin mode ignores them (see the file comment). */
  async close(..._ignored: unknown[]): Promise<void> {
    this.open();
    this.db.record({ kind: 'close', conn: this.id });
    // lib/thin/connection.js close(): a transaction in progress is rolled back first
    if (this.txnInProgress) this.db.rolledBackAtClose.push(this.id);
    this.txnInProgress = false;
    this.closed = true;
    const logoff = this.db.script.close?.(this.id);
    if (logoff !== undefined && !this.destroyed) {
      await Promise.race([logoff.catch(() => undefined), new Promise<void>((resolve) => (this.endPendingClose = resolve))]);
    }
    // lib/thin/pool.js release(): only a connected, healthy session goes back on the free list
    if (this.pool !== undefined && this.healthy) this.pool.release(this.id);
    else this.db.ended.add(this.id);
  }
}

/** The database as standalone connections see it; also the factory of a pool over it. */
export class RecordingDatabase {
  /** Every call, in order. */
  readonly log: Call[] = [];
  /** Every call but the session settings sent first on a connection (see the file comment). */
  readonly calls: Call[] = [];
  /** Connections whose close() rolled back DML never committed (thin close: txnInProgress). */
  readonly rolledBackAtClose: number[] = [];
  /** Sessions ended (standalone connections closed; pooled ones whose socket died). */
  readonly ended = new Set<number>();
  private next = 1;

  constructor(public script: Script = {}) {}

  record(call: Call, openingSettings = false): void {
    this.log.push(call);
    if (!openingSettings) this.calls.push(call);
  }

  /** oracledb.getConnection(): a new session. */
  async getConnection(): Promise<RecordingConnection> {
    return new RecordingConnection(this, this.newSession());
  }

  newSession(): number {
    return this.next++;
  }

  /** Sessions opened so far. */
  sessions(): number {
    return this.next - 1;
  }

  createPool(): RecordingPool {
    return new RecordingPool(this);
  }

  executeManyCalls(): Extract<Call, { kind: 'executeMany' }>[] {
    return this.calls.filter((c): c is Extract<Call, { kind: 'executeMany' }> => c.kind === 'executeMany');
  }

  /** A compact trace: "conn:kind:first words of the SQL". */
  trace(): string[] {
    return this.calls.map((c) => {
      if (c.kind === 'execute' || c.kind === 'executeMany') {
        const head = c.sql.replace(/\s+/g, ' ').split(' ').slice(0, 3).join(' ');
        return `${c.conn}:${c.kind}:${head}`;
      }
      return `${c.conn}:${c.kind}`;
    });
  }
}

/** A thin-mode pool over the recording database (see the file comment). */
export class RecordingPool implements OraPool {
  private readonly free: number[] = [];
  closed = false;

  constructor(private readonly db: RecordingDatabase) {}

  async getConnection(): Promise<RecordingConnection> {
    const session = this.free.pop() ?? this.db.newSession();
    return new RecordingConnection(this.db, session, this);
  }

  release(session: number): void {
    this.free.push(session);
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** Every object the bookkeeping tables and the migrations create: a dictionary where all is well. */
export function everyObject(): SchemaObject[] {
  const bootstrap = splitStatements(readSql('oracle', 'queries/migration_bootstrap.sql'));
  const migrations = listMigrations('oracle').flatMap((m) => splitStatements(m.sql));
  return [...bootstrap, ...migrations].flatMap(objectsCreatedBy);
}

/** The rows of queries/schema_objects.sql for the table bound, from a list of objects. */
export function catalogRows(objects: readonly SchemaObject[], binds: OraBinds): Record<string, unknown>[] {
  const table = (binds.table_name as { val: unknown }).val;
  return objects
    .filter((o) => o.table === table)
    .map((o) => ({ KIND: o.kind, NAME: o.name, DETAIL: objectDetail(o) === '' ? null : objectDetail(o) }));
}
