/**
 * The loaders a test opens over its database (db.open / db.openWith of every server target):
 * each with its logs in memory, wrapped when asked, all closed when the test gives the database
 * back; after that, opening another throws.
 */
import type { Engine } from '../../src/engine/types.js';
import { OrderLoader } from '../../src/loader.js';
import { memoryLogger, type MemoryLogger } from './memory-logger.js';

export interface TestLoaders {
  open(options?: { workers?: number }, wrap?: (engine: Engine) => Engine): Promise<{ loader: OrderLoader; logs: MemoryLogger }>;
  /** Close every loader opened (once); false when one of them failed to close. */
  closeAll(): Promise<boolean>;
  readonly closed: boolean;
}

export const GIVEN_BACK = 'this test database was given back after its test ended';

export function testLoaders(openOne: (logs: MemoryLogger, workers: number | undefined) => Promise<OrderLoader>): TestLoaders {
  const loaders: OrderLoader[] = [];
  let closed = false;
  return {
    get closed() {
      return closed;
    },
    async open(options, wrap) {
      if (closed) throw new Error(GIVEN_BACK);
      const logs = memoryLogger();
      let loader = await openOne(logs, options?.workers);
      if (wrap !== undefined) loader = OrderLoader.fromEngine(wrap(loader.engine), logs.logger);
      loaders.push(loader);
      return { loader, logs };
    },
    async closeAll() {
      closed = true;
      let all = true;
      for (const l of loaders.splice(0)) await l.close().catch(() => (all = false));
      return all;
    },
  };
}
