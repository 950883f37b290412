import { expect } from 'vitest';
import { testTargets } from '../support/databases.js';
import { orderFile } from '../support/files.js';
import { forEachTarget, targetTest } from '../support/target-test.js';

// PostgreSQL and PGlite: staging leaves order_stage with fresh planner statistics (ANALYZE), so
// that the status and tally queries after it are not planned for an empty-looking table.
forEachTarget(
  'statistics of order_stage after staging on $kind',
  () => {
    const analyzed = async (sql: <R>(text: string) => Promise<R[]>) =>
      (
        await sql<{ tuples: number; analyzed: boolean }>(
          `SELECT c.reltuples::int AS tuples, s.last_analyze IS NOT NULL AS analyzed
             FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid
            WHERE c.relname = 'order_stage'`,
        )
      )[0];

    targetTest('stage refreshes them once rows were staged', async ({ db }) => {
      const { loader } = await db.open();
      const rows = Array.from({ length: 50 }, (_, i): [string, string, string, string, string] => [
        `K-${i}`,
        '1',
        '2026-01-01',
        '1',
        'JPY',
      ]);
      const report = await loader.stage([orderFile(rows)]);
      expect(report.exitCode).toBe(0);
      expect(await analyzed(db.sql.bind(db))).toEqual({ tuples: 50, analyzed: true });
    });

    targetTest('a file that stages nothing new does not analyze', async ({ db }) => {
      const { loader } = await db.open();
      await loader.stage([orderFile([])]);
      expect(await analyzed(db.sql.bind(db))).toMatchObject({ analyzed: false });
    });
  },
  testTargets().filter((t) => t.kind === 'pglite' || t.kind === 'postgres'),
);
