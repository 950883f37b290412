import type { Driver } from '../contract.js';
import type { MigrationHooks } from '../migrations.js';
import { inTransaction } from '../transaction.js';
import { readSql } from '../../sql-files.js';
import { primaryOracleCode } from './classify.js';
import type { OraConnection, OraConstants } from './oracledb-types.js';
import { oracleQuery, splitStatements } from './sql-text.js';

/**
 * Migrations on Oracle (the hooks of src/engine/migrations.ts).
 *
 * Oracle DDL commits implicitly, before and after each statement: a migration cannot be one
 * transaction, and a lock taken by the session that runs the DDL is released by its first
 * DDL statement. Hence:
 *
 * 1. Serialisation: a second connection holds `LOCK TABLE order_loader_migration_lock IN
 *    EXCLUSIVE MODE` for the whole run and never commits (it rolls back at the end, which
 *    releases the lock; if the process dies, the session ends and so does the lock). Another
 *    migrate() waits on the same LOCK TABLE. The lock is not taken on order_loader_migration
 *    itself, because the working connection must insert into that table while the lock is
 *    held, and an EXCLUSIVE table lock blocks other sessions' DML. No DBMS_LOCK (it needs an
 *    EXECUTE grant). Both tables are created first, each tolerating ORA-00955 (another process
 *    created it first).
 * 2. Each statement of a migration file (blocks separated by a line holding only "/") is sent
 *    on its own by the working connection; the migration is recorded in
 *    order_loader_migration (and committed) after its last statement.
 * 3. A migration that was interrupted part-way (its DDL done, its row not recorded) is run
 *    again from its first statement. The errors that only mean "this statement was already
 *    applied" are then ignored: see ALREADY_APPLIED. We chose that over recording progress per
 *    statement because it keeps the migration files plain DDL that a DBA can read and run, and
 *    because every statement we write is a create/add whose "already there" error is
 *    unambiguous. The price: if an object of the same name but a different shape already
 *    exists (made by hand), it is accepted as is.
 */

/** Errors that mean "already applied" for CREATE / ALTER TABLE ... ADD statements. */
export const ALREADY_APPLIED: ReadonlyMap<string, string> = new Map([
  ['ORA-00955', 'name is already used by an existing object (CREATE TABLE / INDEX / SEQUENCE)'],
  ['ORA-01430', 'column being added already exists in table (ALTER TABLE ... ADD column)'],
  ['ORA-02260', 'table can have only one primary key (ALTER TABLE ... ADD PRIMARY KEY)'],
  ['ORA-02261', 'such unique or primary key already exists in the table'],
  ['ORA-02264', 'name already used by an existing constraint'],
  ['ORA-02275', 'such a referential constraint already exists in the table'],
  ['ORA-01442', 'column to be modified to NOT NULL is already NOT NULL'],
]);

/** The bookkeeping tables may have been created by another process first. */
const BOOTSTRAP_TOLERATED: ReadonlySet<string> = new Set(['ORA-00955']);

const NO_BINDS = {};

async function runDdl(connection: OraConnection, statement: string, tolerated: ReadonlySet<string> | ReadonlyMap<string, string>): Promise<void> {
  try {
    await connection.execute(statement, NO_BINDS, { autoCommit: false });
  } catch (error) {
    if (!tolerated.has(primaryOracleCode(error))) throw error;
  }
}

/**
 * The driver as both migration sessions use it: their transactions end in ROLLBACK, not
 * COMMIT. Nothing is left to keep (DDL commits itself, each migration commits its record) and
 * the lock session's ROLLBACK is what releases the table lock. A ROLLBACK that fails after
 * the work succeeded does not fail the run: the connection is dropped instead.
 */
function endingInRollback(driver: Driver<OraConnection>): Driver<OraConnection> {
  const broken = new WeakMap<OraConnection, Error>();
  return {
    ...driver,
    commit: async (connection) => {
      try {
        await driver.rollback(connection);
      } catch (error) {
        broken.set(connection, error instanceof Error ? error : new Error(String(error)));
      }
    },
    release: (connection, error) => driver.release(connection, error ?? broken.get(connection)),
  };
}

export function oracleMigrationHooks(driver: Driver<OraConnection>, c: OraConstants): MigrationHooks<OraConnection> {
  const session = endingInRollback(driver);
  return {
    sqlFolder: 'oracle',

    serialised: (work) =>
      inTransaction(session, async (lock) => {
        for (const statement of splitStatements(readSql('oracle', 'queries/migration_bootstrap.sql'))) {
          await runDdl(lock, statement, BOOTSTRAP_TOLERATED);
        }
        await lock.execute(oracleQuery('migration_lock'), NO_BINDS, { autoCommit: false });
        return inTransaction(session, work);
      }),

    async appliedVersions(connection) {
      const result = await connection.execute(oracleQuery('migration_applied'), NO_BINDS, { autoCommit: false, outFormat: c.OUT_FORMAT_OBJECT });
      return new Set(
        (result.rows ?? []).map((row) => {
          const value = Array.isArray(row) ? row[0] : (row as Record<string, unknown>).VERSION;
          return Number(value);
        }),
      );
    },

    statements: (migration) => splitStatements(migration.sql),

    applyStatement: (connection, statement) => runDdl(connection, statement, ALREADY_APPLIED),

    async record(connection, migration) {
      await connection.execute(oracleQuery('migration_record'), { version: migration.version, name: migration.name }, { autoCommit: false });
      await driver.commit(connection);
    },
  };
}
