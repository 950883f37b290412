/**
 * What a test database is, the same on every target (test/support/databases.ts): create()
 * gives a migrated, empty database before any loader is opened (PGlite and PostgreSQL from a
 * migrated template, Oracle's one schema emptied or dropped and migrated again), and a test
 * holds one database of a target at a time, since Oracle's target cannot give two independent
 * ones. A test written against PostgreSQL that assumed otherwise fails here, not on its first
 * run against Oracle.
 */
import pg from 'pg';
import { expect } from 'vitest';
import { pgOneSchemaMode } from '../support/pg-one-schema.js';
import { forEachTarget, targetTest } from '../support/target-test.js';

forEachTarget('a test database on $kind', (target) => {
  targetTest('is migrated and empty when create() returns, before any loader opens it', async ({ db }) => {
    for (const table of ['order_stage', 'orders', 'order_bulk_error', 'load_run', 'load_run_event'])
      expect(await db.sql(`SELECT count(*) AS n FROM ${table}`), table).toEqual([{ n: 0 }]);
    const [migrations] = await db.sql<{ n: number }>('SELECT count(*) AS n FROM order_loader_migration');
    expect(migrations?.n).toBeGreaterThan(0);
  });

  targetTest('is the only one of its target in a test: a second create() is refused until it is given back', async ({ db }) => {
    await expect(target.create()).rejects.toThrow(`one ${target.kind} database per test`);
    await db.sql("INSERT INTO load_run (command, host, pid) VALUES ('load', 'h', 1)");
    await db.dispose({ reuse: true });
    const second = await target.create();
    try {
      expect(await second.sql('SELECT count(*) AS n FROM load_run')).toEqual([{ n: 0 }]);
    } finally {
      await second.dispose({ reuse: true });
    }
  });

  // PostgreSQL in the Oracle target's mode (test/support/pg-one-schema.ts): the one schema is
  // handed on, whatever an earlier test left on it, as on Oracle; a session left on it is named
  // (defined in that mode only: elsewhere a new database is made for each test)
  if (target.kind === 'postgres' && pgOneSchemaMode())
    targetTest('the next create() fails, naming the test, when a session a test opened is still on the one schema', async ({ db }) => {
      const left = new pg.Client({ connectionString: db.url ?? '', application_name: 'left-open' });
      await left.connect();
      left.on('error', () => {});
      try {
        await db.dispose();
        await expect(target.create()).rejects.toThrow(/session\(s\) of ".*a session a test opened.*" on it \(left-open/);
      } finally {
        await left.end().catch(() => undefined);
      }
      const next = await target.create();
      await next.dispose();
    });
});
