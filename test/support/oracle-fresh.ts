/**
 * The Oracle test target's `create()`: the one schema brought to the state every target's
 * `create()` gives, migrated and empty (test/support/databases.ts), as cheaply as is provably
 * right.
 *
 *  - The first time in a test file, or whenever the schema's shape differs from the one this
 *    process last left it in (a test added a constraint or a trigger, a migration changed,
 *    another run dropped a table): every loader table dropped (oracle-target.ts reset) and the
 *    schema migrated again, about forty DDL statements.
 *  - Otherwise: its rows deleted (children before parents, the migration bookkeeping kept) and
 *    its identities restarted at 1, as PostgreSQL's TRUNCATE … RESTART IDENTITY of a reused test
 *    database does; a dozen statements, three of them DDL.
 * The shape is a fingerprint of the schema's catalog (objects, columns, constraints, indexes,
 * triggers, identity options), taken after each reset and compared before the next: an identity
 * restart that changed another identity option would show there, and the next test takes the
 * drop-and-migrate path. Neither path has run on an Oracle Database here (docs/oracle.md).
 */
import { createHash } from 'node:crypto';
import { oracleCodesOf } from '../../src/engine/oracle/classify.js';
import type { OraConnection } from '../../src/engine/oracle/oracledb-types.js';

/** The migration bookkeeping: kept by the emptying path (a migrated schema keeps its rows). */
const KEPT = ['ORDER_LOADER_MIGRATION', 'ORDER_LOADER_MIGRATION_LOCK'];

/** The catalog rows whose text, hashed, is the schema's shape. Each row is one column, LINE. */
export const SHAPE_QUERY = `SELECT 'object ' || object_type || ' ' || object_name || ' ' || status AS line
  FROM user_objects WHERE object_type NOT IN ('LOB', 'INDEX PARTITION', 'TABLE PARTITION')
UNION ALL
SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || data_length || ' '
  || data_precision || ' ' || data_scale || ' ' || nullable FROM user_tab_columns
UNION ALL
SELECT 'constraint ' || table_name || ' ' || constraint_name || ' ' || constraint_type || ' ' || status || ' '
  || search_condition_vc FROM user_constraints
UNION ALL
SELECT 'index ' || table_name || ' ' || index_name || ' ' || uniqueness || ' ' || status || ' ' || ini_trans FROM user_indexes
UNION ALL
SELECT 'trigger ' || table_name || ' ' || trigger_name || ' ' || status FROM user_triggers
UNION ALL
SELECT 'identity ' || table_name || '.' || column_name || ' ' || generation_type || ' ' || identity_options
  FROM user_tab_identity_columns
ORDER BY 1`;

/** Every table of the schema, with the identity column it has (or null) and how it is generated. */
export const TABLES_QUERY = `SELECT t.table_name AS table_name, i.column_name AS identity_column, i.generation_type AS generation
  FROM user_tables t LEFT JOIN user_tab_identity_columns i ON i.table_name = t.table_name
  WHERE t.temporary = 'N' AND t.nested = 'NO'
  ORDER BY t.table_name`;

/** The statements the emptying path sends for one table (names come from the catalog above). */
export function emptyingStatements(table: string): { delete: string } {
  return { delete: `DELETE FROM "${table}"` };
}

/** The identity restart, as its generation type is: GENERATED ALWAYS or BY DEFAULT. */
export function identityRestart(table: string, column: string, generation: string): string {
  const how = generation === 'ALWAYS' ? 'ALWAYS' : 'BY DEFAULT';
  return `ALTER TABLE "${table}" MODIFY ("${column}" GENERATED ${how} AS IDENTITY (START WITH 1))`;
}

async function rows<R>(connection: OraConnection, text: string, outFormat: number): Promise<R[]> {
  return ((await connection.execute(text, {}, { outFormat, autoCommit: false })).rows ?? []) as R[];
}

/** The schema's shape: a hash of its catalog (SHAPE_QUERY). */
export async function schemaShape(connection: OraConnection, outFormat: number): Promise<string> {
  const lines = await rows<{ LINE: string | null }>(connection, SHAPE_QUERY, outFormat);
  return createHash('sha256')
    .update(lines.map((l) => l.LINE ?? '').join('\n'))
    .digest('hex');
}

/**
 * Delete every row but the migration bookkeeping's, children before parents: a DELETE a child's
 * foreign key refuses (ORA-02292) is tried again after the others, until a round deletes
 * nothing new. Then restart the identities. Committed.
 */
export async function emptySchema(connection: OraConnection, outFormat: number): Promise<void> {
  const tables = (
    await rows<{ TABLE_NAME: string; IDENTITY_COLUMN: string | null; GENERATION: string | null }>(connection, TABLES_QUERY, outFormat)
  ).filter((t) => !KEPT.includes(t.TABLE_NAME));
  let pending = tables.map((t) => t.TABLE_NAME);
  while (pending.length > 0) {
    const refused: string[] = [];
    for (const table of pending) {
      try {
        await connection.execute(emptyingStatements(table).delete, {}, { autoCommit: false });
      } catch (error) {
        if (!oracleCodesOf(error).includes('ORA-02292')) throw error; // child record found
        refused.push(table);
      }
    }
    if (refused.length === pending.length) throw new Error(`cannot empty ${refused.join(', ')}: each is referenced by rows of another`);
    pending = refused;
  }
  await connection.commit();
  // DDL commits by itself; after the deletes, so that no sequence restarts under rows it numbered
  for (const t of tables)
    if (t.IDENTITY_COLUMN !== null)
      await connection.execute(identityRestart(t.TABLE_NAME, t.IDENTITY_COLUMN, t.GENERATION ?? ''), {}, { autoCommit: false });
}
