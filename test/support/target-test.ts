/**
 * One test per database target: `forEachTarget` repeats a block of tests for every target of this
 * environment (see testTargets), and `targetTest` gives each test a fresh database (`db`), made
 * on first use (or reset from the previous passed test's) and disposed when the test ends.
 *
 *   forEachTarget('load on $kind', () => {
 *     targetTest('…', async ({ db, target }) => { … });
 *   });
 */
import { describe, test } from 'vitest';
import { testTargets, type TestTarget } from './databases.js';

const noTarget: TestTarget = {
  kind: 'none',
  create() {
    return Promise.reject(new Error('targetTest runs inside forEachTarget, which says the target'));
  },
};

export const targetTest = test.extend('target', noTarget).extend('db', async ({ target, task }, { onCleanup }) => {
  const db = await target.create();
  // a passed test gives its database back for the next one (test/support/database-reuse.ts)
  onCleanup(() => db.dispose({ reuse: task.result?.state !== 'fail' }));
  return db;
});

/** `body` once per target, in a describe block titled `title` ($kind: the target's kind). */
export function forEachTarget(title: string, body: (target: TestTarget) => void, targets: TestTarget[] = testTargets()): void {
  if (targets.length === 0) {
    // no target here (a server-only block without ORDER_LOADER_TEST_PG): said as skipped, since a
    // file with no suite at all fails the whole run ("No test suite found")
    describe.skip(title.replace('$kind', 'a database this run does not have'), () => {
      body(noTarget);
    });
    return;
  }
  describe.each(targets)(title, (target) => {
    targetTest.override('target', target);
    body(target);
  });
}
