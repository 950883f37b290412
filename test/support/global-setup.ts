/**
 * vitest global setup: with ORDER_LOADER_TEST_PG set, build a migrated template database once;
 * each test then gets its own database created from it (CREATE DATABASE … TEMPLATE).
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
    await admin.query(`DROP DATABASE IF EXISTS ${PG_TEMPLATE_DB} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${PG_TEMPLATE_DB}`);
    // leftovers of interrupted earlier runs
    const { rows } = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'order\\_loader\\_t\\_%'");
    for (const r of rows) await admin.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${PG_TEMPLATE_DB}`;
  const loader = await OrderLoader.open({ db: url.toString(), logger: memoryLogger().logger, env: {} });
  await loader.close();
}
