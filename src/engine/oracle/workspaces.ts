import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { listMigrations } from '../../sql-files.js';
import type { Driver, Workspaces } from '../contract.js';
import { MAX_BYTES } from './binds.js';
import { primaryOracleCode } from './classify.js';
import { onOracleConnection } from './driver.js';
import type { OraBinds, OraConnection } from './oracledb-types.js';
import { type OracleKit, int, rowsOf, text } from './rows.js';
import { oracleQuery, splitStatements } from './sql-text.js';
import type { WorkspaceScope } from './workspace-scope.js';
import { WORKSPACE_PREFIX, WorkspaceSql, replaceNames, workspaceObjectName } from './workspace-sql.js';

/**
 * Bench workspaces on Oracle. The loader's user may create tables, not users (schemas), and
 * reads no DBA view; so a workspace is the loader's tables created again under a prefix of its
 * own, `OLB_<8 random hex>_` (OLB_1A2B3C4D_ORDERS …), and while it exists every statement of the
 * engine is pointed at those tables (workspace-scope.ts, workspace-sql.ts). The loader's own
 * tables are never named by a statement of the bench.
 *
 * Leftovers of a crash. A workspace also has an owner table, OLB_<hex>_OWNER, holding the
 * host, pid and start time of the bench that made it; that bench keeps a session of its own
 * holding `LOCK TABLE … IN EXCLUSIVE MODE` on it until the workspace is dropped. The first
 * workspace a bench creates is preceded by a sweep: every owner table whose lock can be taken
 * (LOCK … NOWAIT succeeds) is a workspace of a dead run, and its tables are dropped.
 *
 * Why a lock and not the pid or an age: the pid says nothing on another host, and a bench may
 * rightly run for hours. A table lock is held by a session, and Oracle releases it when that
 * session ends, whatever ended it (a crash, kill -9, a reboot of the client: the server notices
 * the dead socket through the connection's expireTime keepalive, then PMON ends the session and
 * rolls it back). So "its lock can be taken" means exactly "the session that created it is
 * gone". The one moment a live workspace holds no lock is between the CREATE TABLE of its owner
 * table and the LOCK (three round trips); hence a workspace is swept only once it is older than
 * GRACE_SECONDS by the database's clock: its owner row's started_at (SYSTIMESTAMP of the insert),
 * or, for an owner table without its row, the table's creation time (USER_OBJECTS.CREATED). A live bench that lost its lock session
 * (a network cut) can have its workspace swept by another bench: its next statement then fails
 * (ORA-00942) and that bench stops; the loader's tables are untouched either way.
 */

/** A workspace started less than this ago (its owner row; without one, its owner table's creation) is never swept. */
export const GRACE_SECONDS = 600;

const NO_BINDS: OraBinds = {};
const DDL = { autoCommit: false } as const;

/** Errors that mean "already gone" when dropping a leftover table (another bench dropped it first). */
const TABLE_GONE = 'ORA-00942';
/** "resource busy and acquire with NOWAIT specified": another session holds the lock. */
const RESOURCE_BUSY = 'ORA-00054';

/** queries/<name>.sql with workspace_owner / workspace_table replaced by real (checked) names. */
function workspaceStatement(name: string, owner: string, table?: string): string {
  const names = new Map([['WORKSPACE_OWNER', owner]]);
  if (table !== undefined) names.set('WORKSPACE_TABLE', table);
  return replaceNames(oracleQuery(name), names);
}

function ownerTable(prefix: string): string {
  return workspaceObjectName(prefix, 'OWNER');
}

/** The LIKE pattern of a prefix's tables: 'OLB\_1A2B3C4D\_%'. */
function tablePattern(prefix: string): string {
  if (!WORKSPACE_PREFIX.test(prefix)) throw new Error(`not a bench workspace prefix: ${prefix}`);
  return `${prefix.replace(/_/g, '\\_')}\\_%`;
}

/** The loader's schema, statement by statement, as the migrations create it. */
function schemaStatements(): string[] {
  return listMigrations('oracle').flatMap((m) => splitStatements(m.sql));
}

interface LiveWorkspace {
  readonly sql: WorkspaceSql;
  /** The session holding the owner table's lock. */
  readonly holder: OraConnection;
}

export function oracleWorkspaces(driver: Driver<OraConnection>, kit: OracleKit, scope: WorkspaceScope): Workspaces {
  const live = new Map<string, LiveWorkspace>();
  let swept = false;

  /** Drop the workspace tables listed (names checked against the prefix), tolerating ORA-00942. */
  async function dropTables(connection: OraConnection, prefix: string, tables: readonly string[]): Promise<void> {
    const owner = ownerTable(prefix);
    for (const table of tables) {
      if (!table.startsWith(`${prefix}_`) || !/^[A-Z][A-Z0-9_$#]*$/.test(table))
        throw new Error(`not a table of workspace ${prefix}: ${table}`);
      try {
        await connection.execute(workspaceStatement('bench_drop_table', owner, table), NO_BINDS, DDL);
      } catch (error) {
        if (primaryOracleCode(error) !== TABLE_GONE) throw error;
      }
    }
  }

  async function tablesOf(connection: OraConnection, prefix: string): Promise<string[]> {
    const result = await connection.execute(
      oracleQuery('bench_workspace_tables'),
      { pattern: kit.binds.str(tablePattern(prefix), MAX_BYTES.identifier) },
      kit.queryOptions,
    );
    return rowsOf(result).map((r) => String(r.TABLE_NAME));
  }

  /**
   * Drop the workspace `prefix` if its owner session is gone and it is past the grace period
   * (by its owner row's start; by its owner table's creation when the row is missing); a line
   * for the log, or null.
   */
  function dropIfDead(prefix: string, createdPastGrace: boolean): Promise<string | null> {
    const owner = ownerTable(prefix);
    return onOracleConnection(driver, async (connection) => {
      try {
        await connection.execute(workspaceStatement('bench_owner_try_lock', owner), NO_BINDS, DDL);
      } catch (error) {
        const code = primaryOracleCode(error);
        if (code === RESOURCE_BUSY || code === TABLE_GONE) return null; // alive, or dropped meanwhile
        throw error;
      }
      const who = rowsOf(
        await connection.execute(
          workspaceStatement('bench_owner_read', owner),
          { grace_seconds: kit.binds.num(GRACE_SECONDS) },
          kit.queryOptions,
        ),
      )[0];
      const pastGrace = who === undefined ? createdPastGrace : int(who.PAST_GRACE, 'past_grace') === 1;
      // too young to tell: the lock is ended by this transaction's COMMIT (onOracleConnection)
      if (!pastGrace) return null;
      const tables = await tablesOf(connection, prefix);
      // the owner table is listed last: the first DROP ends the lock, and until the owner
      // table is gone another sweep may find the rest (its drops tolerate ORA-00942)
      await dropTables(connection, prefix, tables);
      const by =
        who === undefined
          ? 'owner unknown'
          : `pid ${text(who.PID) ?? '?'} on ${text(who.HOST) ?? '?'}, started ${text(who.STARTED_AT) ?? '?'}`;
      return `${prefix} (${by}; ${tables.length} tables)`;
    });
  }

  /** Every workspace of a dead run, dropped; one line each. */
  async function sweep(): Promise<string[]> {
    const found = await onOracleConnection(driver, async (connection) =>
      rowsOf(await connection.execute(oracleQuery('bench_workspaces'), { grace_seconds: kit.binds.num(GRACE_SECONDS) }, kit.queryOptions)),
    );
    const dropped: string[] = [];
    for (const row of found) {
      const prefix = /^(OLB_[0-9A-F]{8})_OWNER$/.exec(String(row.OWNER_TABLE))?.[1];
      if (prefix === undefined || [...live.values()].some((w) => w.sql.prefix === prefix)) continue;
      const line = await dropIfDead(prefix, int(row.CREATED_PAST_GRACE, 'created_past_grace') === 1);
      if (line !== null) dropped.push(line);
    }
    return dropped;
  }

  /** The owner table, its row, and the lock held on it by a session kept for the workspace. */
  async function claim(prefix: string): Promise<OraConnection> {
    const owner = ownerTable(prefix);
    const holder = await driver.acquire();
    try {
      await holder.execute(workspaceStatement('bench_owner_create', owner), NO_BINDS, DDL);
      await holder.execute(
        workspaceStatement('bench_owner_insert', owner),
        { host: kit.binds.str(hostname().slice(0, 255), 1020), pid: kit.binds.num(process.pid) },
        DDL,
      );
      await driver.commit(holder);
      await holder.execute(workspaceStatement('bench_owner_lock', owner), NO_BINDS, DDL);
      return holder;
    } catch (error) {
      // the owner table, if made, is left to a later sweep (GRACE_SECONDS): dropping it here
      // could fail for the same reason
      await driver.release(holder, error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
  }

  const workspaces: Workspaces = {
    benchRunInLoaderHistory: false,

    async createWorkspace(name: string): Promise<{ dropped: string[] }> {
      if (live.has(name)) throw new Error(`bench workspace ${name} exists already`);
      const dropped = swept ? [] : await sweep();
      swept = true;
      const sql = new WorkspaceSql(`OLB_${randomBytes(4).toString('hex').toUpperCase()}`);
      const holder = await claim(sql.prefix);
      live.set(name, { sql, holder });
      try {
        scope.enter(sql);
        // the migrations' statements, pointed at the workspace by the scope; no migration
        // bookkeeping: a workspace is made whole by one process, and a half-made one is dropped
        await onOracleConnection(driver, async (connection) => {
          for (const statement of schemaStatements()) await connection.execute(statement, NO_BINDS, DDL);
        });
      } catch (error) {
        await workspaces.dropWorkspace(name).catch(() => undefined);
        throw error;
      }
      return { dropped };
    },

    async dropWorkspace(name: string): Promise<void> {
      const workspace = live.get(name);
      if (workspace === undefined) return;
      live.delete(name);
      if (scope.workspace === workspace.sql) scope.leave();
      const { prefix } = workspace.sql;
      let failed: Error | undefined;
      let rest = false;
      try {
        await onOracleConnection(driver, async (connection) => {
          const tables = (await tablesOf(connection, prefix)).filter((t) => t !== ownerTable(prefix));
          await dropTables(connection, prefix, tables);
        });
        rest = true;
      } finally {
        try {
          // the owner table last, by the session holding its lock (its DDL ends the lock); if
          // some table could not be dropped, the owner table stays and the lock is ended by a
          // ROLLBACK, so that a later bench's sweep finds the workspace and drops the rest
          if (rest) await dropTables(workspace.holder, prefix, [ownerTable(prefix)]);
          else await driver.rollback(workspace.holder);
        } catch (error) {
          failed = error instanceof Error ? error : new Error(String(error));
        }
        await driver.release(workspace.holder, failed);
      }
      if (failed !== undefined) throw failed;
    },
  };
  return workspaces;
}
