/**
 * One scenario run two ways on two databases of one target, whose outcomes must be equal: a way
 * on (processing in the database, COPY staging, settling while staging) against the same path
 * with it off. process-in-database, refusals-in-database-adversary, copy-staging and
 * settle-while-staging tests.
 */
import { expect } from 'vitest';
import type { TestDatabase, TestTarget } from './databases.js';

/**
 * `run` with the way on, on `db`, then with it off on a second database of the target: both
 * outcomes must be equal. Returns the first. `db` is given back before the second is made (a
 * test holds one database of a target at a time: test/support/databases.ts onePerTest), so
 * `run` returns all it needs of it, and `checkFirst` checks what else it needs of it.
 */
export async function sameBothWays<T>(
  target: TestTarget,
  db: TestDatabase,
  run: (db: TestDatabase, on: boolean) => Promise<T>,
  checkFirst?: (db: TestDatabase) => Promise<void>,
): Promise<T> {
  const on = await run(db, true);
  await checkFirst?.(db);
  await db.dispose({ reuse: true });
  const other = await target.create();
  let ok = false;
  try {
    expect(on).toEqual(await run(other, false));
    ok = true;
  } finally {
    await other.dispose({ reuse: ok });
  }
  return on;
}
