import type {
  OraBinds,
  OraConnection,
  OraConnector,
  OraExecuteManyOptions,
  OraExecuteManyResult,
  OraExecuteOptions,
  OraExecuteResult,
} from './oracledb-types.js';
import type { WorkspaceSql } from './workspace-sql.js';

/**
 * Which tables the engine's statements name: the loader's (no workspace), or a bench
 * workspace's while one is in scope (workspaces.ts). The Oracle counterpart of PostgreSQL's
 * search_path: one per engine, switched only between bench cases, when no statement runs.
 */
export class WorkspaceScope {
  private current: WorkspaceSql | null = null;

  get workspace(): WorkspaceSql | null {
    return this.current;
  }

  enter(workspace: WorkspaceSql): void {
    if (this.current !== null) throw new Error(`bench workspace ${this.current.prefix} is still in scope`);
    this.current = workspace;
  }

  leave(): void {
    this.current = null;
  }

  /** The text to send: `sql` as written, or pointed at the workspace in scope. */
  sql(sql: string): string {
    return this.current === null ? sql : this.current.rewrite(sql);
  }
}

/**
 * A connection that sends every statement through the scope: the one place where the text is
 * pointed at a workspace, so that no slice (staging, chunk, journal, reports) knows of
 * workspaces and no statement can miss the substitution.
 */
class ScopedConnection implements OraConnection {
  constructor(
    private readonly inner: OraConnection,
    private readonly scope: WorkspaceScope,
  ) {}

  get callTimeout(): number | undefined {
    return this.inner.callTimeout;
  }

  set callTimeout(ms: number | undefined) {
    this.inner.callTimeout = ms;
  }

  execute(sql: string, binds: OraBinds, options: OraExecuteOptions): Promise<OraExecuteResult> {
    return this.inner.execute(this.scope.sql(sql), binds, options);
  }

  executeMany(sql: string, binds: OraBinds[], options: OraExecuteManyOptions): Promise<OraExecuteManyResult> {
    return this.inner.executeMany(this.scope.sql(sql), binds, options);
  }

  commit(): Promise<void> {
    return this.inner.commit();
  }

  rollback(): Promise<void> {
    return this.inner.rollback();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  isHealthy(): boolean {
    return this.inner.isHealthy?.() !== false;
  }

  get destroy(): (() => void) | undefined {
    const inner = this.inner;
    return inner.destroy === undefined ? undefined : () => inner.destroy?.();
  }

  get break(): (() => Promise<void>) | undefined {
    const inner = this.inner;
    return inner.break === undefined ? undefined : () => inner.break?.() ?? Promise.resolve();
  }
}

/** `connector`'s connections, each sending its statements through `scope`. */
export function scopedConnector(connector: OraConnector, scope: WorkspaceScope): OraConnector {
  return {
    getConnection: async () => new ScopedConnection(await connector.getConnection(), scope),
  };
}
