/**
 * vitest global setup: with ORDER_LOADER_TEST_PG set, make sure the migrated template database
 * exists (created once per schema version, under an advisory lock so that concurrent test runs
 * do not race); each test then gets its own database created from it (CREATE DATABASE … TEMPLATE).
 */
import pg from 'pg';
import { OrderLoader } from '../../src/loader.js';
import { PG_TEMPLATE_DB } from './databases.js';
import { memoryLogger } from './memory-logger.js';

export default async function setup(): Promise<void> {
  const adminUrl = process.env.ORDER_LOADER_TEST_PG;
  if (adminUrl === undefined || adminUrl === '') return;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query("SELECT pg_advisory_lock(hashtext('order-loader-test-template'))");
    const { rows } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [PG_TEMPLATE_DB]);
    if (rows.length === 0) {
      await admin.query(`CREATE DATABASE ${PG_TEMPLATE_DB}_new`);
      const url = new URL(adminUrl);
      url.pathname = `/${PG_TEMPLATE_DB}_new`;
      const loader = await OrderLoader.open({ db: url.toString(), logger: memoryLogger().logger, env: {} });
      await loader.close();
      // renamed only once complete: a half-migrated template is never used
      await admin.query(`ALTER DATABASE ${PG_TEMPLATE_DB}_new RENAME TO ${PG_TEMPLATE_DB}`);
    }
  } finally {
    await admin.query("SELECT pg_advisory_unlock(hashtext('order-loader-test-template'))").catch(() => undefined);
    await admin.end();
  }
}
