import type { Workspaces } from '../contract.js';
import type { WithSession } from './driver.js';
import { sqlQuery } from './rows.js';
import type { PgConnector, PgLease, PgSession } from './session.js';

/** A workspace is a schema whose name we make: checked, since it is spelled into DDL. */
function workspaceSchema(name: string): string {
  if (!/^order_loader_bench_[a-z0-9_]{1,40}$/.test(name)) throw new Error(`not a bench workspace name: ${name}`);
  return name;
}

/**
 * The advisory lock class of bench workspaces ('OLB!'): a workspace's lock is (this, hashtext of
 * its schema name), apart from every one-key (bigint) advisory lock of other applications.
 */
export const WORKSPACE_LOCK_CLASS = 0x4f4c4221;

/**
 * A bench workspace is a schema holding the loader's tables; while it exists it is first on the
 * search_path of every connection, so the same unqualified queries work in it.
 *
 * Leftovers of a run that died (kill -9, a crash, a lost machine) are dropped by the next bench,
 * before its first workspace:
 * - PostgreSQL server: the bench holds a session-level advisory lock on its workspace, on a
 *   connection of its own (outside the pool, so no worker waits for it), taken BEFORE the schema
 *   is created and held until it is dropped. The server ends the lock with that session,
 *   whatever ended it, so a workspace whose lock can be taken has no live bench: dropped. There
 *   is no moment a live workspace is unlocked, hence no grace period (unlike Oracle's, where the
 *   owner table must exist before it can be locked).
 * - PGlite: the folder is one process's (src/engine/folder-lock.ts), so every workspace but this
 *   process's own is a dead run's.
 */
export function workspaces(withSession: WithSession, connector: PgConnector, migrate: () => Promise<string[]>): Workspaces {
  /** The live workspaces of this process, each with its lock's connection (server only). */
  const live = new Map<string, PgLease | null>();
  let swept = false;

  const tryLock = async (session: PgSession, schema: string) =>
    (await session.query<{ locked: boolean }>(sqlQuery('bench_workspace_try_lock'), [WORKSPACE_LOCK_CLASS, schema])).rows[0]?.locked ===
    true;

  /** Every workspace of a dead run, dropped; one line each. */
  async function sweep(): Promise<string[]> {
    const found = await withSession(async (s) =>
      (await s.query<{ schema: string }>(sqlQuery('bench_workspaces'))).rows.map((r) => r.schema),
    );
    const dropped: string[] = [];
    for (const schema of found) {
      if (live.has(schema) || !/^order_loader_bench_[a-z0-9_]{1,40}$/.test(schema)) continue;
      const gone = await withSession(async (s) => {
        if (connector.dedicated === undefined) {
          await s.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          return true;
        }
        if (!(await tryLock(s, schema))) return false; // its bench is alive
        try {
          await s.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        } finally {
          await s.query(sqlQuery('bench_workspace_unlock'), [WORKSPACE_LOCK_CLASS, schema]);
        }
        return true;
      });
      if (gone) dropped.push(schema);
    }
    return dropped;
  }

  const self: Workspaces = {
    benchRunInLoaderHistory: true,

    async createWorkspace(name: string): Promise<{ dropped: string[] }> {
      const schema = workspaceSchema(name);
      if (live.has(schema)) throw new Error(`bench workspace ${schema} exists already`);
      const holder = connector.dedicated === undefined ? null : await connector.dedicated();
      try {
        if (holder !== null && !(await tryLock(holder.session, schema)))
          throw new Error(`bench workspace ${schema}: its lock is held by another session`);
      } catch (error) {
        holder?.release(error instanceof Error ? error : new Error(String(error)));
        throw error;
      }
      live.set(schema, holder);
      try {
        const dropped = swept ? [] : await sweep();
        swept = true;
        await withSession((s) => s.exec(`CREATE SCHEMA ${schema}`));
        await connector.setSearchPath(schema);
        await migrate();
        return { dropped };
      } catch (error) {
        await self.dropWorkspace(name).catch(() => undefined);
        throw error;
      }
    },

    async dropWorkspace(name: string): Promise<void> {
      const schema = workspaceSchema(name);
      const holder = live.get(schema) ?? null;
      live.delete(schema);
      try {
        await connector.setSearchPath(null);
        await withSession((s) => s.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
      } finally {
        // closing the connection ends the lock: a schema left by a failed DROP is a later sweep's
        holder?.release();
      }
    },
  };
  return self;
}
