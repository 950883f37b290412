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

/** Run `work` on one short-lived admin connection. */
export async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
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
export async function createDatabase(adminUrl: string, name: string, options: CreateDatabaseOptions = {}): Promise<string> {
  const db = checkedName(name);
  const template = options.template === undefined ? '' : ` TEMPLATE ${checkedName(options.template)}`;
  await withAdmin(adminUrl, async (client) => {
    if (options.replace === true) await client.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${db}${template}`);
  });
  return databaseUrl(adminUrl, db);
}

/** Drop a database, closing the sessions still on it. */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const db = checkedName(name);
  await withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`));
}

/** Names of the databases that start with `prefix` (leftovers of killed runs). */
export async function databasesNamed(adminUrl: string, prefix: string): Promise<string[]> {
  const { rows } = await withAdmin(adminUrl, (client) =>
    client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname', [prefix]),
  );
  return rows.map((r) => r.datname);
}
