/**
 * Rows of earlier loads that wait (RETRY_WAIT after a transient failure, READY rows a `stage`
 * left) are processed by the next `load` once due, also when no new file arrived; `load` says
 * how many it took and exits 2 while rows still wait.
 */
import { expect } from 'vitest';
import type { TestDatabase } from '../support/databases.js';
import { orderFile } from '../support/files.js';
import { forEachTarget, targetTest } from '../support/target-test.js';

const statuses = (db: TestDatabase) =>
  db.sql<{ source_key: string; process_status: string }>('SELECT source_key, process_status FROM order_stage ORDER BY source_key');

/** Put a staged row in RETRY_WAIT, as a transient failure does, due `inMs` from now (negative: due already). */
async function waitToRetry(db: TestDatabase, key: string, inMs: number): Promise<void> {
  await db.sql(db.kind === 'oracle' ? WAIT_TO_RETRY_ORACLE : WAIT_TO_RETRY, [key, inMs]);
}
const WAIT_TO_RETRY = `UPDATE order_stage SET process_status = 'RETRY_WAIT', attempt_count = 1,
       next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
 WHERE source_key = $1`;
/** Oracle has no make_interval (db.sql turns now() into SYSTIMESTAMP and $n into :pn). */
const WAIT_TO_RETRY_ORACLE = `UPDATE order_stage SET process_status = 'RETRY_WAIT', attempt_count = 1,
       next_attempt_at = now() + NUMTODSINTERVAL($2 / 1000, 'SECOND')
 WHERE source_key = $1`;

forEachTarget('waiting rows of earlier loads on $kind', () => {
  targetTest(
    'load with no file processes the due rows of earlier loads, says how many, and exits 2 while rows still wait',
    async ({ db }) => {
      const { loader } = await db.open();
      const staged = await loader.stage([
        orderFile([
          ['W-1', '1', '2026-01-01', '1.00', 'JPY'],
          ['W-2', '2', '2026-01-02', '2.00', 'JPY'],
          ['W-3', '3', '2026-01-03', '3.00', 'JPY'],
        ]),
      ]);
      expect(staged.exitCode).toBe(0);
      await waitToRetry(db, 'W-1', -1000);
      await waitToRetry(db, 'W-2', 3_600_000);

      // nothing new: W-1 is due and W-3 READY (a `stage` left it); W-2 waits another hour
      const night = await loader.load([]);
      expect(night.files).toEqual([]);
      expect(night.process).toMatchObject({ claimed: 2, done: 2, error: 0, retryWait: 0 });
      expect(night.earlierLoadRows).toBe(2);
      expect(night.retryWait).toMatchObject({ count: 1 });
      expect(night.exitCode).toBe(2);
      expect(await statuses(db)).toEqual([
        { source_key: 'W-1', process_status: 'DONE' },
        { source_key: 'W-2', process_status: 'RETRY_WAIT' },
        { source_key: 'W-3', process_status: 'DONE' },
      ]);

      // the next night brings a file; W-2 is due by then: taken too, counted apart from the file's own row
      await waitToRetry(db, 'W-2', -1000);
      const next = await loader.load([orderFile([['W-4', '4', '2026-01-04', '4.00', 'JPY']])]);
      expect(next.process).toMatchObject({ claimed: 2, done: 2 });
      expect(next.earlierLoadRows).toBe(1);
      expect(next.retryWait).toMatchObject({ count: 0 });
      expect(next.exitCode).toBe(0);
      expect((await statuses(db)).every((r) => r.process_status === 'DONE')).toBe(true);
    },
  );

  targetTest('load of a good file exits 2 while a row of an earlier load still waits to retry', async ({ db }) => {
    const { loader } = await db.open();
    await loader.stage([orderFile([['X-1', '1', '2026-01-01', '1.00', 'JPY']])]);
    await waitToRetry(db, 'X-1', 3_600_000);
    const report = await loader.load([orderFile([['X-2', '2', '2026-01-02', '2.00', 'JPY']])]);
    expect(report.files[0]?.tally).toEqual({ DONE: 1 });
    expect(report.earlierLoadRows).toBe(0);
    expect(report.retryWait).toMatchObject({ count: 1 });
    expect(report.exitCode).toBe(2);
  });
});
