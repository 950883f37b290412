/** Databases a CLI test loads into and then reads, on each engine the run has. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterEach, expect } from 'vitest';
import { createDatabase, dropDatabase } from '../../bench/pg-admin.js';
import { tempDir } from './files.js';
import { migratedPgliteDb } from './pglite-folders.js';
import { TEST_PG_URL } from './server-url.js';

export interface CliDb {
  url: string;
  sql<R>(text: string): Promise<R[]>;
  dispose(): Promise<void>;
}

/** PGlite, and server PostgreSQL when ORDER_LOADER_TEST_PG is set: a fresh migrated database each, for the CLI to load into. */
export function cliTargets(tag: string): Array<{ kind: string; create(): Promise<CliDb> }> {
  const targets: Array<{ kind: string; create(): Promise<CliDb> }> = [
    {
      kind: 'pglite',
      create: async () => {
        const { url, dataDir } = await migratedPgliteDb();
        return {
          url,
          async sql<R>(text: string) {
            const db = await PGlite.create(dataDir);
            try {
              return (await db.query<R>(text)).rows;
            } finally {
              await db.close();
            }
          },
          dispose: async () => {},
        };
      },
    },
  ];
  const pgUrl = TEST_PG_URL;
  if (pgUrl !== null) {
    let n = 0;
    targets.push({
      kind: 'postgres',
      create: async () => {
        const name = `order_loader_${tag}_${process.pid}_${Date.now().toString(36)}_${++n}`;
        const url = await createDatabase(pgUrl, name);
        return {
          url,
          async sql<R>(text: string) {
            const client = new pg.Client({ connectionString: url });
            await client.connect();
            try {
              return (await client.query(text)).rows as R[];
            } finally {
              await client.end();
            }
          },
          dispose: () => dropDatabase(pgUrl, name),
        };
      },
    });
  }
  return targets;
}

/**
 * For the tests of a describe: `start(yaml)` a fresh database of the target (the one before it, and
 * the last after the test, dropped) and a folder holding the profile; the load arguments that use
 * both; `sql` reads the current database.
 */
export function profiledCliDb(target: { create(): Promise<CliDb> }): {
  start(yaml: string): Promise<{ dir: string; quiet: string[] }>;
  sql<R>(text: string): Promise<R[]>;
} {
  let db: CliDb | undefined;
  afterEach(async () => {
    await db?.dispose();
    db = undefined;
  });
  return {
    async start(yaml) {
      await db?.dispose();
      const created = await target.create();
      db = created;
      const dir = tempDir();
      writeFileSync(join(dir, 'profile.yaml'), yaml);
      return { dir, quiet: ['--profile', join(dir, 'profile.yaml'), '--db', created.url, '--log-level', 'silent'] };
    },
    sql<R>(text: string) {
      if (db === undefined) throw new Error('start() first');
      return db.sql<R>(text);
    },
  };
}

/**
 * A run (a dry run, a refused file) wrote nothing: no order and no error-log row. A server
 * database it was pointed at is not even migrated; a PGlite one was made migrated by the test.
 */
export async function expectNothingWritten(db: CliDb): Promise<void> {
  const [made] = await db.sql<{ made: boolean }>("SELECT to_regclass('orders') IS NOT NULL AS made");
  if (made?.made === true) {
    expect(await db.sql('SELECT count(*)::int AS n FROM orders')).toEqual([{ n: 0 }]);
    expect(await db.sql('SELECT count(*)::int AS n FROM order_stage')).toEqual([{ n: 0 }]);
    expect(await db.sql('SELECT count(*)::int AS n FROM order_bulk_error')).toEqual([{ n: 0 }]);
  } else expect(await db.sql("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'")).toEqual([{ n: 0 }]);
}
