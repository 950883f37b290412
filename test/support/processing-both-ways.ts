/**
 * Processing in the database (ChunkTx.processInDatabase, PostgreSQL's order_loader_process_chunk)
 * against the client's own path (ORDER_LOADER_PROCESS_IN_DATABASE=off): a loader over either (the
 * scenario run both ways: same-both-ways.ts). process-in-database.test.ts and
 * refusals-in-database-adversary.test.ts.
 */
import type { OrderLoader } from '../../src/index.js';
import type { TestDatabase } from './databases.js';
import { withEngineSwitch } from './engine-switch.js';

/** A loader over `db` with processing in the database on or off (the engine reads the switch when it opens). */
export async function openProcessingLoader(db: TestDatabase, inDatabase: boolean): Promise<OrderLoader> {
  return withEngineSwitch('ORDER_LOADER_PROCESS_IN_DATABASE', inDatabase, async () => (await db.openWith((engine) => engine)).loader);
}
