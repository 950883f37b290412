/**
 * Processing in the database (ChunkTx.processInDatabase, PostgreSQL's order_loader_process_chunk)
 * against the client's own path (ORDER_LOADER_PROCESS_IN_DATABASE=off): a loader over either, and a
 * scenario run both ways on two databases of one target, whose outcomes must be equal.
 * process-in-database.test.ts and refusals-in-database-adversary.test.ts.
 */
import { expect } from 'vitest';
import type { OrderLoader } from '../../src/index.js';
import type { TestDatabase, TestTarget } from './databases.js';
import { withEngineSwitch } from './engine-switch.js';

/** A loader over `db` with processing in the database on or off (the engine reads the switch when it opens). */
export async function openProcessingLoader(db: TestDatabase, inDatabase: boolean): Promise<OrderLoader> {
  return withEngineSwitch('ORDER_LOADER_PROCESS_IN_DATABASE', inDatabase, async () => (await db.openWith((engine) => engine)).loader);
}

/**
 * `run` in the database on `db`, then on a second database of the target by the client's own
 * path: both outcomes must be equal. Returns the first.
 */
export async function sameBothWays<T>(
  target: TestTarget,
  db: TestDatabase,
  run: (db: TestDatabase, inDatabase: boolean) => Promise<T>,
): Promise<T> {
  const inDatabase = await run(db, true);
  const other = await target.create();
  let ok = false;
  try {
    expect(inDatabase).toEqual(await run(other, false));
    ok = true;
  } finally {
    await other.dispose({ reuse: ok });
  }
  return inDatabase;
}
