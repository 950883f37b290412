import { connect } from 'node:net';
import pg from 'pg';
import type { PgConnector, PgLease, PgSession } from './session.js';
import { postgresConnectionString } from '../db-url.js';

const { Pool, types } = pg;

/** bigint → number (our ids stay far below 2^53), numeric → text, date → 'YYYY-MM-DD' text. */
const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
    if (oid === 20) return (value: string) => Number(value);
    if (oid === 1082) return (value: string) => value;
    // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- any OID the server sends, not only the enum's
    return types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
  },
};

/**
 * A client that closes its socket when connecting fails. node-postgres drops such a client
 * without ending it: after a failed authentication the socket stayed open until the server gave
 * up (authentication_timeout, 60 s), and the process with it.
 */
function ClosingClient(config: pg.ClientConfig): pg.Client {
  const client = new pg.Client(config);
  const connect = client.connect.bind(client) as (callback: (error: Error | undefined) => void) => void;
  (client as unknown as { connect: (callback?: (error: Error | undefined) => void) => unknown }).connect = (callback) => {
    const done = (error: Error | undefined) => {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- node-postgres passes null, not undefined, on success
      if (error !== undefined && error !== null) {
        const stream = (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
        stream?.destroy();
      }
    };
    if (callback !== undefined) {
      connect((error) => {
        done(error);
        callback(error);
      });
      return undefined;
    }
    return new Promise<void>((resolve, reject) =>
      connect((error) => {
        done(error);
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- null on success (see above)
        if (error !== undefined && error !== null) reject(error);
        else resolve();
      }),
    );
  };
  return client;
}

export interface PgServerOptions {
  connectionString: string;
  password?: string | undefined;
  maxConnections: number;
  applicationName?: string;
}

class PgClientSession implements PgSession {
  constructor(private readonly client: pg.ClientBase) {}
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- PgSession's signature: the caller names the row type
  async query<R>(text: string, params?: readonly unknown[]) {
    const result = await this.client.query({ text, values: params as unknown[] | undefined, types: typeParsers });
    return { rows: result.rows as R[], affectedRows: result.rowCount ?? 0 };
  }
  async exec(text: string): Promise<void> {
    await this.client.query(text);
  }
  copyFrom(copyStatement: string, data: string): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      void this.client.query(new CopyFromStdin(copyStatement, Buffer.from(data, 'utf8'), resolve, reject) as unknown as pg.QueryConfig);
    });
  }
}

/** The part of node-postgres's Connection a submittable query talks to (not in @types/pg). */
interface PgWire {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

/**
 * `COPY … FROM STDIN` on node-postgres, which has no COPY of its own: a "submittable" (an
 * object with `submit(connection)`, which Client#query queues like any query and then hands the
 * protocol events of its turn) that sends the statement as a simple query, answers the server's
 * CopyInResponse with the whole input as one CopyData message and CopyDone, and settles on
 * CommandComplete + ReadyForQuery or on the ErrorResponse (the server's error, SQLSTATE in
 * `code`, as for any query). What pg-copy-streams does for a stream, for a buffer we already
 * hold: a batch is at most a few hundred kilobytes, so no dependency for it. A lost connection
 * reaches handleError through the client like any active query's.
 */
class CopyFromStdin {
  private copied = 0;
  private settled = false;
  constructor(
    private readonly text: string,
    private readonly data: Buffer,
    private readonly resolve: (rows: number) => void,
    private readonly reject: (error: unknown) => void,
  ) {}
  submit(connection: PgWire): void {
    connection.query(this.text);
  }
  handleCopyInResponse(connection: PgWire): void {
    if (this.data.length > 0) connection.sendCopyFromChunk(this.data);
    connection.endCopyFrom();
  }
  handleCommandComplete(message: { text?: string }): void {
    // "COPY <n>"
    const n = Number(/^COPY (\d+)/.exec(message.text ?? '')?.[1]);
    this.copied = Number.isFinite(n) ? n : 0;
  }
  handleReadyForQuery(): void {
    if (this.settled) return;
    this.settled = true;
    this.resolve(this.copied);
  }
  handleError(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(error);
  }
  // not sent in answer to COPY FROM STDIN; present because the client may call them
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
}

/**
 * The backend key node-postgres reads from BackendKeyData at connect (Client#processID and
 * #secretKey: set at run time, not in @types/pg). Null until the connection is established.
 */
interface BackendKey {
  processID: number | null;
  secretKey: number | null;
}

const CANCEL_REQUEST_CODE = 80877102;

/**
 * A protocol CancelRequest for one backend, on a connection of its own (what psql sends on
 * Ctrl-C): no authentication, so it works when every connection slot is taken. The server
 * reads the 16 bytes and closes the connection; resolves then, on error, or after `timeoutMs`.
 */
function sendCancelRequest(host: string, port: number, key: BackendKey, timeoutMs: number): Promise<void> {
  const { processID, secretKey } = key;
  if (processID === null || secretKey === null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const socket = host.startsWith('/') ? connect({ path: `${host}/.s.PGSQL.${port}` }) : connect({ host, port });
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('connect', () => {
      const packet = Buffer.alloc(16);
      packet.writeInt32BE(16, 0);
      packet.writeInt32BE(CANCEL_REQUEST_CODE, 4);
      packet.writeInt32BE(processID, 8);
      packet.writeInt32BE(secretKey, 12);
      socket.end(packet);
    });
    // best effort: the process is about to exit; a failed cancel leaves what exiting leaves
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export function createPgServerConnector(options: PgServerOptions): PgConnector {
  const clientConfig = {
    // The password goes into the connection string: given as the `password` option, node-postgres
    // let the URL's empty password override it ("client password must be a string").
    connectionString: postgresConnectionString(options.connectionString, options.password),
    application_name: options.applicationName ?? 'order-loader',
    connectionTimeoutMillis: 10_000,
  };
  const pool = new Pool({ ...clientConfig, Client: ClosingClient as unknown as typeof pg.Client, max: options.maxConnections });
  // An idle client that loses its connection emits 'error' on the pool; without a listener
  // Node would crash the process. The next acquire() gets a fresh connection.
  pool.on('error', () => {});
  let searchPath: string | null = null;
  const pathOf = new WeakMap<pg.PoolClient, string | null>();
  // the connections out on lease: the only ones that can be running a statement
  const leased = new Set<pg.PoolClient>();
  return {
    kind: 'postgres',
    concurrent: true,
    async acquire(): Promise<PgLease> {
      const client = await pool.connect();
      if ((pathOf.get(client) ?? null) !== searchPath) {
        try {
          await client.query(searchPath === null ? 'RESET search_path' : `SET search_path TO ${searchPath}`);
          pathOf.set(client, searchPath);
        } catch (error) {
          client.release(error as Error);
          throw error;
        }
      }
      // A checked-out client whose connection drops emits 'error'; the pool listens only while
      // it is idle, and an unheard 'error' kills the process. The failing query reports it.
      const onError = () => {};
      client.on('error', onError);
      leased.add(client);
      return {
        session: new PgClientSession(client),
        release: (error?: Error) => {
          leased.delete(client);
          client.off('error', onError);
          client.release(error ?? false);
        },
      };
    },
    async dedicated(): Promise<PgLease> {
      const client = ClosingClient(clientConfig);
      // as a leased client: a dropped connection is reported by the next query, not by a crash
      client.on('error', () => {});
      await client.connect();
      return {
        session: new PgClientSession(client),
        release: () => {
          // ending the connection ends its session and what it holds; nothing waits on it
          client.end().catch(() => undefined);
        },
      };
    },
    async cancelRunning() {
      // A cancel reaching an idle backend is ignored by the server, so every leased one is sent one.
      await Promise.all(
        [...leased].map((client) => {
          const c = client as pg.PoolClient & BackendKey & { host: string; port: number };
          return sendCancelRequest(c.host, c.port, c, 2000);
        }),
      );
    },
    setSearchPath(schema: string | null) {
      searchPath = schema;
      return Promise.resolve();
    },
    async end() {
      await pool.end();
    },
  };
}
