import { parse as parsePgConnectionString } from 'pg-connection-string';
import { describe, expect, it } from 'vitest';
import { maskDbUrl, parseDbUrl, postgresConnectionString, redactSecrets, registerSecret } from '../../src/engine/db-url.js';
import { UserError } from '../../src/errors.js';

function errorOf(run: () => unknown): Error | null {
  try {
    run();
  } catch (e) {
    return e as Error;
  }
  return null;
}

describe('parseDbUrl', () => {
  it('parses the embedded forms', () => {
    expect(parseDbUrl('pglite:memory', {})).toEqual({ kind: 'pglite', dataDir: null });
    expect(parseDbUrl('pglite:./x/db', {})).toEqual({ kind: 'pglite', dataDir: './x/db' });
  });
  it('takes an Oracle password from the environment, and builds an Easy Connect string', () => {
    expect(parseDbUrl('oracle://loader@db.example:1522/FREEPDB1', { ORDER_LOADER_DB_PASSWORD: 's3cret' })).toEqual({
      kind: 'oracle',
      user: 'loader',
      password: 's3cret',
      connectString: 'db.example:1522/FREEPDB1',
      place: { host: 'db.example', port: 1522, database: 'FREEPDB1', user: 'loader', passwordFrom: 'env' },
    });
    expect(parseDbUrl('oracle://loader@db/FREEPDB1', {})).toMatchObject({ connectString: 'db:1521/FREEPDB1', password: undefined });
  });
  it('passes a PostgreSQL URL through, with the password from the environment when the URL has none', () => {
    expect(parseDbUrl('postgres://u@h:5432/d', { ORDER_LOADER_DB_PASSWORD: 'pw' })).toEqual({
      kind: 'postgres',
      url: 'postgres://u@h:5432/d',
      password: 'pw',
      place: { host: 'h', port: 5432, database: 'd', user: 'u', passwordFrom: 'env' },
    });
    expect(parseDbUrl('postgres://u:from-url@h/d', { ORDER_LOADER_DB_PASSWORD: 'pw' })).toMatchObject({
      url: 'postgres://u@h/d',
      password: 'from-url',
    });
  });
  it('refuses what it cannot use, without echoing a password', () => {
    for (const bad of ['mysql://u:hunter2@h/d', 'oracle://:hunter2@h/s', 'nonsense', 'pglite:', 'hunter2']) {
      const error = errorOf(() => parseDbUrl(bad, {}));
      expect(error, bad).toBeInstanceOf(UserError);
      expect((error as Error).message).not.toContain('hunter2');
    }
  });
  it('never echoes a …password… query parameter (wallet_password, sslpassword), refused or accepted', () => {
    const refused = errorOf(() => parseDbUrl('oracle://u@h:1521/S?wallet_password=Wallet5ecret', {}));
    expect(refused).toBeInstanceOf(UserError);
    expect((refused as Error).message).toContain('wallet_password=***');
    expect((refused as Error).message).not.toContain('Wallet5ecret');
    const refusedAlso = errorOf(() => parseDbUrl('oracle://u@h:1521/S?sslpassword=Ssl5ecret&bogus=1', {}));
    expect((refusedAlso as Error).message).not.toContain('Ssl5ecret');
    expect(redactSecrets('connect failed: Ssl5ecret')).not.toContain('Ssl5ecret');
  });
  it('masks passwords', () => {
    expect(maskDbUrl('postgres://u:hunter2@h:5432/d')).toBe('postgres://u:***@h:5432/d');
    expect(maskDbUrl('oracle://u@h/s')).toBe('oracle://u@h/s');
  });
});

/**
 * Every shape a --db value takes in practice: the secret must come out as the password (or the
 * URL be refused in one line), and never appear in what we print or in the password-free URL.
 */
const SECRET = 'Tr0ub4dor';
const shapes: Array<{ url: string; password?: string; refused?: RegExp; host?: string; database?: string }> = [
  { url: `postgres://u:${SECRET}@h:5432/d`, password: SECRET },
  { url: ` \tpostgres://u:${SECRET}@h:5432/d\n`, password: SECRET, host: 'h' },
  { url: `postgres://u@h/d?password=${SECRET}`, password: SECRET },
  { url: `postgres://u@h/d?sslmode=disable&password=${SECRET}&application_name=x`, password: SECRET },
  { url: `postgres://u:${SECRET}/x@h/d`, password: `${SECRET}/x` },
  { url: `postgres://u:${SECRET}?x@h/d`, password: `${SECRET}?x` },
  { url: `postgres://u:${SECRET}#x@h/d`, password: `${SECRET}#x` },
  { url: `postgres://u:${SECRET}@x@h/d`, password: `${SECRET}@x` },
  { url: `postgres://u:p@${SECRET}/w?rd#x@h/d`, password: `p@${SECRET}/w?rd#x` },
  { url: `postgres://u:${SECRET}:x@[::1]:5433/d`, password: `${SECRET}:x`, host: '::1' },
  { url: `postgres://u:${encodeURIComponent(`${SECRET}@/?#%`)}@h/d`, password: `${SECRET}@/?#%` },
  { url: `postgresql://u:${SECRET}@h/my%20db`, password: SECRET, database: 'my db' },
  { url: `oracle://u:${SECRET}@x@h:1522/SVC`, password: `${SECRET}@x`, host: 'h', database: 'SVC' },
  { url: `oracle://u@h/SVC?password=${SECRET}`, password: SECRET },
  { url: `postgres://u:${SECRET}%zz@h/d`, refused: /has a "%" that is not an escape/ },
  { url: `postgres://u:${SECRET}%@h/d`, refused: /has a "%" that is not an escape/ },
  { url: `postgres://u:${SECRET}%C3x@h/d`, refused: /not valid percent-encoded UTF-8/ },
  { url: `postgres://u:a@${SECRET}?x@h/d`, refused: /cannot tell where the password ends/ },
  { url: `postgres://u:${SECRET}`, refused: /cannot read this URL/ },
  { url: `postgres://u:${SECRET}@h:99999/d`, refused: /port must be a number/ },
  { url: `mysql://u:${SECRET}@h/d`, refused: /unsupported database "mysql"/ },
  { url: SECRET, refused: /not a database URL/ },
  { url: ` ${SECRET}@h/d`, refused: /not a database URL/ },
];

describe.each(shapes)('--db $url', (shape) => {
  it('never shows the secret; reads the password or refuses in one line', () => {
    const error = errorOf(() => parseDbUrl(shape.url, {}));
    expect(maskDbUrl(shape.url)).not.toContain(SECRET);
    if (shape.refused !== undefined) {
      expect(error).toBeInstanceOf(UserError);
      expect(error?.message).toMatch(shape.refused);
      expect(error?.message).not.toContain(SECRET);
      expect(error?.message).not.toContain('\n');
      return;
    }
    expect(error).toBeNull();
    const target = parseDbUrl(shape.url, {});
    if (target.kind === 'pglite') throw new Error('not a server URL');
    expect(target.password).toBe(shape.password);
    const { password: _password, ...rest } = target;
    expect(JSON.stringify(rest)).not.toContain(SECRET);
    if (shape.host !== undefined) expect(target.place.host).toBe(shape.host);
    if (shape.database !== undefined) expect(target.place.database).toBe(shape.database);
    if (target.kind === 'postgres') {
      // node-postgres reads the same password (and the other settings) from the string we hand it
      const pgConfig = parsePgConnectionString(postgresConnectionString(target.url, target.password));
      expect(pgConfig.password).toBe(shape.password);
      expect(pgConfig.user).toBe('u');
      expect(pgConfig.host).toBe(target.place.host);
      if (shape.url.includes('sslmode=disable')) expect(pgConfig).toMatchObject({ sslmode: 'disable', application_name: 'x' });
    }
  });
});

describe('redactSecrets', () => {
  it('takes a password we were given out of any text, as written and percent-encoded', () => {
    registerSecret('p@ss/word');
    expect(redactSecrets('failed for p@ss/word and p%40ss%2Fword')).toBe('failed for *** and ***');
    parseDbUrl('postgres://u@h/d', { ORDER_LOADER_DB_PASSWORD: 'env-Secret' });
    expect(redactSecrets('the server said env-Secret')).toBe('the server said ***');
  });
});
