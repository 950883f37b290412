import { UserError } from '../errors.js';
import { EASY_CONNECT_PARAMETERS, type OracleDriverOptions, oracleConnectTarget } from './oracle/connect-options.js';

/** Where a server database is: named in messages (names are not secrets; passwords are). */
export interface ServerPlace {
  host: string;
  port: number;
  /** The database (PostgreSQL) or service (Oracle). */
  database: string;
  /** The role (PostgreSQL) or user (Oracle); '' when the URL names none. */
  user: string;
  /** Where the password came from (a wrong one is to be fixed there): the URL, ORDER_LOADER_DB_PASSWORD, or none given. */
  passwordFrom?: 'url' | 'env' | undefined;
}

export type DbTarget =
  | { kind: 'pglite'; dataDir: string | null }
  /** `url` never holds a password: it travels separately, in `password`. */
  | { kind: 'postgres'; url: string; password: string | undefined; place: ServerPlace }
  | {
      kind: 'oracle';
      user: string;
      password: string | undefined;
      connectString: string;
      /** A wallet, a tnsnames.ora folder (src/engine/oracle/connect-options.ts); absent for plain Easy Connect. */
      driverOptions?: OracleDriverOptions;
      place: ServerPlace;
      /** Set only when the URL carries Oracle parameters (see {@link parseOracleParameters}). */
      oracle?: OracleUrlOptions | undefined;
    };

/**
 * Parameters of an oracle:// URL (`?name=value&...`); each unset one takes the engine's default.
 *   call_timeout=<seconds>   how long a round trip may take before the driver sends the server a
 *                            break (lib/thin/protocol/protocol.js _processMessage). It does not
 *                            end the wait by itself: the driver goes on reading the reply to the
 *                            break, and throws NJS-123 only when the server answers (the chunk
 *                            rolls back, the connection is replaced, the chunk retried). So it
 *                            bounds a slow statement on a live server, not a dead network path.
 *                            Default 1800; 0 = no limit.
 *   expire_time=<minutes>    TCP keepalive idle time (thin mode enables keepalive only with it):
 *                            what ends a wait on a dead host or dropped path. Node 20 (libuv
 *                            1.46) then probes every second, 10 times, so an idle read fails
 *                            about expire_time + 10 s after the last packet (2 min 10 s by
 *                            default). When unacknowledged data is in flight (a request or the
 *                            break just sent) keepalive does not apply and the kernel's
 *                            retransmission limit ends it instead (Linux tcp_retries2 = 15:
 *                            about 15.5 min). A hang on a dead path therefore lasts at most
 *                            about 15.5 min on Linux defaults, whatever call_timeout is.
 *                            Default 2; 0 = keepalive off (then only the kernel ends a hang).
 *   charset_check=off        skip the refusal of a database whose NLS_CHARACTERSET is not
 *                            AL32UTF8 (only for files known to be plain ASCII). Default on.
 */
export interface OracleUrlOptions {
  callTimeoutSeconds?: number;
  expireTimeMinutes?: number;
  charsetCheck?: boolean;
}

export const DEFAULT_DB = 'pglite:./.order-loader/db';

const PASSWORD_HINT = 'or better, leave the password out of the URL and set ORDER_LOADER_DB_PASSWORD';

/**
 * Parse a --db value. Accepted: `pglite:<dir>`, `pglite:memory`, `postgres://…`,
 * `postgresql://…`, `oracle://user[:password]@host[:port]/service`. A password may also come
 * from ORDER_LOADER_DB_PASSWORD (preferred: it stays out of the process list). Surrounding
 * whitespace is ignored; a password may carry unencoded special characters as long as the URL
 * stays unambiguous; a malformed URL is refused in one line that never contains the password.
 */
export function parseDbUrl(value: string, env: NodeJS.ProcessEnv = process.env): DbTarget {
  const envPassword =
    env.ORDER_LOADER_DB_PASSWORD !== undefined && env.ORDER_LOADER_DB_PASSWORD !== '' ? env.ORDER_LOADER_DB_PASSWORD : undefined;
  if (envPassword !== undefined) registerSecret(envPassword);
  const trimmed = value.trim();
  if (trimmed.startsWith('pglite:')) {
    const dir = trimmed.slice('pglite:'.length);
    if (dir === '') throw new UserError('--db pglite: pglite needs a folder (pglite:./path) or pglite:memory');
    return { kind: 'pglite', dataDir: dir === 'memory' ? null : dir };
  }
  const url = splitServerUrl(trimmed);
  if (url.password !== undefined) registerSecret(url.password);
  const password = url.password ?? envPassword;
  const passwordFrom = url.password !== undefined ? ('url' as const) : envPassword !== undefined ? ('env' as const) : undefined;
  if (url.scheme === 'postgres' || url.scheme === 'postgresql') {
    const place = {
      host: url.host === '' ? 'localhost' : url.host,
      port: url.port ?? 5432,
      database: url.database === '' ? url.user : url.database,
      user: url.user,
      passwordFrom,
    };
    return { kind: 'postgres', url: url.withoutPassword, password, place };
  }
  if (url.scheme === 'oracle') {
    if (url.user === '') throw new UserError(`--db ${url.label}: an Oracle URL needs a user (oracle://user@host:1521/service)`);
    const parts = { host: url.host, port: url.port, service: url.database, query: url.withoutPassword.split('?')[1] ?? '' };
    const { place, ...connect } = oracleConnectTarget(parts, env, url.label, registerSecret);
    const oracle = parseOracleParameters(url.query, url.label);
    return {
      kind: 'oracle',
      user: url.user,
      password,
      ...connect,
      place: { ...place, user: url.user, passwordFrom },
      ...(oracle === undefined ? {} : { oracle }),
    };
  }
  throw new UserError(`--db ${url.scheme}://…: unsupported database "${url.scheme}" (expected pglite, postgres or oracle)`);
}

/**
 * The --db value as we print it: any password replaced by ***, nothing of a value we cannot
 * read (it might be a password typed in the wrong place).
 */
export function maskDbUrl(value: string): string {
  const trimmed = value.trim();
  if (trimmed.startsWith('pglite:')) return trimmed;
  try {
    return splitServerUrl(trimmed).label;
  } catch {
    const scheme = SCHEME.exec(trimmed);
    return scheme === null ? '…' : `${(scheme[1] ?? '').toLowerCase()}://…`;
  }
}

/**
 * The connection string handed to node-postgres: the password-free URL with the password put
 * back in. It never leaves the process (ps shows the arguments, not this). Passing the password
 * as a separate option does not work: node-postgres lets the URL's empty password override it.
 */
export function postgresConnectionString(url: string, password: string | undefined): string {
  if (password === undefined) return url;
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*@)?/i.exec(url);
  if (m === null) return url;
  const user = (m[2] ?? '@').slice(0, -1);
  return `${m[1] ?? ''}${user}:${encodeURIComponent(password)}@${url.slice(m[0].length)}`;
}

/** The URL's own parts and the connection form's parameters (connect-options.ts): not engine settings. */
const URL_PARTS = new Set<string>(['user', 'password', 'host', 'port', 'protocol', 'config_dir', ...EASY_CONNECT_PARAMETERS]);

/** The Oracle parameters of a URL's query; undefined when it has none. Unknown names are refused. */
function parseOracleParameters(query: URLSearchParams, label: string): OracleUrlOptions | undefined {
  const options: OracleUrlOptions = {};
  let any = false;
  const whole = (name: string, value: string, max: number): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isSafeInteger(n) || n < 0 || n > max) {
      throw new UserError(`--db ${label}: ${name} must be a whole number from 0 to ${max}`);
    }
    return n;
  };
  for (const [name, value] of query) {
    if (URL_PARTS.has(name)) continue;
    any = true;
    if (name === 'call_timeout') options.callTimeoutSeconds = whole(name, value, 86_400);
    else if (name === 'expire_time') options.expireTimeMinutes = whole(name, value, 1_440);
    else if (name === 'charset_check') {
      if (value !== 'on' && value !== 'off') throw new UserError(`--db ${label}: charset_check must be on or off`);
      options.charsetCheck = value === 'on';
    } else {
      throw new UserError(
        `--db ${label}: unknown Oracle URL parameter "${name}" (known: call_timeout, expire_time, charset_check, protocol, config_dir, ${EASY_CONNECT_PARAMETERS.join(', ')})`,
      );
    }
  }
  return any ? options : undefined;
}

// --- secrets in messages --------------------------------------------------------------------

const secrets = new Set<string>();

/** Remember a password so that redactSecrets can take it out of any message. */
export function registerSecret(secret: string): void {
  // a password of one or two characters would blank every such letter of a message
  if (secret.length < 3) return;
  secrets.add(secret);
  secrets.add(encodeURIComponent(secret));
  secrets.add(encodeURI(secret));
}

/**
 * The text with every password we were given replaced by ***. The second line of defence:
 * messages are built without passwords; this catches one a driver might echo back.
 */
export function redactSecrets(text: string): string {
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join('***');
  return out;
}

// --- the URL itself ---------------------------------------------------------------------------

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
/**
 * host (a name, or [IPv6]), :port, /database, ?query. No '@' in the database and no '#' at all:
 * a database URL has no fragment, so either can only be part of an unencoded password.
 */
const AFTER_USERINFO = /^(\[[0-9A-Fa-f:.]*\]|[^\s/?#@[\]:]*)(?::(\d*))?(\/[^?#@]*)?(?:\?([^#]*))?$/s;
/** user (no ':', '@', '/', '?', '#') and an optional password that may hold anything */
const USERINFO = /^([^:@/?#\s]*)(?::(.*))?$/s;

interface ServerUrl {
  scheme: string;
  user: string;
  password: string | undefined;
  host: string;
  port: number | undefined;
  database: string;
  /** The query parameters, the password taken out. */
  query: URLSearchParams;
  /** The URL without its password (node-postgres reads its query options from it). */
  withoutPassword: string;
  /** The URL to print: password replaced by ***. */
  label: string;
}

function splitServerUrl(value: string): ServerUrl {
  const schemeMatch = SCHEME.exec(value);
  if (schemeMatch === null) {
    throw new UserError(
      '--db: not a database URL (expected pglite:<dir>, postgres://user@host:5432/database or oracle://user@host:1521/service)',
    );
  }
  const scheme = (schemeMatch[1] ?? '').toLowerCase();
  const shown = `${scheme}://…`;
  const rest = value.slice(schemeMatch[0].length);
  // Where does the user[:password] part end? At an '@' after which a host, port and database
  // follow. A password with an unencoded '@', '/', '?' or '#' still leaves one such '@'; when
  // two would do, we cannot tell and refuse rather than guess (a wrong guess would print a
  // piece of the password as a host name).
  const readings: Array<{ userinfo: string | null; after: RegExpExecArray }> = [];
  const whole = AFTER_USERINFO.exec(rest);
  if (whole !== null) readings.push({ userinfo: null, after: whole });
  for (let at = rest.indexOf('@'); at !== -1; at = rest.indexOf('@', at + 1)) {
    const after = AFTER_USERINFO.exec(rest.slice(at + 1));
    if (after !== null && USERINFO.test(rest.slice(0, at))) readings.push({ userinfo: rest.slice(0, at), after });
  }
  if (readings.length === 0) {
    throw new UserError(
      `--db ${shown}: cannot read this URL (expected ${scheme}://user@host:port/database; special characters in the password percent-encoded, ${PASSWORD_HINT})`,
    );
  }
  if (readings.length > 1) {
    throw new UserError(
      `--db ${shown}: cannot tell where the password ends (an unencoded "@" in it?): percent-encode it (@ is %40), ${PASSWORD_HINT}`,
    );
  }
  const { userinfo, after } = readings[0] as { userinfo: string | null; after: RegExpExecArray };
  const info = userinfo === null ? null : USERINFO.exec(userinfo);
  const rawPassword = info?.[2];
  const user = decodePart(info?.[1] ?? '', 'user name', shown);
  let password = rawPassword === undefined ? undefined : decodePart(rawPassword, 'password', shown);
  const rawHost = after[1] ?? '';
  const host = decodePart(rawHost.replace(/^\[(.*)\]$/, '$1'), 'host', shown);
  const rawPort = after[2];
  if (rawPort !== undefined && rawPort !== '' && !(Number(rawPort) >= 1 && Number(rawPort) <= 65_535)) {
    throw new UserError(`--db ${shown}: the port must be a number between 1 and 65535`);
  }
  const port = rawPort === undefined || rawPort === '' ? undefined : Number(rawPort);
  const database = decodePart((after[3] ?? '').replace(/^\//, ''), 'database name', shown);
  const query = new URLSearchParams(after[4] ?? '');
  // node-postgres also takes the password from ?password=…: take it out of the URL like the other
  const queryPassword = query.get('password');
  if (queryPassword !== null) {
    query.delete('password');
    if (queryPassword !== '') password ??= queryPassword;
  }
  const queryUser = query.get('user');
  const queryText = query.toString();
  // any other …password… parameter (wallet_password, sslpassword) is a secret too: masked in the
  // label, and its value redacted wherever it would be printed
  const shownQuery = new URLSearchParams(query);
  for (const [name, secret] of query) {
    if (!/password/i.test(name)) continue;
    if (secret !== '') registerSecret(secret);
    shownQuery.set(name, '***');
  }
  const shownQueryText = shownQuery.toString();
  const userPart = user === '' ? '' : `${encodeURIComponent(user)}@`;
  const hostPart = `${rawHost}${port === undefined ? '' : `:${port}`}`;
  const path = database === '' ? '' : `/${encodeURIComponent(database)}`;
  const tail = `${path}${queryText === '' ? '' : `?${queryText}`}`;
  const shownTail = `${path}${shownQueryText === '' ? '' : `?${shownQueryText}`}`;
  const shownUser = password === undefined ? userPart : `${encodeURIComponent(user)}:***@`;
  return {
    scheme,
    user: queryUser ?? user,
    password,
    host: query.get('host') ?? host,
    port: query.get('port') !== null && Number.isSafeInteger(Number(query.get('port'))) ? Number(query.get('port')) : port,
    database,
    query,
    withoutPassword: `${scheme}://${userPart}${hostPart}${tail}`,
    label: `${scheme}://${shownUser}${hostPart}${shownTail}`,
  };
}

/** Percent-decode one part of the URL; a bad escape is refused without echoing the part. */
function decodePart(raw: string, what: string, shown: string): string {
  if (/%(?![0-9A-Fa-f]{2})/.test(raw)) {
    throw new UserError(`--db ${shown}: the ${what} in the URL has a "%" that is not an escape (write % as %25), ${PASSWORD_HINT}`);
  }
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new UserError(`--db ${shown}: the ${what} in the URL is not valid percent-encoded UTF-8, ${PASSWORD_HINT}`);
  }
}
