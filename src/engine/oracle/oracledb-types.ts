/**
 * The small part of node-oracledb (26.0, thin mode) that the Oracle engine uses, as types of
 * our own. The engine is written against these interfaces so that tests can inject a
 * recording pool/connection; only `loadOracledb()` touches the real package.
 */

/** A bind definition for executeMany (`bindDefs`) or an OUT bind of execute. */
export interface OraBindDef {
  type: unknown;
  maxSize?: number;
  dir?: number;
}

export type OraBinds = Record<string, unknown>;

/** An entry of `result.batchErrors`. Thin mode sets `offset` and `message`, not `errorNum`. */
export interface OraBatchError {
  offset: number;
  message: string;
  errorNum?: number;
  code?: string;
}

export interface OraExecuteManyOptions {
  autoCommit: false;
  batchErrors?: boolean;
  bindDefs: Record<string, OraBindDef>;
}

export interface OraExecuteManyResult {
  rowsAffected?: number;
  batchErrors?: OraBatchError[];
  /** One object per iteration with its OUT binds by name (PL/SQL with OUT bindDefs). */
  outBinds?: unknown[];
}

export interface OraColumnMeta {
  name: string;
  dbType?: unknown;
}

export interface OraFetchTypeResult {
  type: unknown;
}

export interface OraExecuteOptions {
  autoCommit: false;
  outFormat?: number;
  fetchTypeHandler?: (meta: OraColumnMeta) => OraFetchTypeResult | undefined;
  resultSet?: boolean;
  fetchArraySize?: number;
  prefetchRows?: number;
  maxRows?: number;
}

export interface OraResultSet {
  getRows(numRows: number): Promise<unknown[]>;
  close(): Promise<void>;
}

export interface OraExecuteResult {
  rows?: unknown[];
  rowsAffected?: number;
  resultSet?: OraResultSet;
  outBinds?: unknown;
}

export interface OraConnection {
  execute(sql: string, binds: OraBinds, options: OraExecuteOptions): Promise<OraExecuteResult>;
  executeMany(sql: string, binds: OraBinds[], options: OraExecuteManyOptions): Promise<OraExecuteManyResult>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  /**
   * A standalone connection: log off and close the socket. A pooled one goes back to its
   * pool; thin mode takes no option here (`{ drop: true }` is validated by the public layer and
   * then ignored: lib/thin/connection.js close() has no parameter), so a pooled connection
   * cannot be dropped by its user.
   */
  close(): Promise<void>;
  /**
   * Interrupt the call running on this connection (node-oracledb's connection.break(): thin
   * mode sends a break marker, lib/thin/connection.js breakExecution, and the server ends the
   * call with ORA-01013). Nothing running: nothing happens.
   */
  break?(): Promise<void>;
  /** Milliseconds a round trip may take before the driver breaks it with NJS-123 (0: none). */
  callTimeout?: number;
  /** False when the socket is known to be dead (a true answer says nothing about the session). */
  isHealthy?(): boolean;
  /**
   * Destroy the socket at once, without a logoff (for a close() that hangs on a dead network
   * path): a close() still pending then ends. Absent where the driver offers no way to.
   */
  destroy?(): void;
}

/**
 * `destroy` for a node-oracledb thin connection: its network session's forceDisconnect()
 * (lib/thin/sqlnet/networkSession.js: destroys the socket; thin mode's own pool does the same
 * to a hung connection, lib/thin/pool.js). The pending close()'s read then fails, and close()
 * ends without throwing (lib/thin/connection.js close: catch, disconnect NSFIMM). A private
 * member: absent (a driver without it), `destroy` does nothing and the caller keeps waiting for
 * the close.
 */
export function withDestroy<C extends OraConnection>(connection: C): C {
  const nscon = (connection as unknown as { _impl?: { nscon?: { forceDisconnect?: () => void } } })._impl?.nscon;
  if (typeof nscon?.forceDisconnect !== 'function') return connection;
  return Object.assign(connection, { destroy: () => nscon.forceDisconnect?.() });
}

/** Where the engine gets its connections: standalone ones (oracledb.getConnection). */
export interface OraConnector {
  getConnection(): Promise<OraConnection>;
}

/** A node-oracledb pool (the integration tests' helpers use one; the engine does not). */
export interface OraPool {
  getConnection(): Promise<OraConnection>;
  close(drainTime?: number): Promise<void>;
}

/** The driver constants the engine needs (oracledb.DB_TYPE_*, BIND_OUT, OUT_FORMAT_OBJECT). */
export interface OraConstants {
  DB_TYPE_NUMBER: unknown;
  DB_TYPE_VARCHAR: unknown;
  DB_TYPE_CLOB: unknown;
  DB_TYPE_DATE: unknown;
  BIND_OUT: number;
  OUT_FORMAT_OBJECT: number;
}

/** What oracledb.getConnection() and createPool() both take: who, where, and how to reach it. */
export interface OraConnectAttributes {
  /** A tnsnames.ora folder, a PEM wallet and its passphrase (src/engine/oracle/connect-options.ts). */
  configDir?: string;
  walletLocation?: string;
  walletPassword?: string;
  user: string;
  password: string;
  connectString: string;
  stmtCacheSize: number;
}

export interface OraPoolAttributes extends OraConnectAttributes {
  poolMin: number;
  poolMax: number;
  poolIncrement: number;
  poolTimeout: number;
  queueTimeout: number;
}

/** oracledb.getConnection() attributes of a standalone connection. */
export interface OraConnectionAttributes extends OraConnectAttributes {
  /** Minutes between TCP keepalive probes; thin mode turns keepalive on only when it is set. */
  expireTime?: number;
}

export interface OraModule extends OraConstants {
  getConnection(attributes: OraConnectionAttributes): Promise<OraConnection>;
  createPool(attributes: OraPoolAttributes): Promise<OraPool>;
  readonly thin: boolean;
}

/**
 * Load node-oracledb. Thin mode is the default of node-oracledb (6 and later) as long as
 * initOracleClient() is never called, and this code never calls it: no Instant Client.
 * The package ships no TypeScript types; the specifier is held in a variable so that the
 * compiler does not look for them, and the module is checked for what we use.
 */
export async function loadOracledb(): Promise<OraModule> {
  const specifier = 'oracledb';
  const imported: unknown = await import(specifier);
  const mod = (imported as { default?: unknown }).default ?? imported;
  const candidate = mod as Partial<OraModule>;
  if (
    typeof candidate.getConnection !== 'function' ||
    typeof candidate.createPool !== 'function' ||
    candidate.DB_TYPE_NUMBER === undefined
  ) {
    throw new Error('order-loader: the installed oracledb package is not usable (getConnection missing)');
  }
  return mod as OraModule;
}
