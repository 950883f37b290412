/**
 * A driver error as one line fit for a log or a terminal: its code and message, with quoted
 * values blanked (PostgreSQL quotes the offending input in some messages, and an error line
 * must never carry a bind value).
 */
export function describeDbError(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error';
  const code = (error as { code?: unknown }).code;
  const message =
    error.message
      .split('\n')[0]
      ?.replace(/"[^"]*"/g, '"…"')
      .replace(/'[^']*'/g, "'…'") ?? '';
  return typeof code === 'string' && code !== '' && !message.includes(code) ? `${code} ${message}` : message;
}

/** Where the server is, as named in messages (see ServerPlace in engine/db-url.ts). */
interface Place {
  host: string;
  port: number;
  database: string;
  user: string;
  passwordFrom?: 'url' | 'env' | undefined;
}

/** Where to look at a refused password: where it was given. */
function checkPassword(place: Place): string {
  return place.passwordFrom === 'url' ? 'check the password in the --db URL' : 'check ORDER_LOADER_DB_PASSWORD';
}

const SPACE_SQLSTATES = new Set(['53100']); // disk_full
// the out-of-space and quota family that src/engine/oracle/classify.ts makes fatal
const SPACE_ORACLE = /\bORA-0*(1536|1950|162[89]|163[0-2]|165[0-689]|168[0-58]|169[1-4]|323[358]|30036|6000[1-7]|60018)\b/;
const CONNECT_CODES: Record<string, string> = {
  ECONNREFUSED: 'nothing listens there',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved',
  EHOSTUNREACH: 'host unreachable',
  ETIMEDOUT: 'timed out',
  ECONNRESET: 'the connection was reset',
};

function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    codes.push(...(e.message.match(/\b(?:ORA|NJS)-\d+\b/g) ?? []));
    // a connection to "localhost" tries each of its addresses: Node reports an AggregateError
    const attempts = (e as { errors?: unknown }).errors;
    for (const attempt of Array.isArray(attempts) ? (attempts as unknown[]) : []) {
      const c = (attempt as { code?: unknown }).code;
      if (typeof c === 'string') codes.push(c);
    }
  }
  return codes;
}

/** The database ran out of space (PostgreSQL 53100 disk_full; Oracle's unable-to-extend family). */
export function isOutOfSpace(error: unknown): boolean {
  return codesOf(error).some((c) => SPACE_SQLSTATES.has(c) || SPACE_ORACLE.test(c));
}

/**
 * A failure to connect or log in, as one line that names the host, port, database and role
 * (names are not secrets; the password never appears). Null when the error is about something
 * else. Oracle's codes here are verified by reading node-oracledb, not against a server.
 */
export function describeConnectError(error: unknown, place: Place): string | null {
  const codes = codesOf(error);
  const message = error instanceof Error ? error.message : '';
  const where = `${place.host.includes(':') ? `[${place.host}]` : place.host}:${place.port}`;
  const role = place.user === '' ? 'the default role' : `role ${place.user}`;
  const has = (code: string) => codes.includes(code);
  if (has('3D000')) return `database ${place.database} does not exist on ${where} (3D000)`;
  if (has('28P01')) return `password authentication failed for ${role} on ${where} (28P01): ${checkPassword(place)}`;
  if (has('28000')) {
    return /role .* does not exist/.test(message)
      ? `${role} does not exist on ${where} (28000)`
      : `${where} does not let ${role} connect to database ${place.database} (28000: no pg_hba.conf entry allows it)`;
  }
  if (/client password must be a string|password must be a string/i.test(message)) {
    return `${where} asks a password of ${role} and none was given: set ORDER_LOADER_DB_PASSWORD`;
  }
  if (has('ORA-01017'))
    return `user ${place.user} was refused by ${where} (ORA-01017: wrong password, or no such user): ${checkPassword(place)}`;
  if (has('ORA-12514') || has('NJS-518'))
    return `service ${place.database} is not known to the listener at ${where} (${has('NJS-518') ? 'NJS-518' : 'ORA-12514'})`;
  for (const [code, meaning] of Object.entries(CONNECT_CODES)) {
    if (has(code)) return `cannot connect to ${where} (${code}: ${meaning})`;
  }
  if (has('NJS-503') || has('NJS-511') || has('NJS-510') || has('NJS-530')) {
    return `cannot connect to ${where} (${codes.find((c) => /^NJS-5(03|10|11|30)$/.test(c)) ?? 'NJS-503'}: ${describeDbError(error)})`;
  }
  if (/timeout exceeded when trying to connect/i.test(message)) return `cannot connect to ${where} (timed out)`;
  return null;
}

/**
 * Connection errors worth waiting out at start (the database is not up yet, restarting, or full
 * of connections): the code that says so, else null. A refused login (28P01, 28000, ORA-01017),
 * a database or role that does not exist (3D000) and a missing password are not: they do not
 * mend themselves, so the command fails at once. A host name that does not resolve (ENOTFOUND)
 * is waited on: a database container's name resolves only once it runs. Oracle's codes here are
 * taken from node-oracledb's messages, not seen from a server.
 */
export function connectWaitCode(error: unknown): string | null {
  const codes = codesOf(error);
  const message = error instanceof Error ? error.message : '';
  if (codes.some((c) => REFUSED_LOGIN.has(c))) return null;
  const code = codes.find((c) => WAITABLE_CODES.has(c) || c.startsWith('08'));
  if (code !== undefined) return code;
  if (/timeout exceeded when trying to connect/i.test(message)) return 'connect timeout';
  if (/connection terminated unexpectedly/i.test(message)) return 'connection terminated';
  return null;
}

const REFUSED_LOGIN = new Set(['28P01', '28000', '3D000', 'ORA-01017', 'ORA-28000', 'ORA-01045']);
const WAITABLE_CODES = new Set([
  ...Object.keys(CONNECT_CODES),
  'ENETUNREACH',
  'EPIPE',
  '57P01', // admin_shutdown: the server is restarting
  '57P03', // cannot_connect_now: the database system is starting up
  '53300', // too_many_connections
  'ORA-12541', // no listener
  'ORA-12514', // service not (yet) registered with the listener: it is while the database starts
  'ORA-12528', // the listener blocks new connections to a starting instance
  'ORA-12537', // connection closed
  'ORA-01033', // initialization or shutdown in progress
  'ORA-01034', // ORACLE not available
  'ORA-01089', // immediate shutdown in progress
  'NJS-500', // connection closed or broken
  'NJS-501', // connection terminated unexpectedly
  'NJS-503', // connection could not be established
  'NJS-510', // connection timed out
  'NJS-511', // the listener refused the connection
  'NJS-518', // service not (yet) registered with the listener
  'NJS-521', // end-of-file on the communication channel
  'NJS-530', // host unresolvable (a container's name resolves once it runs)
]);
