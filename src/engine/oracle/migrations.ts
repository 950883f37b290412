import type { Driver } from '../contract.js';
import type { MigrationHooks } from '../migrations.js';
import { inTransaction } from '../transaction.js';
import { readSql } from '../../sql-files.js';
import { primaryOracleCode } from './classify.js';
import type { OraConnection, OraConstants } from './oracledb-types.js';
import type { OracleKit } from './rows.js';
import { describeObject, missingObjects, objectsCreatedBy, type SchemaObject } from './schema-check.js';
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
 *    again from its first statement. An error that says "already exists" (ALREADY_APPLIED) is
 *    then accepted only if what the statement creates is there and ours: the table with its
 *    columns and named constraints, the index on its table (schema-check.ts). A name taken by
 *    another object (a constraint pk_orders of another table makes CREATE TABLE orders fail
 *    with ORA-02264, and no orders table exists) fails migrate, naming the object. We chose
 *    that over recording progress per statement because it keeps the migration files plain DDL
 *    that a DBA can read and run.
 * 4. Before a migration is recorded, every table, column, index and named constraint its
 *    statements create is looked up in the dictionary; anything missing fails migrate, naming
 *    it, and the migration stays unrecorded.
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
  ['ORA-01418', 'specified index does not exist (DROP INDEX: dropped by the interrupted run)'],
  ['ORA-02443', 'cannot drop constraint - nonexistent constraint (DROP CONSTRAINT: dropped by the interrupted run)'],
]);

/** The bookkeeping tables may have been created by another process first. */
const BOOTSTRAP_TOLERATED: ReadonlySet<string> = new Set(['ORA-00955']);

const NO_BINDS = {};

/** At most three objects named, then how many more. */
function listObjects(objects: readonly SchemaObject[]): string {
  const named = objects.slice(0, 3).map(describeObject).join(', ');
  return objects.length > 3 ? `${named} and ${objects.length - 3} more` : named;
}

async function runDdl(
  connection: OraConnection,
  kit: OracleKit,
  statement: string,
  tolerated: ReadonlySet<string> | ReadonlyMap<string, string>,
): Promise<void> {
  try {
    await connection.execute(statement, NO_BINDS, { autoCommit: false });
  } catch (error) {
    const code = primaryOracleCode(error);
    if (code === 'ORA-00054') {
      // after migration_ddl_wait.sql's DDL_LOCK_TIMEOUT: a session kept the table all along
      throw new Error(
        `migrate: ${statement.split(/\s+/).slice(0, 3).join(' ')} waited 60 s for a table another session holds (ORA-00054): let the loads or sessions using the loader's tables finish (or stop them), then run migrate again`,
        { cause: error },
      );
    }
    if (!tolerated.has(code)) throw error;
    // a statement this check does not read (ALTER TABLE ... MODIFY: ORA-01442) names no object
    // and is accepted as applied
    const objects = objectsCreatedBy(statement);
    const missing = await missingObjects(connection, kit, objects);
    if (missing.length > 0) {
      throw new Error(
        `migrate: ${code} (already exists) creating ${describeObject(objects[0] as SchemaObject)}, but ${listObjects(missing)} is not in the schema: the name belongs to another object; rename or drop that object, then run migrate again`,
        { cause: error },
      );
    }
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

export function oracleMigrationHooks(driver: Driver<OraConnection>, kit: OracleKit, c: OraConstants): MigrationHooks<OraConnection> {
  const session = endingInRollback(driver);
  return {
    sqlFolder: 'oracle',

    serialised: (work) =>
      inTransaction(session, async (lock) => {
        for (const statement of splitStatements(readSql('oracle', 'queries/migration_bootstrap.sql'))) {
          await runDdl(lock, kit, statement, BOOTSTRAP_TOLERATED);
        }
        await lock.execute(oracleQuery('migration_lock'), NO_BINDS, { autoCommit: false });
        return inTransaction(session, async (connection) => {
          await connection.execute(oracleQuery('migration_ddl_wait'), NO_BINDS, { autoCommit: false });
          return work(connection);
        });
      }),

    async appliedVersions(connection) {
      const result = await connection.execute(oracleQuery('migration_applied'), NO_BINDS, {
        autoCommit: false,
        outFormat: c.OUT_FORMAT_OBJECT,
      });
      return new Set(
        (result.rows ?? []).map((row) => {
          const value: unknown = Array.isArray(row) ? (row as unknown[])[0] : (row as Record<string, unknown>).VERSION;
          return Number(value);
        }),
      );
    },

    statements: (migration) => splitStatements(migration.sql),

    applyStatement: (connection, statement) => runDdl(connection, kit, statement, ALREADY_APPLIED),

    async record(connection, migration) {
      const missing = await missingObjects(connection, kit, splitStatements(migration.sql).flatMap(objectsCreatedBy));
      if (missing.length > 0) {
        throw new Error(`migrate: ${migration.name} ran, but ${listObjects(missing)} is not in the schema; the migration is not recorded`);
      }
      await connection.execute(
        oracleQuery('migration_record'),
        { version: migration.version, name: migration.name },
        { autoCommit: false },
      );
      await driver.commit(connection);
    },
  };
}
