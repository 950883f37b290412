/**
 * Creating and dropping PostgreSQL databases on a server we are given an admin URL for: the
 * one place the tests, the survival harness and the benchmarks do it. Names are spelled into
 * DDL (CREATE DATABASE takes no parameters), so only plain lower-case identifiers get there.
 */
import pg from 'pg';

const DATABASE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function checkedName(name: string): string {
  if (!DATABASE_NAME.test(name)) throw new Error(`refusing database name ${JSON.stringify(name)}`);
  return name;
}

/** The same server URL with another database name in it. */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${checkedName(name)}`;
  return url.toString();
}

/**
 * Where admin statements go: a URL (one short-lived connection per call), or a kept admin
 * connection (adminPool) for a caller that creates and drops many databases: each new server
 * session costs the server a process and its first catalog reads.
 */
export type AdminServer = string | AdminPool;

export interface AdminPool {
  url: string;
  pool: pg.Pool;
}

/** One admin connection kept between calls; an idle one does not keep the process alive. */
export function adminPool(url: string): AdminPool {
  const pool = new pg.Pool({ connectionString: url, max: 1, idleTimeoutMillis: 60_000, allowExitOnIdle: true });
  pool.on('error', () => undefined); // an idle connection lost (a server restart): the next call connects again
  return { url, pool };
}

/**
 * A client checked out of `pool`, given back with `release(broken)`. Checked out, a client has no
 * 'error' listener of the pool's: a connection lost meanwhile would be an uncaught error in the
 * process, so it gets one of its own until it is given back (the query in progress rejects anyway).
 */
export async function checkOut(pool: pg.Pool): Promise<{ client: pg.PoolClient; release(broken: boolean): void }> {
  const client = await pool.connect();
  const ignore = () => undefined;
  client.on('error', ignore);
  return {
    client,
    release(broken) {
      client.off('error', ignore);
      client.release(broken);
    },
  };
}

/** Run `work` on one admin connection: a short-lived one for a URL, else the pool's. */
export async function withAdmin<T>(admin: AdminServer, work: (client: pg.ClientBase) => Promise<T>): Promise<T> {
  if (typeof admin !== 'string') {
    const pooled = await checkOut(admin.pool);
    let broken = false;
    try {
      return await work(pooled.client);
    } catch (error) {
      // a statement the server refused leaves the connection usable; a FATAL ends it, as does anything else
      broken = !(error instanceof pg.DatabaseError) || error.severity === 'FATAL' || error.severity === 'PANIC';
      throw error;
    } finally {
      pooled.release(broken);
    }
  }
  const client = new pg.Client({ connectionString: admin });
  client.on('error', () => undefined); // a server restart under a test: the query rejects anyway
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface CreateDatabaseOptions {
  /** Copy this database (CREATE DATABASE … TEMPLATE). */
  template?: string | undefined;
  /** Drop a database of that name first (a leftover of a killed run). */
  replace?: boolean | undefined;
}

/** Create a database; returns its URL. */
export async function createDatabase(admin: AdminServer, name: string, options: CreateDatabaseOptions = {}): Promise<string> {
  const db = checkedName(name);
  const template = options.template === undefined ? '' : ` TEMPLATE ${checkedName(options.template)}`;
  await withAdmin(admin, async (client) => {
    if (options.replace === true) await client.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${db}${template}`);
  });
  return databaseUrl(typeof admin === 'string' ? admin : admin.url, db);
}

/** Drop a database, closing the sessions still on it. */
export async function dropDatabase(admin: AdminServer, name: string): Promise<void> {
  const db = checkedName(name);
  await withAdmin(admin, (client) => client.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`));
}

/** Names of the databases that start with `prefix` (leftovers of killed runs). */
export async function databasesNamed(adminUrl: string, prefix: string): Promise<string[]> {
  const { rows } = await withAdmin(adminUrl, (client) =>
    client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname', [prefix]),
  );
  return rows.map((r) => r.datname);
}
