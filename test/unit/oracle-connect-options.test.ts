import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../../src/errors.js';
import { oracleConnectTarget, type OracleUrlParts } from '../../src/engine/oracle/connect-options.js';
import { loadOracledb } from '../../src/engine/oracle/oracledb-types.js';

const root = mkdtempSync(join(tmpdir(), 'order-loader-connect-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function folder(name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

/** A wallet folder as thin mode needs it (the content is never read here: no TLS handshake happens). */
const wallet = folder('wallet with space', { 'ewallet.pem': 'not a real wallet\n' });
const ssoOnly = folder('sso-only', { 'cwallet.sso': 'x' });
/** tnsnames.ora whose alias points at a closed port on this machine. */
const tnsAdmin = folder('tns', {
  'tnsnames.ora': 'loader_test = (DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=127.0.0.1)(PORT=1))(CONNECT_DATA=(SERVICE_NAME=FREEPDB1)))\n',
});
const empty = folder('empty', {});

const parts = (p: Partial<OracleUrlParts>): OracleUrlParts => ({
  host: 'db.example.com',
  port: undefined,
  service: 'FREEPDB1',
  query: '',
  ...p,
});
const secrets: string[] = [];
const target = (p: Partial<OracleUrlParts>, env: NodeJS.ProcessEnv = {}) =>
  oracleConnectTarget(parts(p), env, 'oracle://loader@…', (s) => secrets.push(s));

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('Oracle connection forms', () => {
  it('Easy Connect: host:port/service, port 1521 by default, an IPv6 host in brackets', () => {
    expect(target({})).toEqual({
      connectString: 'db.example.com:1521/FREEPDB1',
      place: { host: 'db.example.com', port: 1521, database: 'FREEPDB1' },
    });
    expect(target({})).not.toHaveProperty('driverOptions');
    expect(target({ port: 1522, service: 'orcl.example.com' }).connectString).toBe('db.example.com:1522/orcl.example.com');
    expect(target({ host: '::1' }).connectString).toBe('[::1]:1521/FREEPDB1');
  });

  it('Easy Connect Plus over TLS: tcps://, and the connection parameters passed on as written', () => {
    const dn = 'CN=adb.example.com, O=Example Corporation, C=US';
    const query = new URLSearchParams({
      protocol: 'tcps',
      wallet_location: wallet,
      ssl_server_cert_dn: dn,
      retry_count: '3',
      call_timeout: '30s',
    }).toString();
    const t = target({ port: 2484, service: 'abc_high.adb.example.com', query });
    expect(t.connectString).toBe(
      `tcps://db.example.com:2484/abc_high.adb.example.com?wallet_location="${wallet}"&ssl_server_cert_dn="${dn}"&retry_count=3`,
    );
    expect(t.driverOptions).toBeUndefined();
    expect(t.place).toEqual({ host: 'db.example.com', port: 2484, database: 'abc_high.adb.example.com' });
  });

  it('refuses a wallet folder without ewallet.pem, saying why when it holds cwallet.sso only', () => {
    expect(refusal(() => target({ query: `protocol=tcps&wallet_location=${encodeURIComponent(empty)}` }))).toContain(
      `no ewallet.pem in ${empty} (wallet_location)`,
    );
    expect(refusal(() => target({}, { ORDER_LOADER_DB_WALLET_LOCATION: ssoOnly }))).toMatch(
      /ORDER_LOADER_DB_WALLET_LOCATION\) \(it has cwallet\.sso: .*PEM wallet/,
    );
  });

  it('refuses an unknown protocol and a parameter value holding "&"', () => {
    expect(refusal(() => target({ query: 'protocol=ipc' }))).toContain('protocol=ipc is not one of tcp, tcps');
    expect(refusal(() => target({ query: 'ssl_server_cert_dn=CN%3Da%26b' }))).toContain(
      `the value of ssl_server_cert_dn cannot contain '"' or '&'`,
    );
  });

  it('wallet location and passphrase from the environment: handed to the driver, the passphrase registered as a secret', () => {
    secrets.length = 0;
    const env = { ORDER_LOADER_DB_WALLET_LOCATION: wallet, ORDER_LOADER_DB_WALLET_PASSWORD: 'pem-Passphrase-42' };
    const t = target({ port: 2484, query: 'protocol=tcps' }, env);
    expect(t.connectString).toBe('tcps://db.example.com:2484/FREEPDB1');
    expect(t.driverOptions).toEqual({ walletLocation: wallet, walletPassword: 'pem-Passphrase-42' });
    expect(secrets).toEqual(['pem-Passphrase-42']);
  });

  it('a passphrase without a wallet folder, or in the URL, is refused without showing it', () => {
    const noFolder = refusal(() => target({}, { ORDER_LOADER_DB_WALLET_PASSWORD: 'pem-Passphrase-42' }));
    expect(noFolder).toContain('ORDER_LOADER_DB_WALLET_LOCATION is not');
    expect(noFolder).not.toContain('pem-Passphrase-42');
    const inUrl = refusal(() => target({ query: 'wallet_password=pem-Passphrase-42' }));
    expect(inUrl).toContain('set ORDER_LOADER_DB_WALLET_PASSWORD');
    expect(inUrl).not.toContain('pem-Passphrase-42');
  });

  it('a TNS alias: looked up in config_dir, or in TNS_ADMIN', () => {
    expect(target({ host: 'loader_test', service: '', query: `config_dir=${encodeURIComponent(tnsAdmin)}` })).toEqual({
      connectString: 'loader_test',
      driverOptions: { configDir: tnsAdmin },
      place: { host: 'loader_test', port: 0, database: 'loader_test' },
    });
    const viaTnsAdmin = target({ host: 'loader_test', service: '' }, { TNS_ADMIN: tnsAdmin });
    expect([viaTnsAdmin.connectString, viaTnsAdmin.driverOptions]).toEqual(['loader_test', { configDir: tnsAdmin }]);
    // Easy Connect with TNS_ADMIN set: nothing to look up
    expect(target({}, { TNS_ADMIN: tnsAdmin })).not.toHaveProperty('driverOptions');
  });

  it('a host without a service and no tnsnames.ora folder is refused as before; a folder without tnsnames.ora too', () => {
    expect(refusal(() => target({ host: 'loader_test', service: '' }))).toContain(
      'an Oracle URL needs a host and a service (oracle://user@host:1521/FREEPDB1), or a TNS alias',
    );
    expect(refusal(() => target({ host: 'loader_test', service: '', query: `config_dir=${encodeURIComponent(empty)}` }))).toContain(
      `no tnsnames.ora in ${empty} (the folder of config_dir)`,
    );
    expect(refusal(() => target({ host: '', service: 'FREEPDB1' }))).toContain('needs a host and a service');
  });
});

/**
 * node-oracledb (thin) itself reads what we build: each attempt reaches the socket stage
 * (a closed port on 127.0.0.1: connection refused) instead of failing to parse the connect
 * string or to find the alias.
 */
describe('node-oracledb accepts the connect strings', () => {
  async function connectError(attributes: Record<string, unknown>): Promise<string> {
    const oracledb = (await loadOracledb()) as unknown as {
      getConnection(a: Record<string, unknown>): Promise<{ close(): Promise<void> }>;
    };
    try {
      const connection = await oracledb.getConnection({ user: 'loader', password: 'x', connectTimeout: 2, retryCount: 0, ...attributes });
      await connection.close();
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('connected to a closed port?');
  }

  it('Easy Connect Plus over TLS, and a TNS alias in configDir', async () => {
    const dn = encodeURIComponent('CN=db.example.com, O=Example Corporation, C=US');
    const tls = target({
      host: '127.0.0.1',
      port: 1,
      query: `protocol=tcps&wallet_location=${encodeURIComponent(wallet)}&ssl_server_cert_dn=${dn}&ssl_server_dn_match=on&retry_count=0`,
    });
    expect(await connectError({ connectString: tls.connectString, ...tls.driverOptions })).toMatch(/NJS-503|ECONNREFUSED/);
    const alias = target({ host: 'loader_test', service: '', query: `config_dir=${encodeURIComponent(tnsAdmin)}` });
    expect(await connectError({ connectString: alias.connectString, ...alias.driverOptions })).toMatch(/NJS-503|ECONNREFUSED/);
    // the control: an alias that tnsnames.ora does not hold fails otherwise
    expect(await connectError({ connectString: 'no_such_alias', configDir: tnsAdmin })).toMatch(/NJS-517/);
  }, 30_000);
});
