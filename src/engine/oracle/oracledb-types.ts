/**
 * The small part of node-oracledb (6.x, thin mode) that the Oracle engine uses, as types of
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
  /** Back to the pool; `{ drop: true }` closes it for good (a broken connection). */
  close(options?: { drop?: boolean }): Promise<void>;
}

export interface OraPool {
  getConnection(): Promise<OraConnection>;
  close(drainTime?: number): Promise<void>;
}

/** The driver constants the engine needs (oracledb.DB_TYPE_*, BIND_OUT, OUT_FORMAT_OBJECT). */
export interface OraConstants {
  DB_TYPE_NUMBER: unknown;
  DB_TYPE_VARCHAR: unknown;
  DB_TYPE_CLOB: unknown;
  BIND_OUT: number;
  OUT_FORMAT_OBJECT: number;
}

export interface OraPoolAttributes {
  user: string;
  password: string;
  connectString: string;
  poolMin: number;
  poolMax: number;
  poolIncrement: number;
  poolTimeout: number;
  queueTimeout: number;
  stmtCacheSize: number;
}

export interface OraModule extends OraConstants {
  createPool(attributes: OraPoolAttributes): Promise<OraPool>;
  readonly thin: boolean;
}

/**
 * Load node-oracledb. Thin mode is the default of node-oracledb 6 as long as
 * initOracleClient() is never called, and this code never calls it: no Instant Client.
 * The package ships no TypeScript types; the specifier is held in a variable so that the
 * compiler does not look for them, and the module is checked for what we use.
 */
export async function loadOracledb(): Promise<OraModule> {
  const specifier = 'oracledb';
  const imported: unknown = await import(specifier);
  const mod = (imported as { default?: unknown }).default ?? imported;
  const candidate = mod as Partial<OraModule>;
  if (typeof candidate.createPool !== 'function' || candidate.DB_TYPE_NUMBER === undefined) {
    throw new Error('order-loader: the installed oracledb package is not usable (createPool missing)');
  }
  return mod as OraModule;
}
