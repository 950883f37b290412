import { listMigrations, readSql } from '../../sql-files.js';
import { classifyOracleError, primaryOracleCode } from './classify.js';
import type { OraConnection, OraConstants, OraPool } from './driver.js';
import { oracleQuery, splitStatements } from './sql-text.js';

/**
 * Migrations on Oracle.
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

const NO_BINDS = {};

async function runDdl(connection: OraConnection, statement: string, tolerated: ReadonlySet<string> | ReadonlyMap<string, string>): Promise<boolean> {
  try {
    await connection.execute(statement, NO_BINDS, { autoCommit: false });
    return true;
  } catch (error) {
    if (tolerated.has(primaryOracleCode(error))) return false;
    throw error;
  }
}

async function release(connection: OraConnection, failed: unknown): Promise<void> {
  const drop = failed !== undefined && classifyOracleError(failed) === 'fatal';
  try {
    await connection.rollback();
  } catch {
    // the rollback of a broken connection fails: it is dropped below
    await connection.close({ drop: true }).catch(() => undefined);
    return;
  }
  try {
    await connection.close(drop ? { drop: true } : undefined);
  } catch (closeError) {
    if (failed === undefined) throw closeError;
  }
}

export async function runOracleMigrations(pool: OraPool, constants: OraConstants): Promise<string[]> {
  const migrations = listMigrations('oracle');
  const lockConnection = await pool.getConnection();
  let lockFailure: unknown;
  try {
    for (const statement of splitStatements(readSql('oracle', 'queries/migration_bootstrap.sql'))) {
      await runDdl(lockConnection, statement, new Set(['ORA-00955']));
    }
    await lockConnection.execute(oracleQuery('migration_lock'), NO_BINDS, { autoCommit: false });

    const work = await pool.getConnection();
    let workFailure: unknown;
    try {
      const result = await work.execute(oracleQuery('migration_applied'), NO_BINDS, { autoCommit: false, outFormat: constants.OUT_FORMAT_OBJECT });
      const applied = new Set(
        (result.rows ?? []).map((row) => {
          const value = Array.isArray(row) ? row[0] : (row as Record<string, unknown>).VERSION;
          return Number(value);
        }),
      );
      const names: string[] = [];
      for (const migration of migrations) {
        if (applied.has(migration.version)) continue;
        for (const statement of splitStatements(migration.sql)) {
          await runDdl(work, statement, ALREADY_APPLIED);
        }
        await work.execute(oracleQuery('migration_record'), { version: migration.version, name: migration.name }, { autoCommit: false });
        await work.commit();
        names.push(migration.name);
      }
      return names;
    } catch (error) {
      workFailure = error;
      throw error;
    } finally {
      await release(work, workFailure);
    }
  } catch (error) {
    lockFailure = error;
    throw error;
  } finally {
    // ROLLBACK releases the table lock.
    await release(lockConnection, lockFailure);
  }
}
