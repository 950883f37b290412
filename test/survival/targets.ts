/**
 * The databases a survival test runs its CLI against: a migrated PGlite folder always, a fresh
 * server database too when ORDER_LOADER_TEST_PG is set. `withSql` reads the database between
 * runs (a PGlite folder is one process's at a time: only while no CLI runs on it).
 */
import { PGlite } from '@electric-sql/pglite';
import type { Sql } from '../support/invariants.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { PG_ADMIN_URL, freshServerDb } from './harness.js';

export interface SurvivalDb {
  url: string;
  withSql<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  dispose(): Promise<void>;
}

export interface SurvivalTarget {
  kind: string;
  create(): Promise<SurvivalDb>;
}

export const SURVIVAL_TARGETS: SurvivalTarget[] = [
  {
    kind: 'pglite',
    async create() {
      const { url, dataDir } = await migratedPgliteDb();
      return {
        url,
        async withSql(fn) {
          const db = await PGlite.create({ dataDir });
          try {
            return await fn(async (text, params) => (await db.query(text, params)).rows as never[]);
          } finally {
            await db.close();
          }
        },
        dispose: () => Promise.resolve(),
      };
    },
  },
  ...(PG_ADMIN_URL === null
    ? []
    : [
        {
          kind: 'postgres',
          async create() {
            const db = await freshServerDb();
            return { url: db.url, withSql: (fn) => fn(db.sql), dispose: () => db.dispose() };
          },
        } satisfies SurvivalTarget,
      ]),
];
