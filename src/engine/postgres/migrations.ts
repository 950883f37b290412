import type { Driver } from '../contract.js';
import type { MigrationHooks } from '../migrations.js';
import { inTransaction, onConnection } from '../transaction.js';
import { sqlstateOf } from './classify.js';
import type { PgLease, PgSession } from './session.js';

/** Serialises migrations across processes; any constant works, this one spells "ordr". */
const MIGRATION_LOCK_KEY = 0x6f726472;

/** 42P01 undefined_table: a database no migration ran on yet. */
const UNDEFINED_TABLE = '42P01';

async function appliedVersions(session: PgSession): Promise<Set<number>> {
  const { rows } = await session.query<{ version: number }>('SELECT version FROM order_loader_migration');
  return new Set(rows.map((r) => r.version));
}

/**
 * PostgreSQL's DDL is transactional: every pending migration and its record are applied in one
 * transaction that holds an advisory lock, so another migrator waits, then finds them applied.
 */
export function migrationHooks(driver: Driver<PgLease>): MigrationHooks<PgSession> {
  return {
    sqlFolder: 'postgres',
    serialised: (work) =>
      inTransaction(driver, async ({ session }) => {
        await session.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
        await session.exec(`CREATE TABLE IF NOT EXISTS order_loader_migration (
            version    integer PRIMARY KEY,
            name       varchar(200) NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now())`);
        return work(session);
      }),
    appliedVersions,
    // outside a transaction: the error of a new database's missing table ends nothing
    appliedUnlocked: () =>
      onConnection(driver, ({ session }) =>
        appliedVersions(session).catch((error: unknown) => {
          if (sqlstateOf(error) === UNDEFINED_TABLE) return null;
          throw error;
        }),
      ),
    // A whole file is one exec (simple query protocol, several statements in one round trip);
    // an interrupted run left nothing behind, since the transaction rolled back.
    statements: (migration) => [migration.sql],
    applyStatement: (session, statement) => session.exec(statement),
    async record(session, migration) {
      await session.query('INSERT INTO order_loader_migration (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
    },
  };
}
