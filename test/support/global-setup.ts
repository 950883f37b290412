/**
 * vitest global setup:
 *  - one temporary folder for the whole run (test files, PGlite folders), removed at the end
 *    whatever the tests did; tests reach it with inject('testTempRoot') (see files.ts);
 *  - the migrated PGlite folder the CLI tests copy, started in the background (pglite-template.ts);
 *  - with ORDER_LOADER_TEST_PG set, the migrated template database (created once per schema
 *    version, under an advisory lock so that concurrent test runs do not race); each test then
 *    gets its own database created from it (CREATE DATABASE … TEMPLATE), named
 *    `order_loader_t_<run tag>_…`. The run's databases are dropped at the end, also those of a
 *    test whose worker was killed; so are those of runs that started more than
 *    LEFTOVER_AGE_MS ago (a run killed as a whole), which no live run can still be using.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { createDatabase, databasesNamed, dropDatabase, withAdmin } from '../../bench/pg-admin.js';
import { OrderLoader } from '../../src/loader.js';
import { PG_TEMPLATE_DB } from './databases.js';
import { memoryLogger } from './memory-logger.js';
import { startMigratedPglite } from './pglite-template.js';
import { skipSummary } from './requirements.js';
import { TEST_PG_URL } from './server-url.js';

/** Older than any test run: a database of a run started this long ago is a leftover. */
const LEFTOVER_AGE_MS = 6 * 3600_000;
const TEST_DB_PREFIX = 'order_loader_t_';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const tempRoot = mkdtempSync(join(tmpdir(), 'order-loader-test-run-'));
  const runTag = Date.now().toString(36);
  project.provide('testTempRoot', tempRoot);
  project.provide('testRunTag', runTag);
  let stopPglite: () => Promise<void>;
  try {
    stopPglite = startMigratedPglite(tempRoot);
  } catch (error) {
    rmSync(tempRoot, { recursive: true, force: true });
    throw error;
  }
  const adminUrl = TEST_PG_URL;
  const teardown = async () => {
    // what did not run here (test/support/requirements.ts): one line, before the folder goes
    const skipped = skipSummary(tempRoot);
    if (skipped !== null) console.warn(`[${project.name}] ${skipped}`);
    await stopPglite();
    rmSync(tempRoot, { recursive: true, force: true });
    if (adminUrl !== null) await dropTestDatabases(adminUrl, (tag) => tag === runTag);
  };
  try {
    if (adminUrl !== null) {
      await dropTestDatabases(adminUrl, (tag) => Date.now() - parseInt(tag, 36) > LEFTOVER_AGE_MS);
    }
    await makePgTemplate();
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}

/** Drop the test databases whose run tag (the part after the prefix) `doomed` picks. */
async function dropTestDatabases(adminUrl: string, doomed: (tag: string) => boolean): Promise<void> {
  for (const name of await databasesNamed(adminUrl, TEST_DB_PREFIX)) {
    const tag = name.slice(TEST_DB_PREFIX.length).split('_')[0] ?? '';
    if (doomed(tag)) await dropDatabase(adminUrl, name);
  }
}

async function makePgTemplate(): Promise<void> {
  const adminUrl = TEST_PG_URL;
  if (adminUrl === null) return;
  await withAdmin(adminUrl, async (admin) => {
    await admin.query("SELECT pg_advisory_lock(hashtext('order-loader-test-template'))");
    try {
      const { rows } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [PG_TEMPLATE_DB]);
      if (rows.length > 0) return;
      // built under another name and renamed only once complete: a half-migrated template is never used
      const building = `${PG_TEMPLATE_DB}_new`;
      const url = await createDatabase(adminUrl, building, { replace: true });
      try {
        const loader = await OrderLoader.open({ db: url, logger: memoryLogger().logger, env: {} });
        await loader.close();
      } catch (error) {
        await dropDatabase(adminUrl, building).catch(() => undefined);
        throw error;
      }
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${PG_TEMPLATE_DB}`);
    } finally {
      await admin.query("SELECT pg_advisory_unlock(hashtext('order-loader-test-template'))").catch(() => undefined);
    }
  });
}
