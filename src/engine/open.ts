import type { Engine } from './types.js';
import type { DbTarget } from './db-url.js';
import type { FolderLockOptions } from './folder-lock.js';

export interface OpenOptions {
  /** Connections the caller will use at once (workers); pools are sized to it. */
  connections: number;
  /** An embedded database folder is locked for this process: how to wait, and what to call us. */
  folderLock?: FolderLockOptions | undefined;
  /** Debug lines of opening (pglite: whether a new database came from the ready-made one or initdb). */
  debug?: ((fields: Record<string, unknown>, message: string) => void) | undefined;
}

/**
 * What an engine of this target can do, known before it is opened (the engine's own
 * `capabilities` say the same once open): the command line refuses an option the database
 * cannot honour before it opens (and migrates) anything.
 */
export function targetCapabilities(target: DbTarget): { concurrentConnections: boolean } {
  // PGlite runs in this process on one connection (src/engine/postgres/pglite-connector.ts)
  return { concurrentConnections: target.kind !== 'pglite' };
}

/** How a target's kind is named to a person. */
export const DATABASE_NAMES: Record<DbTarget['kind'], string> = { pglite: 'PGlite', postgres: 'PostgreSQL', oracle: 'Oracle' };

/**
 * Open the engine for a parsed --db target. Drivers, and the engines' own modules, are loaded
 * only for the engine used: whatever imports this module (the command line) starts without them.
 */
export async function openEngine(target: DbTarget, options: OpenOptions): Promise<Engine> {
  switch (target.kind) {
    case 'pglite': {
      const [{ createPgliteConnector }, { createPostgresEngine }] = await Promise.all([
        import('./postgres/pglite-connector.js'),
        import('./postgres/index.js'),
      ]);
      return createPostgresEngine(await createPgliteConnector(target.dataDir, options.folderLock, { debug: options.debug }));
    }
    case 'postgres': {
      const [{ createPgServerConnector }, { createPostgresEngine }] = await Promise.all([
        import('./postgres/pg-connector.js'),
        import('./postgres/index.js'),
      ]);
      return createPostgresEngine(
        createPgServerConnector({ connectionString: target.url, password: target.password, maxConnections: options.connections + 1 }),
      );
    }
    case 'oracle': {
      const { createOracleEngine } = await import('./oracle/index.js');
      return createOracleEngine({
        user: target.user,
        password: target.password,
        connectString: target.connectString,
        driverOptions: target.driverOptions,
        poolMax: options.connections + 1,
        oracle: target.oracle,
      });
    }
  }
}
