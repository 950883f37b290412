import type { Workspaces } from '../contract.js';
import type { WithSession } from './driver.js';
import type { PgConnector } from './session.js';

/** A workspace is a schema whose name we make: checked, since it is spelled into DDL. */
function workspaceSchema(name: string): string {
  if (!/^order_loader_bench_[a-z0-9_]{1,40}$/.test(name)) throw new Error(`not a bench workspace name: ${name}`);
  return name;
}

/**
 * A bench workspace is a schema holding the loader's tables; while it exists it is first on the
 * search_path of every connection, so the same unqualified queries work in it.
 */
export function workspaces(withSession: WithSession, connector: PgConnector, migrate: () => Promise<string[]>): Workspaces {
  return {
    benchRunInLoaderHistory: true,

    async createWorkspace(name: string): Promise<{ dropped: string[] }> {
      const schema = workspaceSchema(name);
      await withSession((s) => s.exec(`CREATE SCHEMA ${schema}`));
      await connector.setSearchPath(schema);
      await migrate();
      return { dropped: [] };
    },

    async dropWorkspace(name: string): Promise<void> {
      const schema = workspaceSchema(name);
      await connector.setSearchPath(null);
      await withSession((s) => s.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
    },
  };
}
