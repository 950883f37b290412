import { describe, expect, it } from 'vitest';
import { maskDbUrl, parseDbUrl } from '../../src/engine/db-url.js';
import { UserError } from '../../src/errors.js';

describe('parseDbUrl', () => {
  it('parses the embedded forms', () => {
    expect(parseDbUrl('pglite:memory', {})).toEqual({ kind: 'pglite', dataDir: null });
    expect(parseDbUrl('pglite:./x/db', {})).toEqual({ kind: 'pglite', dataDir: './x/db' });
  });
  it('takes an Oracle password from the environment, and builds an Easy Connect string', () => {
    expect(parseDbUrl('oracle://loader@db.example:1522/FREEPDB1', { ORDER_LOADER_DB_PASSWORD: 's3cret' })).toEqual({
      kind: 'oracle', user: 'loader', password: 's3cret', connectString: 'db.example:1522/FREEPDB1',
    });
    expect(parseDbUrl('oracle://loader@db/FREEPDB1', {})).toMatchObject({ connectString: 'db:1521/FREEPDB1', password: undefined });
  });
  it('passes a PostgreSQL URL through, with the password from the environment when the URL has none', () => {
    expect(parseDbUrl('postgres://u@h:5432/d', { ORDER_LOADER_DB_PASSWORD: 'pw' })).toEqual({ kind: 'postgres', url: 'postgres://u@h:5432/d', password: 'pw' });
  });
  it('refuses what it cannot use, without echoing a password', () => {
    for (const bad of ['mysql://u:hunter2@h/d', 'oracle://:hunter2@h/s', 'nonsense', 'pglite:']) {
      const error = (() => { try { parseDbUrl(bad, {}); } catch (e) { return e; } return null; })();
      expect(error, bad).toBeInstanceOf(UserError);
      expect((error as Error).message).not.toContain('hunter2');
    }
  });
  it('masks passwords', () => {
    expect(maskDbUrl('postgres://u:hunter2@h:5432/d')).toBe('postgres://u:***@h:5432/d');
    expect(maskDbUrl('oracle://u@h/s')).toBe('oracle://u@h/s');
  });
});
