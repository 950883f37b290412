import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../../errors.js';

/**
 * How an oracle:// --db value reaches the database, in node-oracledb's terms (thin mode).
 * Three forms, all as oracle://user@… URLs:
 *
 *  - Easy Connect: oracle://user@host:1521/service
 *    connectString host:1521/service.
 *  - Easy Connect Plus over TLS: oracle://user@host:2484/service?protocol=tcps&wallet_location=/dir
 *    connectString tcps://host:2484/service?wallet_location=/dir; the connection parameters
 *    listed in EASY_CONNECT_PARAMETERS travel in the connect string, where the driver reads them.
 *  - A TNS alias: oracle://user@mydb_high?config_dir=/dir, or oracle://user@mydb_high with
 *    TNS_ADMIN set: the alias is looked up in tnsnames.ora in that folder (configDir). An alias
 *    is a host with neither port nor service; without a folder such a URL is refused, as it
 *    always was (a forgotten service must not turn into a tnsnames.ora lookup).
 *
 * Any form may use a wallet (cloud databases; mutual TLS): ORDER_LOADER_DB_WALLET_LOCATION,
 * the folder holding ewallet.pem (thin mode reads the PEM wallet only, not cwallet.sso), and
 * ORDER_LOADER_DB_WALLET_PASSWORD, its passphrase. The passphrase comes from the environment
 * only (never from the URL, which ps shows) and is handed to `registerSecret` so that no
 * message or log line can show it.
 */

/** node-oracledb connection attributes (createPool / getConnection) beyond the connect string, user and password. */
export interface OracleDriverOptions {
  /** The folder with tnsnames.ora (a TNS alias). */
  configDir?: string;
  /** The folder with ewallet.pem. */
  walletLocation?: string;
  /** The PEM wallet's passphrase. */
  walletPassword?: string;
}

/** What db-url.ts has already read from an oracle:// URL. */
export interface OracleUrlParts {
  host: string;
  port: number | undefined;
  /** The path: the service name ('' when none). */
  service: string;
  /** The query string, without '?' and without any password. */
  query: string;
}

export interface OracleConnectTarget {
  connectString: string;
  /** Absent when there is nothing beyond the connect string (plain Easy Connect). */
  driverOptions?: OracleDriverOptions;
  /** Where, for messages: host, port (0 for an alias) and service (the alias for an alias). */
  place: { host: string; port: number; database: string };
}

/**
 * The Easy Connect Plus parameters passed on in the connect string: where and how to connect
 * (TLS, wallet folder, retries, connect timeouts, proxy). Other parameters of the URL are not
 * this module's (db-url.ts reads its own).
 */
export const EASY_CONNECT_PARAMETERS = [
  'wallet_location',
  'ssl_server_cert_dn',
  'ssl_server_dn_match',
  'retry_count',
  'retry_delay',
  'connect_timeout',
  'transport_connect_timeout',
  'https_proxy',
  'https_proxy_port',
] as const;

const PROTOCOLS = ['tcp', 'tcps'] as const;

const NEEDS_SERVICE =
  'an Oracle URL needs a host and a service (oracle://user@host:1521/FREEPDB1), or a TNS alias with the folder of its tnsnames.ora (oracle://user@alias?config_dir=/path, or TNS_ADMIN set)';

/**
 * The connect string and driver options for an oracle:// URL (see above). `label` names the URL in
 * messages (no password in it); `registerSecret` receives the wallet passphrase.
 */
export function oracleConnectTarget(
  parts: OracleUrlParts,
  env: NodeJS.ProcessEnv,
  label: string,
  registerSecret: (secret: string) => void,
): OracleConnectTarget {
  const query = new URLSearchParams(parts.query);
  if (query.has('wallet_password')) {
    throw new UserError(`--db ${label}: a wallet password does not go in the URL: set ORDER_LOADER_DB_WALLET_PASSWORD`);
  }
  const wallet = walletAttributes(env, label, registerSecret);
  // the folder to look a TNS alias up in: asked for in the URL, or the usual TNS_ADMIN
  const configDir = nonEmpty(query.get('config_dir')) ?? nonEmpty(env.TNS_ADMIN);

  if (parts.host !== '' && parts.service === '' && parts.port === undefined && configDir !== undefined) {
    if (!/^[A-Za-z][\w.-]*$/.test(parts.host))
      throw new UserError(`--db ${label}: "${parts.host}" is not a TNS alias (letters, digits, _ . -)`);
    if (!existsSync(join(configDir, 'tnsnames.ora'))) {
      throw new UserError(
        `--db ${label}: no tnsnames.ora in ${configDir} (the folder of ${query.has('config_dir') ? 'config_dir' : 'TNS_ADMIN'}) to look up the alias ${parts.host} in`,
      );
    }
    return {
      connectString: parts.host,
      driverOptions: { configDir, ...wallet },
      place: { host: parts.host, port: 0, database: parts.host },
    };
  }
  if (parts.host === '' || parts.service === '') throw new UserError(`--db ${label}: ${NEEDS_SERVICE}`);

  const protocol = (query.get('protocol') ?? 'tcp').toLowerCase();
  if (!(PROTOCOLS as readonly string[]).includes(protocol)) {
    throw new UserError(`--db ${label}: protocol=${protocol} is not one of ${PROTOCOLS.join(', ')}`);
  }
  const port = parts.port ?? 1521;
  const host = parts.host.includes(':') ? `[${parts.host}]` : parts.host;
  // Easy Connect Plus values are not percent-encoded: they go in decoded, in double quotes
  // when they hold anything but a plain word or path (a certificate DN has spaces and commas:
  // unquoted, node-oracledb refuses the string, NJS-515). No quoting can hold '"' or '&'.
  const passOn: string[] = [];
  for (const name of EASY_CONNECT_PARAMETERS) {
    const value = query.get(name);
    if (value === null) continue;
    if (/["&]/.test(value)) throw new UserError(`--db ${label}: the value of ${name} cannot contain '"' or '&'`);
    passOn.push(`${name}=${/^[\w./:@-]+$/.test(value) ? value : `"${value}"`}`);
  }
  const walletInUrl = query.get('wallet_location');
  if (walletInUrl !== null) checkWalletFolder(walletInUrl, 'wallet_location', label);
  const connectString = `${protocol === 'tcps' ? 'tcps://' : ''}${host}:${port}/${parts.service}${passOn.length === 0 ? '' : `?${passOn.join('&')}`}`;
  return {
    connectString,
    ...(Object.keys(wallet).length === 0 ? {} : { driverOptions: wallet }),
    place: { host: parts.host, port, database: parts.service },
  };
}

function walletAttributes(
  env: NodeJS.ProcessEnv,
  label: string,
  registerSecret: (secret: string) => void,
): Pick<OracleDriverOptions, 'walletLocation' | 'walletPassword'> {
  const walletLocation = nonEmpty(env.ORDER_LOADER_DB_WALLET_LOCATION);
  const walletPassword = nonEmpty(env.ORDER_LOADER_DB_WALLET_PASSWORD);
  if (walletPassword !== undefined) registerSecret(walletPassword);
  if (walletLocation !== undefined) checkWalletFolder(walletLocation, 'ORDER_LOADER_DB_WALLET_LOCATION', label);
  if (walletPassword !== undefined && walletLocation === undefined) {
    throw new UserError(
      `--db ${label}: ORDER_LOADER_DB_WALLET_PASSWORD is set but ORDER_LOADER_DB_WALLET_LOCATION is not (the folder with ewallet.pem)`,
    );
  }
  return {
    ...(walletLocation === undefined ? {} : { walletLocation }),
    ...(walletPassword === undefined ? {} : { walletPassword }),
  };
}

/**
 * Thin mode reads ewallet.pem (PEM) only, before it connects; a folder without it fails there
 * as "NJS-512: invalid connection string parameters" with an ENOENT on a second line.
 */
function checkWalletFolder(folder: string, source: string, label: string): void {
  if (existsSync(join(folder, 'ewallet.pem'))) return;
  const sso = existsSync(join(folder, 'cwallet.sso'))
    ? ' (it has cwallet.sso: node-oracledb thin mode reads the PEM wallet, ewallet.pem, of the same download)'
    : '';
  throw new UserError(`--db ${label}: no ewallet.pem in ${folder} (${source})${sso}`);
}

function nonEmpty(value: string | null | undefined): string | undefined {
  return value === null || value === undefined || value === '' ? undefined : value;
}
