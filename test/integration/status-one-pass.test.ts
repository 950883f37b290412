/**
 * `status` (and the review page's overview, and the metrics file's gauges) over a large stage:
 * the counts by load and status, the oldest waiting row and the RETRY_WAIT rows' summary come
 * from one pass over order_stage, not one pass each (on a 1,000,000-row PGlite folder each pass
 * cost 1–2 s: bench/RESULTS.md, the review page's overview). The answers are those of before:
 * the same counts, the same oldest waiting time (HELD and RETRY_WAIT rows included), the same
 * next due time.
 */
import { expect } from 'vitest';
import { orderFile } from '../support/files.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { testTargets } from '../support/databases.js';

forEachTarget(
  'status in one pass on $kind',
  () => {
    targetTest('statusReport reads order_stage once; counts, oldest waiting and retry wait unchanged', async ({ db }) => {
      const { loader } = await db.open();
      await loader.load([
        orderFile([
          ['P-1', '1', '2026-01-01', '1.00', 'JPY'],
          ['P-2', '2', '2026-01-02', '', 'JPY'],
          ['P-3', '3', '2026-01-03', '3.00', 'JPY'],
          ['P-4', '4', '2026-01-04', '4.00', 'JPY'],
        ]),
      ]);
      await loader.stage([orderFile([['P-5', '5', '2026-01-05', '5.00', 'JPY']])]);
      await db.sql(
        `UPDATE order_stage SET process_status = 'RETRY_WAIT', next_attempt_at = timestamptz '2030-01-02 03:04:05Z' WHERE source_key = 'P-3'`,
      );
      await db.sql(`UPDATE order_stage SET process_status = 'HELD', staged_at = timestamptz '2001-01-01Z' WHERE source_key = 'P-4'`);
      // what this backend counted is flushed at the end of the statement after the one that forces it
      const scans = async () => {
        await db.sql('SELECT pg_stat_force_next_flush()');
        await db.sql('SELECT 1');
        return (await db.sql<{ n: number }>(`SELECT seq_scan::int AS n FROM pg_stat_user_tables WHERE relname = 'order_stage'`))[0]!.n;
      };
      // a test's stage is small: the planner would scan it whatever the statement. As on a large one, an
      // index is taken wherever one serves: what is left are the statements that can only read every row
      await db.sql('SET enable_seqscan = off');
      const before = await scans();
      const report = await loader.status();
      const passes = (await scans()) - before;
      await db.sql('RESET enable_seqscan');
      expect(passes).toBe(1);

      const byStatus: Record<string, number> = {};
      for (const c of report.counts) byStatus[c.status] = (byStatus[c.status] ?? 0) + c.count;
      expect(byStatus).toEqual({ DONE: 1, ERROR: 1, RETRY_WAIT: 1, HELD: 1, READY: 1 });
      expect(report.retryWait).toEqual({ count: 1, nextDueAt: new Date('2030-01-02T03:04:05Z') });
      // P-4's load started after 2001: a row waits since its load started (its staged_at only without a load)
      const loads = await db.sql<{ started_at: Date }>(`SELECT min(started_at) AS started_at FROM load_run`);
      expect(report.oldestWaitingSince).toEqual(loads[0]!.started_at);
      expect(report.oldestReady?.sourceKey).toBe('P-5');
    });
  },
  // PGlite is one process: its statistics are this test's at once (a server's are flushed by each backend in its own time)
  testTargets().filter((t) => t.kind === 'pglite'),
);
