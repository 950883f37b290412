/**
 * A new PGlite database is made from the ready-made one (src/engine/postgres/pglite-ready.ts,
 * made by `npm run build`) instead of by PGlite's initdb; a folder made by initdb (an older
 * version's way) still opens and migrates; without a usable ready-made database, initdb runs.
 *
 * Which of the two made a database is told without timing: initdb gives every database a new
 * random system identifier (pg_control), a database written from the ready-made one has the
 * identifier stored in it.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { OrderLoader } from '../../src/loader.js';
import { createPostgresEngine } from '../../src/engine/postgres/index.js';
import { createPgliteConnector } from '../../src/engine/postgres/pglite-connector.js';
import { buildReadyMade } from '../../src/engine/postgres/pglite-ready-build.js';
import { readReadyMade, readyMadeFolder, readyMadePaths } from '../../src/engine/postgres/pglite-ready.js';
import { listMigrations } from '../../src/sql-files.js';
import { tempDir } from '../support/files.js';
import { memoryLogger } from '../support/memory-logger.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url));

const WRITTEN = 'new database folder written from the ready-made database';

/** The package's ready-made database, made as `npm run build` makes it when a bare `tsc` build left it out. */
async function readyMade(): Promise<Extract<ReturnType<typeof readReadyMade>, { usable: true }>> {
  let ready = readReadyMade();
  if (!ready.usable) {
    await buildReadyMade();
    ready = readReadyMade();
  }
  if (!ready.usable) throw new Error(ready.reason);
  return ready;
}

/** The system identifier stored in the ready-made database (pg_control starts with it). */
async function readyMadeSystemId(): Promise<string> {
  const control = (await readyMade()).entries.find((entry) => entry.path === 'global/pg_control')?.data;
  if (control == null) throw new Error('no global/pg_control in the ready-made database');
  return Buffer.from(control).readBigUInt64LE(0).toString();
}

type Sql = <R>(text: string) => Promise<R[]>;

async function systemId(sql: Sql): Promise<string | undefined> {
  return (await sql<{ id: string }>('SELECT system_identifier::text AS id FROM pg_control_system()'))[0]?.id;
}

async function appliedMigrations(sql: Sql): Promise<string[]> {
  return (await sql<{ name: string }>('SELECT name FROM order_loader_migration ORDER BY version')).map((r) => r.name);
}

/** Every file and folder under `dir` that others may read, write or enter. */
function openToOthers(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((entry) => join(entry.parentPath, entry.name))
    .concat(dir)
    .filter((path) => (lstatSync(path).mode & 0o077) !== 0);
}

/** A loader over a PGlite folder opened as `openEngine` does, with a chosen ready-made database. */
async function openFolder(dataDir: string, readyMadeDir: string | null) {
  const logs = memoryLogger('debug');
  const connector = await createPgliteConnector(
    dataDir,
    { command: 'test', timeoutMs: 0 },
    { readyMade: readyMadeDir, debug: (fields, message) => logs.logger.debug(fields, message) },
  );
  const engine = createPostgresEngine(connector);
  const loader = OrderLoader.fromEngine(engine, logs.logger);
  const sql: Sql = async <R>(text: string) => {
    const lease = await connector.acquire();
    try {
      return (await lease.session.query<R>(text)).rows;
    } finally {
      lease.release();
    }
  };
  return { loader, logs, sql };
}

describe('the ready-made PGlite database', () => {
  it('makes a new folder: no initdb, migrated to the latest, owner-only, and it loads the seed sample', async () => {
    const expectedId = await readyMadeSystemId();
    const dataDir = join(tempDir(), 'db');
    const logs = memoryLogger('debug');
    // as the CLI opens it: the package's ready-made database, found by the library itself
    const loader = await OrderLoader.open({ db: `pglite:${dataDir}`, logger: logs.logger, command: 'test' });
    try {
      expect(logs.records.filter((r) => r.msg === WRITTEN)).toHaveLength(1);
      expect(logs.text()).not.toContain('initdb');
      const report = await loader.load([fixture('orders-sample.csv')]);
      expect(report.exitCode).toBe(2);
      expect(report.files[0]?.tally).toEqual({ DONE: 2, ERROR: 2 });
    } finally {
      await loader.close();
    }
    expect(openToOthers(dataDir)).toEqual([]);
    // opened again: the database written from the ready-made one, migrated, with the seed's rows
    const again = await openFolder(dataDir, readyMadeFolder());
    try {
      expect(again.logs.records.filter((r) => r.msg === WRITTEN)).toHaveLength(0);
      expect(await systemId(again.sql)).toBe(expectedId);
      expect(await appliedMigrations(again.sql)).toEqual(listMigrations('postgres').map((m) => m.name));
      // the loader's database only: template0 and template1 are left out of the ready-made one
      expect(await again.sql('SELECT datname FROM pg_database ORDER BY datname')).toEqual([{ datname: 'postgres' }]);
      expect(await again.sql('SELECT source_key, process_status, attempt_count, error_code FROM order_stage ORDER BY source_key')).toEqual([
        { source_key: 'SRC-101', process_status: 'DONE', attempt_count: 1, error_code: null },
        { source_key: 'SRC-102', process_status: 'ERROR', attempt_count: 1, error_code: 'INVALID_AMOUNT' },
        { source_key: 'SRC-103', process_status: 'ERROR', attempt_count: 1, error_code: '22003' },
        { source_key: 'SRC-104', process_status: 'DONE', attempt_count: 1, error_code: null },
      ]);
    } finally {
      await again.loader.close();
    }
  });

  it('a write stopped halfway leaves no PG_VERSION: the next open writes the folder again', async () => {
    const expectedId = await readyMadeSystemId();
    const dataDir = join(tempDir(), 'db');
    // a folder in the way of the last files of the archive (pg_hba.conf comes after PG_VERSION in it)
    mkdirSync(join(dataDir, 'pg_hba.conf'), { recursive: true, mode: 0o700 });
    await expect(openFolder(dataDir, readyMadeFolder())).rejects.toThrow(/EISDIR/);
    expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(false);
    expect(existsSync(join(dataDir, 'global', 'pg_control'))).toBe(true);
    rmSync(join(dataDir, 'pg_hba.conf'), { recursive: true });
    const opened = await openFolder(dataDir, readyMadeFolder());
    try {
      expect(opened.logs.records.filter((r) => r.msg === WRITTEN)).toHaveLength(1);
      expect(await opened.loader.init()).toEqual([]);
      expect(await systemId(opened.sql)).toBe(expectedId);
    } finally {
      await opened.loader.close();
    }
  });

  it('makes a new in-memory database (pglite:memory) from it too', async () => {
    const expectedId = await readyMadeSystemId();
    const logs = memoryLogger('debug');
    const loader = await OrderLoader.open({ db: 'pglite:memory', logger: logs.logger, command: 'test' });
    try {
      expect(logs.text()).not.toContain('initdb');
      expect(logs.records.filter((r) => r.msg === 'new in-memory database loaded from the ready-made database')).toHaveLength(1);
      const report = await loader.load([fixture('orders-sample.csv')]);
      expect(report.files[0]?.tally).toEqual({ DONE: 2, ERROR: 2 });
    } finally {
      await loader.close();
    }
    // the identifier, through the connector the loader uses
    const connector = await createPgliteConnector(null, undefined, { readyMade: readyMadeFolder() });
    try {
      const lease = await connector.acquire();
      try {
        expect((await lease.session.query<{ id: string }>('SELECT system_identifier::text AS id FROM pg_control_system()')).rows).toEqual([
          { id: expectedId },
        ]);
      } finally {
        lease.release();
      }
    } finally {
      await connector.end();
    }
  });

  it('leaves a folder made by initdb alone (an older version): it opens and migrates to the latest', async () => {
    const expectedId = await readyMadeSystemId();
    const dataDir = join(tempDir(), 'db');
    mkdirSync(dataDir, { mode: 0o700 });
    // the older version's way: PGlite's initdb, then the migrations it knew (all but the last)
    const migrations = listMigrations('postgres');
    const older = migrations.slice(0, -1);
    const db = await PGlite.create({ dataDir });
    await db.exec(
      'CREATE TABLE order_loader_migration (version integer PRIMARY KEY, name varchar(200) NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    for (const migration of older) {
      await db.exec(migration.sql);
      await db.query('INSERT INTO order_loader_migration (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
    }
    await db.exec("CREATE TABLE kept_from_before (note text); INSERT INTO kept_from_before VALUES ('older version')");
    const initdbId = (await db.query<{ id: string }>('SELECT system_identifier::text AS id FROM pg_control_system()')).rows[0]?.id;
    await db.close();
    expect(initdbId).not.toBe(expectedId);

    const opened = await openFolder(dataDir, readyMadeFolder());
    try {
      expect(opened.logs.records.filter((r) => r.msg === WRITTEN)).toHaveLength(0);
      expect(await opened.loader.init()).toEqual([migrations.at(-1)?.name]);
      expect(await systemId(opened.sql)).toBe(initdbId);
      expect(await opened.sql('SELECT note FROM kept_from_before')).toEqual([{ note: 'older version' }]);
      expect(await appliedMigrations(opened.sql)).toEqual(migrations.map((m) => m.name));
      expect((await opened.loader.load([fixture('orders-sample.csv')])).files[0]?.tally).toEqual({ DONE: 2, ERROR: 2 });
    } finally {
      await opened.loader.close();
    }
    expect(openToOthers(dataDir)).toEqual([]);
  });

  it('falls back to initdb when the ready-made database is missing or unreadable, and says so at debug', async () => {
    const expectedId = await readyMadeSystemId();
    const missing = tempDir();
    const corrupt = tempDir();
    writeFileSync(readyMadePaths(corrupt).manifest, readFileSync(readyMadePaths().manifest, 'utf8'));
    writeFileSync(readyMadePaths(corrupt).archive, gzipSync(Buffer.from('not a tar archive')).subarray(0, 20));
    for (const [folder, reason] of [
      [missing, /cannot read .*pglite-ready\.json/],
      [corrupt, /cannot read .*pglite-ready\.tar\.gz/],
    ] as const) {
      const dataDir = join(tempDir(), 'db');
      const opened = await openFolder(dataDir, folder);
      try {
        const fallback = opened.logs.records.filter((r) => r.msg.endsWith('no usable ready-made database, PGlite runs initdb'));
        expect(fallback).toHaveLength(1);
        expect(String(fallback[0]?.reason)).toMatch(reason);
        expect(opened.logs.records.filter((r) => r.msg === WRITTEN)).toHaveLength(0);
        expect(await opened.loader.init()).toEqual(listMigrations('postgres').map((m) => m.name));
        expect(await systemId(opened.sql)).not.toBe(expectedId);
      } finally {
        await opened.loader.close();
      }
      expect(openToOthers(dataDir)).toEqual([]);
    }
  });
});
