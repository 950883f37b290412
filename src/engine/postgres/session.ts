/**
 * The two ways we reach PostgreSQL (node-postgres for a server, PGlite embedded) behind one
 * tiny connection interface, so that the PostgreSQL engine is written once.
 */
export interface PgQueryResult<R> {
  rows: R[];
  affectedRows: number;
}

export interface PgSession {
  /** One statement with $n parameters (extended protocol). */
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<PgQueryResult<R>>;
  /** Several statements, no parameters (migrations, BEGIN/COMMIT). */
  exec(text: string): Promise<void>;
  /**
   * `COPY … FROM STDIN` (text format) with `data` as its input; resolves with the rows copied.
   * Absent where the connection cannot do it (the statement then goes another way).
   */
  copyFrom?(copyStatement: string, data: string): Promise<number>;
}

export interface PgLease {
  session: PgSession;
  /** Return the connection; with an error, the connection is discarded, not reused. */
  release(error?: Error): void;
}

export interface PgConnector {
  readonly kind: 'pglite' | 'postgres';
  /** Several leases can be held at once (a server pool); PGlite has one connection. */
  readonly concurrent: boolean;
  acquire(): Promise<PgLease>;
  /** Schema for unqualified names on every connection from now on (null: the default path). */
  setSearchPath(schema: string | null): Promise<void>;
  /**
   * A connection of its own, outside the pool (its release closes it): what holds a bench
   * workspace's session lock for as long as the workspace lives, without taking a worker's
   * connection. None for PGlite (one connection, one process: src/engine/folder-lock.ts).
   */
  dedicated?(): Promise<PgLease>;
  /** Cancel the statement running on each connection now out on lease (none for PGlite: in-process). */
  cancelRunning?(): Promise<void>;
  end(): Promise<void>;
}
