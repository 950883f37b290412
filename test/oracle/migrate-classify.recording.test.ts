/**
 * Oracle migrate() against a RECORDING database, the error classification table, and static checks
 * of sql/oracle/. Nothing here runs against an Oracle Database.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyBatchError, classifyOracleCode, classifyOracleError, oracleCodeFromMessage } from '../../src/engine/oracle/classify.js';
import { createOracleEngineWith } from '../../src/engine/oracle/index.js';
import { oracleQuery, splitStatements } from '../../src/engine/oracle/sql-text.js';
import { listMigrations } from '../../src/sql-files.js';
import { batchError, catalogRows, constants, driverError, everyObject, placeholders, RecordingDatabase } from './recording-connection.js';
import { EXPRESSION, objectsCreatedBy, type SchemaObject } from '../../src/engine/oracle/schema-check.js';
import type { OraBinds } from '../../src/engine/oracle/oracledb-types.js';

const root = join(import.meta.dirname, '..', '..');

describe('Oracle migrate (recording database)', () => {
  const migrations = listMigrations('oracle');
  const creates = migrations.flatMap((m) => splitStatements(m.sql)).filter((sql) => sql.startsWith('CREATE ')).length;
  const all = everyObject();
  /** A database whose dictionary holds `objects` (default: everything, as after a good run). */
  const dictionary =
    (objects: readonly SchemaObject[] = all) =>
    (sql: string, binds: OraBinds) =>
      sql === oracleQuery('schema_objects') ? { rows: catalogRows(objects, binds) } : undefined;
  const without = (table: string, name?: string) => all.filter((o) => !(o.table === table && (name === undefined || o.name === name)));
  const recorded = (db: RecordingDatabase) =>
    db.calls.some((c) => c.kind === 'execute' && c.sql.startsWith('INSERT INTO order_loader_migration'));

  it('a table another session holds past the DDL lock wait stops migrate with what to do (ORA-00054), nothing recorded', async () => {
    const db = new RecordingDatabase({
      execute: (sql, binds) => {
        if (sql.startsWith('CREATE TABLE order_stage '))
          throw driverError('ORA-00054', 'resource busy and acquire with NOWAIT specified or timeout expired');
        return dictionary()(sql, binds) ?? { rows: [] };
      },
    });
    const error = await createOracleEngineWith(db, constants)
      .migrate()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(
      "migrate: CREATE TABLE order_stage waited 60 s for a table another session holds (ORA-00054): let the loads or sessions using the loader's tables finish (or stop them), then run migrate again",
    );
    expect(recorded(db)).toBe(false);
  });

  it('creates the bookkeeping tables, locks on one connection, applies each statement alone on another, checks, records, commits', async () => {
    const db = new RecordingDatabase({ execute: (sql, binds) => dictionary()(sql, binds) ?? { rows: [] } });
    const engine = createOracleEngineWith(db, constants);
    const applied = await engine.migrate();
    expect(applied).toEqual(migrations.map((m) => m.name));
    const trace = db.trace();
    expect(trace.slice(0, 3)).toEqual([
      '1:execute:CREATE TABLE order_loader_migration',
      '1:execute:CREATE TABLE order_loader_migration_lock',
      '1:execute:LOCK TABLE order_loader_migration_lock',
    ]);
    // the work session's DDL waits for a table lock instead of failing at once (ORA-00054)
    expect(trace[3]).toBe('2:execute:BEGIN EXECUTE IMMEDIATE');
    expect(db.calls.find((c) => c.conn === 2 && c.kind === 'execute')).toMatchObject({ sql: oracleQuery('migration_ddl_wait') });
    expect(oracleQuery('migration_ddl_wait')).toContain("EXECUTE IMMEDIATE 'ALTER SESSION SET DDL_LOCK_TIMEOUT = 60';");
    expect(trace[4]).toBe('2:execute:SELECT version FROM');
    // after the version query, each migration in turn: its statements, one dictionary lookup per
    // table they create, its record, a commit
    const work = db.calls.filter((c) => c.conn === 2 && (c.kind === 'execute' || c.kind === 'commit')).slice(2);
    let at = 0;
    for (const migration of migrations) {
      const statements = splitStatements(migration.sql);
      const ownTables = [...new Set(statements.flatMap(objectsCreatedBy).map((o) => o.table))];
      const sent = work.slice(at, at + statements.length + ownTables.length + 2);
      at += sent.length;
      expect(sent.slice(0, statements.length).map((c) => c.kind === 'execute' && c.sql)).toEqual(statements);
      for (const statement of statements) {
        // a SQL statement is sent without its ';'; a PL/SQL block ends with its own `END;`
        if (!/^BEGIN\b/.test(statement)) expect(statement).not.toMatch(/;\s*$/);
        expect(statement).not.toMatch(/IF NOT EXISTS/i);
        if (migration.version === 1) expect(statement).toMatch(/^CREATE /);
      }
      const checks = sent.slice(statements.length, statements.length + ownTables.length);
      expect(checks.map((c) => c.kind === 'execute' && c.sql)).toEqual(ownTables.map(() => oracleQuery('schema_objects')));
      expect(checks.map((c) => c.kind === 'execute' && (c.binds.table_name as { val: unknown }).val)).toEqual(ownTables);
      expect(sent.slice(-2).map((c) => (c.kind === 'execute' ? c.sql.split('(')[0]!.trim() : c.kind))).toEqual([
        'INSERT INTO order_loader_migration',
        'commit',
      ]);
      const record = sent[sent.length - 2]!;
      expect(record.kind === 'execute' && record.binds).toEqual({ version: migration.version, name: migration.name });
    }
    expect(at).toBe(work.length);
    expect(trace.slice(-2)).toEqual([
      '2:rollback',
      '1:rollback', // releases the table lock
    ]);
  });

  it('an existing schema (001 recorded) gets transient_failures: column added, RETRY_WAIT rows and attempt counts brought over, then recorded', async () => {
    const db = new RecordingDatabase({
      execute: (sql, binds) => {
        if (sql.startsWith('CREATE TABLE order_loader_migration'))
          throw driverError('ORA-00955', 'name is already used by an existing object');
        if (sql.startsWith('SELECT version')) return { rows: [{ VERSION: 1 }] };
        return dictionary()(sql, binds) ?? { rows: [] };
      },
    });
    const engine = createOracleEngineWith(db, constants);
    expect(await engine.migrate()).toEqual(migrations.filter((m) => m.version > 1).map((m) => m.name));
    const work = db.calls.filter((c) => c.conn === 2 && (c.kind === 'execute' || c.kind === 'commit')).slice(2);
    // 002's work first (later migrations follow it)
    expect(work.slice(0, 6).map((c) => (c.kind === 'execute' ? c.sql.split('\n')[0] : c.kind))).toEqual([
      'ALTER TABLE order_stage ADD (transient_failures NUMBER(10) DEFAULT 0 NOT NULL)',
      'UPDATE order_stage',
      'MERGE INTO order_stage s',
      oracleQuery('schema_objects').split('\n')[0],
      oracleQuery('migration_record').split('\n')[0],
      'commit',
    ]);
    const [, waiting, counts] = work as Extract<(typeof work)[number], { kind: 'execute' }>[];
    // the two updates of existing rows are committed with the record (no DDL after them)
    expect(waiting!.sql).toMatch(/SET transient_failures = attempt_count\s+WHERE process_status = 'RETRY_WAIT'$/);
    expect(counts!.sql).toMatch(/b\.phase IN \('VALIDATE', 'MERGE'\)/);
    expect(counts!.sql).toMatch(/s\.attempt_count = f\.failures \+ CASE WHEN s\.process_status = 'DONE' THEN 1 ELSE 0 END/);
    expect(counts!.options).toMatchObject({ autoCommit: false });
    expect(objectsCreatedBy(work[0]!.kind === 'execute' ? work[0]!.sql : '')).toEqual([
      { kind: 'COLUMN', table: 'ORDER_STAGE', name: 'TRANSIENT_FAILURES' },
    ]);
  });

  it('a re-run of 002 after its ALTER committed tolerates ORA-01430 (column exists) when the column is there', async () => {
    const db = new RecordingDatabase({
      execute: (sql, binds) => {
        if (sql.startsWith('CREATE TABLE order_loader_migration'))
          throw driverError('ORA-00955', 'name is already used by an existing object');
        if (sql.startsWith('SELECT version')) return { rows: [{ VERSION: 1 }] };
        if (sql.startsWith('ALTER TABLE order_stage ADD')) throw driverError('ORA-01430', 'column being added already exists in table');
        return dictionary()(sql, binds) ?? { rows: [] };
      },
    });
    const engine = createOracleEngineWith(db, constants);
    expect(await engine.migrate()).toEqual(migrations.filter((m) => m.version > 1).map((m) => m.name));
    expect(db.calls.filter((c) => c.kind === 'execute' && /^(UPDATE|MERGE) /.test(c.sql))).toHaveLength(2);
  });

  it('006 on a database of 001-004 and 007: ix_order_stage_load made again on load_id alone; a re-run whose DROP finds it gone (ORA-01418) is recorded', async () => {
    const earlier = migrations.filter((m) => m.version !== 6).map((m) => ({ VERSION: m.version }));
    for (const interrupted of [false, true]) {
      const db = new RecordingDatabase({
        execute: (sql, binds) => {
          if (sql.startsWith('CREATE TABLE order_loader_migration'))
            throw driverError('ORA-00955', 'name is already used by an existing object');
          if (sql.startsWith('SELECT version')) return { rows: earlier };
          if (interrupted && sql.startsWith('DROP INDEX')) throw driverError('ORA-01418', 'specified index does not exist');
          return dictionary()(sql, binds) ?? { rows: [] };
        },
      });
      const engine = createOracleEngineWith(db, constants);
      expect(await engine.migrate()).toEqual(['006_load_index_without_status']);
      const ddl = db.calls.filter((c) => c.kind === 'execute' && /^(DROP|CREATE) INDEX/.test(c.sql));
      expect(ddl.map((c) => c.kind === 'execute' && c.sql)).toEqual([
        'DROP INDEX ix_order_stage_load',
        'CREATE INDEX ix_order_stage_load ON order_stage (load_id)',
      ]);
      expect(recorded(db)).toBe(true);
    }
  });

  it("no index of order_stage but the claim's, the errors' and the held rows' names process_status once every migration ran", () => {
    // the last CREATE of each index name is the one a migrated schema holds
    const indexes = new Map<string, string>();
    for (const statement of migrations.flatMap((m) => splitStatements(m.sql))) {
      const created = /^CREATE INDEX (\w+) ON order_stage \(([\s\S]*)\)$/.exec(statement);
      if (created) indexes.set(created[1]!, created[2]!.trim());
      const dropped = /^DROP INDEX (\w+)$/.exec(statement);
      if (dropped) indexes.delete(dropped[1]!);
    }
    expect(
      [...indexes]
        .filter(([, key]) => /process_status/.test(key))
        .map(([name]) => name)
        .sort(),
    ).toEqual(['ix_order_stage_claimable', 'ix_order_stage_error', 'ix_order_stage_held']);
    expect(indexes.get('ix_order_stage_load')).toBe('load_id');
  });

  it('is a no-op when every migration is recorded', async () => {
    const db = new RecordingDatabase({
      execute: (sql, binds) => {
        if (sql.startsWith('CREATE TABLE order_loader_migration'))
          throw driverError('ORA-00955', 'name is already used by an existing object');
        if (sql.startsWith('SELECT version')) return { rows: listMigrations('oracle').map((m) => ({ VERSION: m.version })) };
        return dictionary()(sql, binds) ?? {};
      },
    });
    const engine = createOracleEngineWith(db, constants);
    expect(await engine.migrate()).toEqual([]);
    expect(db.calls.some((c) => c.kind === 'execute' && c.sql.startsWith('CREATE INDEX'))).toBe(false);
  });

  it('re-runs a half-applied migration, tolerating "already exists" for the statements already done', async () => {
    let created = 0;
    const db = new RecordingDatabase({
      execute: (sql, binds) => {
        if (sql.startsWith('CREATE ') && !sql.includes('order_loader_migration')) {
          created++;
          if (created <= 3) throw driverError('ORA-00955', 'name is already used by an existing object');
        }
        return dictionary()(sql, binds) ?? { rows: [] };
      },
    });
    const engine = createOracleEngineWith(db, constants);
    expect(await engine.migrate()).toEqual(listMigrations('oracle').map((m) => m.name));
    // every CREATE of every migration: 001's, then those of later ones (004's index)
    expect(created).toBe(creates);
  });

  it('"already exists" is refused when the object is not ours: another table owns pk_orders, so orders was never created', async () => {
    const db = new RecordingDatabase({
      execute: (sql, binds) => {
        if (sql.startsWith('CREATE TABLE orders')) throw driverError('ORA-02264', 'name already used by an existing constraint');
        return dictionary(without('ORDERS'))(sql, binds) ?? { rows: [] };
      },
    });
    const engine = createOracleEngineWith(db, constants);
    await expect(engine.migrate()).rejects.toThrow(
      /ORA-02264 .*creating table ORDERS, but table ORDERS, column ORDERS\.ORDER_ID, column ORDERS\.SOURCE_KEY and \d+ more is not in the schema/,
    );
    expect(recorded(db)).toBe(false);
  });

  it('"already exists" for an index whose name is taken on another table fails, naming the index', async () => {
    const db = new RecordingDatabase({
      execute: (sql, binds) => {
        if (sql.startsWith('CREATE INDEX ix_order_stage_load'))
          throw driverError('ORA-00955', 'name is already used by an existing object');
        return dictionary(without('ORDER_STAGE', 'IX_ORDER_STAGE_LOAD'))(sql, binds) ?? { rows: [] };
      },
    });
    const engine = createOracleEngineWith(db, constants);
    await expect(engine.migrate()).rejects.toThrow(
      /index IX_ORDER_STAGE_LOAD on ORDER_STAGE \(LOAD_ID, PROCESS_STATUS\) is not in the schema/,
    );
    expect(recorded(db)).toBe(false);
  });

  it('"already exists" for our global temporary table is refused when a permanent table of that name is there (user_tables.temporary)', async () => {
    const permanent = all.map((o) => (o.kind === 'TABLE' && o.name === 'ORDER_STAGE_BATCH' ? { ...o, temporary: false } : o));
    const db = new RecordingDatabase({
      execute: (sql, binds) => {
        if (sql.startsWith('CREATE GLOBAL TEMPORARY TABLE order_stage_batch'))
          throw driverError('ORA-00955', 'name is already used by an existing object');
        return dictionary(permanent)(sql, binds) ?? { rows: [] };
      },
    });
    const engine = createOracleEngineWith(db, constants);
    await expect(engine.migrate()).rejects.toThrow(
      /creating temporary table ORDER_STAGE_BATCH, but temporary table ORDER_STAGE_BATCH is not in the schema/,
    );
    expect(recorded(db)).toBe(false);
  });

  it('"already exists" for an index is refused when the index of that name has other columns; a function-based one must be an expression', async () => {
    for (const [name, columns] of [
      ['IX_ORDER_STAGE_LOAD', ['LOAD_ID']],
      ['IX_ORDER_STAGE_CLAIMABLE', ['STAGE_ID']],
    ] as const) {
      const other = all.map((o) => (o.kind === 'INDEX' && o.name === name ? { ...o, columns: [...columns] } : o));
      const db = new RecordingDatabase({
        execute: (sql, binds) => {
          if (sql.startsWith(`CREATE INDEX ${name.toLowerCase()}`))
            throw driverError('ORA-00955', 'name is already used by an existing object');
          return dictionary(other)(sql, binds) ?? { rows: [] };
        },
      });
      const engine = createOracleEngineWith(db, constants);
      await expect(engine.migrate(), name).rejects.toThrow(new RegExp(`index ${name} on ORDER_STAGE \\(.*\\) is not in the schema`));
      expect(recorded(db)).toBe(false);
    }
  });

  it('a bookkeeping table name taken by another object (ORA-00955, no such table) fails before anything is applied', async () => {
    const db = new RecordingDatabase({
      execute: (sql, binds) => {
        if (sql.startsWith('CREATE TABLE order_loader_migration ('))
          throw driverError('ORA-00955', 'name is already used by an existing object');
        return dictionary(without('ORDER_LOADER_MIGRATION'))(sql, binds) ?? { rows: [] };
      },
    });
    const engine = createOracleEngineWith(db, constants);
    await expect(engine.migrate()).rejects.toThrow(/table ORDER_LOADER_MIGRATION, .* is not in the schema/);
    expect(db.calls.some((c) => c.kind === 'execute' && c.sql.startsWith('CREATE TABLE order_stage'))).toBe(false);
  });

  it('after its statements, a migration whose objects are not all there is not recorded; the object is named', async () => {
    const db = new RecordingDatabase({ execute: (sql, binds) => dictionary(without('ORDERS', 'CURRENCY'))(sql, binds) ?? { rows: [] } });
    const engine = createOracleEngineWith(db, constants);
    await expect(engine.migrate()).rejects.toThrow(
      'migrate: 001_schema ran, but column ORDERS.CURRENCY is not in the schema; the migration is not recorded',
    );
    expect(recorded(db)).toBe(false);
  });

  it('reads what a statement creates: tables, columns, named constraints, indexes, ALTER TABLE ADD', () => {
    const orders = all.filter((o) => o.table === 'ORDERS').map((o) => `${o.kind} ${o.name}`);
    expect(orders).toEqual([
      'TABLE ORDERS',
      'COLUMN ORDER_ID',
      'COLUMN SOURCE_KEY',
      'COLUMN CUSTOMER_ID',
      'COLUMN ORDER_DATE',
      'COLUMN AMOUNT',
      'COLUMN CURRENCY',
      'COLUMN CREATED_AT',
      'COLUMN UPDATED_AT',
      'CONSTRAINT PK_ORDERS',
      'CONSTRAINT UQ_ORDERS_SOURCE',
      // migrations/008_attributes.sql
      'COLUMN ATTRIBUTES',
      'CONSTRAINT CK_ORDERS_ATTRIBUTES',
    ]);
    expect(objectsCreatedBy('CREATE UNIQUE INDEX ix_a ON t_b (c)')).toEqual([
      { kind: 'INDEX', table: 'T_B', name: 'IX_A', columns: ['C'] },
    ]);
    expect(objectsCreatedBy('CREATE INDEX ix_a ON t_b (c, "Mixed" ASC, d DESC, UPPER(e))')).toEqual([
      { kind: 'INDEX', table: 'T_B', name: 'IX_A', columns: ['C', 'Mixed', EXPRESSION, EXPRESSION] },
    ]);
    expect(objectsCreatedBy("ALTER TABLE orders ADD (note VARCHAR2(10 CHAR), CONSTRAINT ck_note CHECK (note <> 'x,y'))")).toEqual([
      { kind: 'COLUMN', table: 'ORDERS', name: 'NOTE' },
      { kind: 'CONSTRAINT', table: 'ORDERS', name: 'CK_NOTE' },
    ]);
    expect(objectsCreatedBy('ALTER TABLE orders ADD note2 NUMBER')).toEqual([{ kind: 'COLUMN', table: 'ORDERS', name: 'NOTE2' }]);
    expect(all.filter((o) => o.kind === 'TABLE' && o.temporary === true).map((o) => o.name)).toEqual(['ORDER_STAGE_BATCH']);
    expect(all.find((o) => o.name === 'IX_ORDER_STAGE_CLAIMABLE')).toMatchObject({ kind: 'INDEX', columns: [EXPRESSION] });
  });

  it('stops on any other DDL error, records nothing, and still releases the lock', async () => {
    const db = new RecordingDatabase({
      execute: (sql) => {
        if (sql.startsWith('CREATE TABLE orders')) throw driverError('ORA-01031', 'insufficient privileges');
        return { rows: [] };
      },
    });
    const engine = createOracleEngineWith(db, constants);
    await expect(engine.migrate()).rejects.toThrow('ORA-01031');
    expect(recorded(db)).toBe(false);
    expect(db.trace().slice(-2)).toEqual(['2:rollback', '1:rollback']);
  });
});

describe('Oracle error classification', () => {
  const table: [string, 'transient' | 'fatal' | 'rejected'][] = [
    ['ORA-00060', 'transient'],
    ['ORA-00054', 'transient'],
    ['ORA-08177', 'transient'],
    ['ORA-30006', 'transient'],
    ['ORA-00001', 'transient'],
    ['ORA-03113', 'fatal'],
    ['ORA-03114', 'fatal'],
    ['ORA-03135', 'fatal'],
    ['ORA-12514', 'fatal'],
    ['ORA-12541', 'fatal'],
    ['ORA-01653', 'fatal'],
    ['DPI-1080', 'fatal'],
    ['NJS-003', 'fatal'],
    ['NJS-500', 'fatal'],
    ['NJS-501', 'fatal'],
    ['NJS-503', 'fatal'],
    ['NJS-521', 'fatal'],
    ['NJS-518', 'fatal'], // thin mode's ORA-12514 (service not registered: a restarting database)
    ['NJS-519', 'fatal'], // thin mode's ORA-12505
    ['NJS-513', 'fatal'],
    ['ORA-01438', 'rejected'],
    ['ORA-01400', 'rejected'],
    ['ORA-12899', 'rejected'],
    ['ORA-02290', 'rejected'],
    ['ORA-01722', 'rejected'],
    ['NJS-058', 'rejected'],
    ['NJS-011', 'rejected'],
  ];

  it.each(table)('%s is %s', (code, kind) => {
    expect(classifyOracleCode(code)).toBe(kind);
    expect(classifyOracleError(driverError(code, 'text'))).toBe(kind);
  });

  it.each([
    '01536',
    '01950',
    '01628',
    '01629',
    '01630',
    '01631',
    '01632',
    '01650',
    '01651',
    '01652',
    '01653',
    '01654',
    '01655',
    '01656',
    '01658',
    '01659',
    '01680',
    '01681',
    '01683',
    '01684',
    '01685',
    '01688',
    '01691',
    '01692',
    '01693',
    '01694',
    '03233',
    '03235',
    '03238',
    '30036',
    '60001',
    '60004',
    '60007',
    '60018',
  ])('out of space or quota ORA-%s is fatal (the chunk rolls back), thrown or as a batch error', (digits) => {
    expect(classifyOracleCode(`ORA-${digits}`)).toBe('fatal');
    expect(classifyOracleError(driverError(`ORA-${digits}`, 'text'))).toBe('fatal');
    expect(classifyBatchError(`ORA-${digits}: text`)).toBe('fatal');
  });

  it('one rule for batch errors and thrown errors: a fatal code anywhere in the stack is fatal', () => {
    const stack =
      'ORA-00604: error occurred at recursive SQL level 1\nORA-01653: unable to extend table LOADER.ORDERS by 128 in tablespace USERS';
    expect(classifyBatchError(stack)).toBe('fatal');
    expect(classifyOracleError(new Error(stack))).toBe('fatal');
    expect(classifyBatchError('ORA-00060: deadlock detected\nORA-06512: at line 1')).toBe('transient');
    expect(classifyBatchError('ORA-00604: error occurred at recursive SQL level 1\nORA-01438: value larger')).toBe('rejected');
  });

  it('finds a lost-connection ORA code wrapped inside an NJS-500 message', () => {
    const wrapped = Object.assign(
      new Error('NJS-500: connection to Oracle Database was closed or broken\nORA-03113: end-of-file on communication channel'),
      { code: 'NJS-500' },
    );
    expect(classifyOracleError(wrapped)).toBe('fatal');
  });

  it('uses errorNum when present (thrown ORA errors), the message otherwise (batch errors)', () => {
    expect(classifyOracleError(Object.assign(new Error('deadlock'), { errorNum: 60 }))).toBe('transient');
    expect(oracleCodeFromMessage(batchError(0, 'ORA-01438: value larger than specified precision').message)).toBe('ORA-01438');
    expect(oracleCodeFromMessage('60')).toBe('ORA-00060');
    expect(oracleCodeFromMessage('no code here')).toBe('ORA-UNKNOWN');
  });

  it('socket errors are fatal; anything unknown is rejected', () => {
    expect(classifyOracleError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe('fatal');
    expect(classifyOracleError(new Error('something else'))).toBe('rejected');
    expect(classifyOracleError('ORA-00054: resource busy')).toBe('transient');
  });
});

describe('sql/oracle files (static checks)', () => {
  const queries = readdirSync(join(root, 'sql/oracle/queries')).filter((f) => f.endsWith('.sql'));

  it.each(queries)('%s: no trailing semicolon, no 23ai-only syntax', (file) => {
    const text = readFileSync(join(root, 'sql/oracle/queries', file), 'utf8');
    for (const statement of splitStatements(text)) {
      // a PL/SQL block ends with END; (part of its syntax), a SQL statement with no ';'
      if (/^(DECLARE|BEGIN)\b/.test(statement)) expect(statement).toMatch(/\bEND;$/);
      else expect(statement).not.toMatch(/;\s*$/);
      expect(statement).not.toMatch(/IF\s+(NOT\s+)?EXISTS/i);
      expect(statement).not.toMatch(/\bBOOLEAN\b/i);
    }
  });

  it('the claim cannot raise ORA-02014 and is not limited by ROWNUM', () => {
    const text = splitStatements(readFileSync(join(root, 'sql/oracle/queries/claim.sql'), 'utf8'))[0]!;
    expect(text).toMatch(/FOR UPDATE SKIP LOCKED/);
    expect(text).not.toMatch(/FETCH\s+FIRST|ROWNUM/i);
    // the claim predicate is written exactly as the function-based index key
    const schema = readFileSync(join(root, 'sql/oracle/migrations/001_schema.sql'), 'utf8');
    const key = "CASE WHEN process_status IN ('READY', 'RETRY_WAIT') THEN stage_id END";
    expect(schema).toContain(key);
    expect(text.split(key)).toHaveLength(3);
  });

  it('the schema has the tables and columns of the PostgreSQL schema', () => {
    const columns = (sql: string, table: string) => {
      const m = new RegExp(`CREATE (?:GLOBAL TEMPORARY )?TABLE ${table} \\(([\\s\\S]*?)\\n\\)`, 'i').exec(sql);
      if (m?.[1] === undefined) throw new Error(`no table ${table}`);
      return m[1]
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '' && !l.startsWith('--') && !l.startsWith('CONSTRAINT') && !l.startsWith('CHECK'))
        .map((l) => l.split(/\s+/)[0]!.toLowerCase());
    };
    const pg = readFileSync(join(root, 'sql/postgres/migrations/001_schema.sql'), 'utf8');
    const ora = readFileSync(join(root, 'sql/oracle/migrations/001_schema.sql'), 'utf8');
    // columns the later migrations add (PostgreSQL: ALTER TABLE t ADD COLUMN [IF NOT EXISTS] c;
    // Oracle: ALTER TABLE t ADD (c …), read as migrate() reads it), in order
    const pgAdded = (table: string) =>
      listMigrations('postgres')
        .filter((m) => m.version > 1)
        .flatMap((m) => [...m.sql.matchAll(/^ALTER TABLE (\w+) ADD COLUMN (?:IF NOT EXISTS )?(\w+)/gim)])
        .filter((m) => m[1]!.toLowerCase() === table)
        .map((m) => m[2]!.toLowerCase());
    const oraAdded = (table: string) =>
      listMigrations('oracle')
        .filter((m) => m.version > 1)
        .flatMap((m) => splitStatements(m.sql))
        .filter((statement) => /^ALTER TABLE/i.test(statement))
        .flatMap(objectsCreatedBy)
        .filter((o) => o.kind === 'COLUMN' && o.table === table.toUpperCase())
        .map((o) => o.name.toLowerCase());
    for (const table of ['order_stage', 'orders', 'order_bulk_error', 'load_run', 'load_run_event', 'order_stage_audit']) {
      expect([...columns(ora, table), ...oraAdded(table)], table).toEqual([...columns(pg, table), ...pgAdded(table)]);
    }
    expect(pgAdded('order_stage')).toContain('transient_failures');
    expect(oraAdded('order_stage')).toContain('transient_failures');
    expect(ora).toMatch(/amount\s+NUMBER\(18, 2\)/);
    expect(ora).toMatch(/amount\s+NUMBER\(12, 2\)\s+NOT NULL/);
    expect(ora).toMatch(/source_key\s+VARCHAR2\(100 CHAR\)/);
  });

  it('stage counts: a key repeated within the load counts as repeated only (as on PostgreSQL), never also as updated/unchanged', () => {
    const text = splitStatements(readFileSync(join(root, 'sql/oracle/queries/stage_batch_counts.sql'), 'utf8'))[0]!;
    const select = text.slice(0, text.indexOf('FROM (SELECT'));
    for (const alias of ['updated', 'unchanged', 'unchanged_error']) {
      const expr = new RegExp(`COUNT\\(CASE WHEN ([^]*?) THEN 1 END\\)\\s+AS ${alias}\\b`).exec(select)?.[1] ?? '';
      expect(expr.split('COUNT(CASE WHEN').at(-1), alias).toMatch(/is_repeated = 0/);
    }
    expect(select).toMatch(/is_repeated = 1 THEN 1 END\)\s+AS repeated_in_load/);
  });

  it('the claim pins the ordered range scan of the claim index (no sort of every claimable row)', () => {
    const text = splitStatements(readFileSync(join(root, 'sql/oracle/queries/claim.sql'), 'utf8'))[0]!;
    expect(text).toMatch(/^SELECT \/\*\+ INDEX_ASC\(order_stage ix_order_stage_claimable\) \*\//);
  });

  it('no query names anything `latest` (a word some SQL grammars reserve)', () => {
    const dir = join(root, 'sql', 'oracle', 'queries');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.sql'))) {
      const code = readFileSync(join(dir, file), 'utf8')
        .split('\n')
        .filter((l) => !/^\s*--/.test(l))
        .join('\n');
      expect(code, file).not.toMatch(/\blatest\b/i);
    }
  });

  it('placeholders of merge_orders.sql are only :stage_id', () => {
    const text = readFileSync(join(root, 'sql/oracle/queries/merge_orders.sql'), 'utf8');
    expect([...placeholders(text.replace(/^\s*--.*$/gm, ''))]).toEqual(['stage_id']);
  });
});
