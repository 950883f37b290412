import { UserError } from '../errors.js';

export type DbTarget =
  | { kind: 'pglite'; dataDir: string | null }
  | { kind: 'postgres'; url: string; password: string | undefined }
  | { kind: 'oracle'; user: string; password: string | undefined; connectString: string };

export const DEFAULT_DB = 'pglite:./.order-loader/db';

/**
 * Parse a --db value. Accepted: `pglite:<dir>`, `pglite:memory`, `postgres://…`,
 * `postgresql://…`, `oracle://user[:password]@host[:port]/service`. A password may also come
 * from ORDER_LOADER_DB_PASSWORD (preferred: it stays out of the process list).
 */
export function parseDbUrl(value: string, env: NodeJS.ProcessEnv = process.env): DbTarget {
  const envPassword = env.ORDER_LOADER_DB_PASSWORD !== undefined && env.ORDER_LOADER_DB_PASSWORD !== '' ? env.ORDER_LOADER_DB_PASSWORD : undefined;
  if (value.startsWith('pglite:')) {
    const dir = value.slice('pglite:'.length);
    if (dir === '') throw new UserError(`--db ${maskDbUrl(value)}: pglite needs a folder (pglite:./path) or pglite:memory`);
    return { kind: 'pglite', dataDir: dir === 'memory' ? null : dir };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UserError(`--db ${maskDbUrl(value)}: not a database URL (expected pglite:<dir>, postgres://… or oracle://…)`);
  }
  if (url.protocol === 'postgres:' || url.protocol === 'postgresql:') {
    const password = url.password !== '' ? decodeURIComponent(url.password) : envPassword;
    return { kind: 'postgres', url: value, password: url.password !== '' ? undefined : password };
  }
  if (url.protocol === 'oracle:') {
    if (url.username === '') throw new UserError(`--db ${maskDbUrl(value)}: an Oracle URL needs a user (oracle://user@host:1521/service)`);
    const service = url.pathname.replace(/^\//, '');
    if (url.hostname === '' || service === '') {
      throw new UserError(`--db ${maskDbUrl(value)}: an Oracle URL needs a host and a service (oracle://user@host:1521/FREEPDB1)`);
    }
    const host = url.hostname.includes(':') ? `[${url.hostname}]` : url.hostname;
    return {
      kind: 'oracle',
      user: decodeURIComponent(url.username),
      password: url.password !== '' ? decodeURIComponent(url.password) : envPassword,
      connectString: `${host}:${url.port === '' ? '1521' : url.port}/${service}`,
    };
  }
  throw new UserError(`--db ${maskDbUrl(value)}: unsupported database "${url.protocol.replace(/:$/, '')}" (expected pglite, postgres or oracle)`);
}

/** The URL with any password replaced by ***: the only form of a --db value we ever print. */
export function maskDbUrl(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*):[^@/?#]*@/i, '$1:***@');
}
