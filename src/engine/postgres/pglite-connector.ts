import { mkdirSync } from 'node:fs';
import { PGlite, type PGliteInterface } from '@electric-sql/pglite';
import type { PgConnector, PgLease, PgSession } from './session.js';

/**
 * Embedded PostgreSQL (PGlite): one connection in this process. Leases are handed out one at
 * a time (a queue), so each transaction has the connection to itself.
 */
export async function createPgliteConnector(dataDir: string | null): Promise<PgConnector> {
  if (dataDir !== null) mkdirSync(dataDir, { recursive: true });
  return pgliteConnectorFor(await PGlite.create({ ...(dataDir !== null ? { dataDir } : {}), parsers: PGLITE_PARSERS }));
}

/** bigint → number (our ids stay far below 2^53), date → 'YYYY-MM-DD' text; numeric stays text. */
export const PGLITE_PARSERS = { 20: (value: string) => Number(value), 1082: (value: string) => value };

/** A connector over an open PGlite instance (created with PGLITE_PARSERS); closing it closes the instance. */
export function pgliteConnectorFor(db: PGliteInterface): PgConnector {
  const session: PgSession = {
    async query<R>(text: string, params?: readonly unknown[]) {
      const result = await db.query<R>(text, params as unknown[] | undefined);
      return { rows: result.rows, affectedRows: result.affectedRows ?? 0 };
    },
    async exec(text: string): Promise<void> {
      await db.exec(text);
    },
  };
  let queue: Promise<void> = Promise.resolve();
  return {
    kind: 'pglite',
    concurrent: false,
    acquire(): Promise<PgLease> {
      let release!: () => void;
      const previous = queue;
      queue = new Promise<void>((resolve) => {
        release = resolve;
      });
      return previous.then(() => ({ session, release: () => release() }));
    },
    async setSearchPath(schema: string | null) {
      await db.exec(schema === null ? 'RESET search_path' : `SET search_path TO ${schema}`);
    },
    async end() {
      await queue;
      await db.close();
    },
  };
}
