/**
 * Each end-to-end measurement runs in a fresh database, bench_<pid>_<label>, with the schema
 * already migrated (so neither side's clock includes it), dropped afterwards unless --keep.
 */
import { OrderLoader } from '../src/loader.js';
import { createLogger } from '../src/log.js';
import { createDatabase, dropDatabase } from './pg-admin.js';

export interface BenchDatabaseOptions {
  /** URL of a database on the server we may create databases from. */
  adminUrl: string;
  /** Leave the database behind (for EXPLAIN ANALYZE). */
  keep: boolean;
}

/** Our schema, through the library (same migrations as the CLI applies). */
async function migrate(url: string): Promise<void> {
  const loader = await OrderLoader.open({ db: url, logger: createLogger('silent'), migrate: true });
  await loader.close();
}

/** Run `measure` against a fresh, migrated database named for `label`. */
export async function withBenchDatabase<T>(options: BenchDatabaseOptions, label: string, measure: (url: string) => Promise<T>): Promise<T> {
  const name = `bench_${process.pid}_${label}`;
  const url = await createDatabase(options.adminUrl, name, { replace: true });
  try {
    await migrate(url);
    return await measure(url);
  } finally {
    if (!options.keep) await dropDatabase(options.adminUrl, name);
  }
}
