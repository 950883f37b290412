/**
 * The Oracle target of the integration tests (test/support/oracle-test-database.ts) against a
 * RECORDING database: what its create() sends, since no machine of this project has an Oracle
 * server to run it on. A file's first create() drops every table the migrations make and
 * migrates, as PostgreSQL's and PGlite's databases come migrated from their template (a test
 * may run SQL before it opens a loader, on every target); the next ones, while the schema's
 * shape is the one the previous test left, empty it (rows deleted, identities restarted) and
 * migrate nothing; a changed shape drops and migrates again.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { objectsCreatedBy } from '../../src/engine/oracle/schema-check.js';
import { oracleQuery, splitStatements } from '../../src/engine/oracle/sql-text.js';
import { listMigrations, readSql } from '../../src/sql-files.js';
import { SHAPE_QUERY, TABLES_QUERY } from '../support/oracle-fresh.js';
import { ORACLE_LOADER_TABLES } from '../support/oracle-target.js';
import { catalogRows, everyObject, RecordingDatabase } from './recording-connection.js';

const fake = vi.hoisted(() => ({ db: undefined as unknown as { getConnection(): Promise<unknown>; createPool(): unknown } }));

vi.mock('oracledb', async (importOriginal) => {
  const real = await importOriginal<{ default?: Record<string, unknown> } & Record<string, unknown>>();
  const base = real.default ?? real;
  const mocked = { ...base, getConnection: async () => fake.db.getConnection(), createPool: async () => fake.db.createPool() };
  return { ...mocked, default: mocked };
});

/** Every table the bookkeeping and the migrations create, as the dictionary spells them. */
function migratedTables(): string[] {
  const statements = [
    ...splitStatements(readSql('oracle', 'queries/migration_bootstrap.sql')),
    ...listMigrations('oracle').flatMap((m) => splitStatements(m.sql)),
  ];
  return [
    ...new Set(
      statements
        .flatMap(objectsCreatedBy)
        .filter((o) => o.kind === 'TABLE')
        .map((o) => o.name),
    ),
  ].sort((a, b) => a.localeCompare(b));
}

/** The schema as the catalog queries of oracle-fresh.ts see it: `shape` is what SHAPE_QUERY returns. */
function schema(shape: { line: string }): RecordingDatabase {
  return new RecordingDatabase({
    execute: (sql, binds) => {
      if (sql === oracleQuery('database_charset')) return { rows: [{ VALUE: 'AL32UTF8' }] };
      if (sql === oracleQuery('schema_objects')) return { rows: catalogRows(everyObject(), binds) };
      if (sql === SHAPE_QUERY) return { rows: [{ LINE: shape.line }] };
      if (sql === TABLES_QUERY)
        return {
          rows: migratedTables()
            .filter((t) => t !== 'ORDER_STAGE_BATCH') // temporary: TABLES_QUERY leaves it out
            .map((t) => ({
              TABLE_NAME: t,
              IDENTITY_COLUMN: t === 'ORDER_STAGE' ? 'STAGE_ID' : null,
              GENERATION: t === 'ORDER_STAGE' ? 'BY DEFAULT' : null,
            })),
        };
      return { rows: [] };
    },
  });
}

function sent(db: RecordingDatabase, from: number): string[] {
  return db.calls.slice(from).flatMap((c) => (c.kind === 'execute' ? [c.sql.replace(/\s+/g, ' ').trim()] : []));
}

const dropped = (sqls: string[]) =>
  sqls.flatMap((s) => /^DROP TABLE (\w+)/i.exec(s)?.[1]?.toUpperCase() ?? []).sort((a, b) => a.localeCompare(b));
const created = (sqls: string[]) => sqls.filter((s) => /^CREATE (GLOBAL TEMPORARY )?TABLE /i.test(s));

describe('the Oracle test target (recording database)', () => {
  beforeEach(() => {
    vi.stubEnv('ORDER_LOADER_TEST_ORACLE', 'oracle://loader@db:1521/FREEPDB1');
    vi.stubEnv('ORDER_LOADER_TEST_ORACLE_PASSWORD', 'pw');
  });

  it('drops every table the migrations create: a table left standing keeps an earlier file’s rows through the re-migration', () => {
    expect([...ORACLE_LOADER_TABLES].map((t) => t.toUpperCase()).sort((a, b) => a.localeCompare(b))).toEqual(migratedTables());
  });

  it('create() migrates at a file’s first test, then empties the schema while its shape is unchanged, and migrates again when it changed', async () => {
    const { oracleTarget } = await import('../support/oracle-test-database.js');
    const shape = { line: 'object TABLE ORDER_STAGE VALID' };
    const db = schema(shape);
    fake.db = db;

    const first = await oracleTarget.create();
    const firstSent = sent(db, 0);
    expect(dropped(firstSent)).toEqual(migratedTables());
    // migrated before any loader of the test opens it: a test's SQL before db.open() finds the tables
    expect(created(firstSent).length).toBeGreaterThanOrEqual(10);
    expect(firstSent.filter((s) => s.startsWith('DELETE'))).toEqual([]);
    await first.dispose();

    const mark = db.calls.length;
    const second = await oracleTarget.create();
    const secondSent = sent(db, mark);
    expect(dropped(secondSent)).toEqual([]);
    expect(created(secondSent)).toEqual([]);
    const emptied = secondSent.flatMap((s) => /^DELETE FROM "(\w+)"$/.exec(s)?.[1] ?? []).sort((a, b) => a.localeCompare(b));
    expect(emptied).toEqual(
      migratedTables().filter((t) => !['ORDER_STAGE_BATCH', 'ORDER_LOADER_MIGRATION', 'ORDER_LOADER_MIGRATION_LOCK'].includes(t)),
    );
    expect(secondSent).toContain('ALTER TABLE "ORDER_STAGE" MODIFY ("STAGE_ID" GENERATED BY DEFAULT AS IDENTITY (START WITH 1))');
    await second.dispose();

    // a test added a trigger or a constraint: the shape differs, the next test gets a dropped and migrated schema
    shape.line = 'object TRIGGER TEST_REFUSE VALID';
    const mark2 = db.calls.length;
    const third = await oracleTarget.create();
    const thirdSent = sent(db, mark2);
    expect(dropped(thirdSent)).toEqual(migratedTables());
    expect(created(thirdSent).length).toBeGreaterThanOrEqual(10);
    await third.dispose();
  });
});
