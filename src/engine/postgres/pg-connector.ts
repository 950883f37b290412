import pg from 'pg';
import type { PgConnector, PgLease, PgSession } from './session.js';
import { postgresConnectionString } from '../db-url.js';

const { Pool, types } = pg;

/** bigint → number (our ids stay far below 2^53), numeric → text, date → 'YYYY-MM-DD' text. */
const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
    if (oid === 20) return (value: string) => Number(value);
    if (oid === 1082) return (value: string) => value;
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
    return new Promise<void>((resolve, reject) => connect((error) => {
      done(error);
      if (error !== undefined && error !== null) reject(error);
      else resolve();
    }));
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
  constructor(private readonly client: pg.PoolClient) {}
  async query<R>(text: string, params?: readonly unknown[]) {
    const result = await this.client.query({ text, values: params as unknown[] | undefined, types: typeParsers });
    return { rows: result.rows as R[], affectedRows: result.rowCount ?? 0 };
  }
  async exec(text: string): Promise<void> {
    await this.client.query(text);
  }
}

export function createPgServerConnector(options: PgServerOptions): PgConnector {
  const pool = new Pool({
    // The password goes into the connection string: given as the `password` option, node-postgres
    // let the URL's empty password override it ("client password must be a string").
    connectionString: postgresConnectionString(options.connectionString, options.password),
    Client: ClosingClient as unknown as typeof pg.Client,
    max: options.maxConnections,
    application_name: options.applicationName ?? 'order-loader',
    connectionTimeoutMillis: 10_000,
  });
  // An idle client that loses its connection emits 'error' on the pool; without a listener
  // Node would crash the process. The next acquire() gets a fresh connection.
  pool.on('error', () => {});
  let searchPath: string | null = null;
  const pathOf = new WeakMap<pg.PoolClient, string | null>();
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
      return {
        session: new PgClientSession(client),
        release: (error?: Error) => {
          client.off('error', onError);
          client.release(error ?? false);
        },
      };
    },
    async setSearchPath(schema: string | null) {
      searchPath = schema;
    },
    async end() {
      await pool.end();
    },
  };
}
