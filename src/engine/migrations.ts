/**
 * The one migration runner: numbered files under sql/<engine>/migrations, each applied once,
 * in order, by one process at a time. What differs between engines is in the hooks: how
 * migrators are held off each other, how a file splits into statements, how a statement that
 * was already applied (an interrupted run) is told apart, how a migration is recorded.
 */
import { listMigrations, type Migration } from '../sql-files.js';

export interface MigrationHooks<C> {
  /** The folder under sql/ that holds this engine's migrations. */
  readonly sqlFolder: string;
  /**
   * Run `work` while every other migrator of this database waits (PostgreSQL: one transaction
   * holding an advisory lock; Oracle: a second session holding a table lock). The bookkeeping
   * table exists when `work` starts.
   */
  serialised<T>(work: (connection: C) => Promise<T>): Promise<T>;
  /** Versions already recorded as applied. */
  appliedVersions(connection: C): Promise<Set<number>>;
  /**
   * The versions recorded as applied, read in one statement without the lock, or null when the
   * bookkeeping table is not there yet: a database that has every migration opens without
   * queueing behind the lock (and its round trips). A record commits with its migration, so a
   * version read here is applied.
   */
  appliedUnlocked?(): Promise<Set<number> | null>;
  /** The statements of one migration file, in order. */
  statements(migration: Migration): string[];
  /** Apply one statement. */
  applyStatement(connection: C, statement: string): Promise<void>;
  /** Record the migration as applied (where DDL commits on its own, this commits too). */
  record(connection: C, migration: Migration): Promise<void>;
}

/** Apply the pending migrations; returns the names applied (empty when up to date). */
export async function runMigrations<C>(hooks: MigrationHooks<C>): Promise<string[]> {
  const migrations = listMigrations(hooks.sqlFolder);
  const recorded = await hooks.appliedUnlocked?.();
  if (recorded != null && migrations.every((m) => recorded.has(m.version))) return [];
  return hooks.serialised(async (connection) => {
    const applied = await hooks.appliedVersions(connection);
    const names: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      for (const statement of hooks.statements(migration)) await hooks.applyStatement(connection, statement);
      await hooks.record(connection, migration);
      names.push(migration.name);
    }
    return names;
  });
}
