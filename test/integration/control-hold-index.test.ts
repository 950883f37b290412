import { expect } from 'vitest';
import { sqlQuery } from '../../src/engine/postgres/rows.js';
import { testTargets, type TestDatabase } from '../support/databases.js';
import { forEachTarget, targetTest } from '../support/target-test.js';

// PostgreSQL and PGlite: whether a load is held for its control totals is asked of the journal
// per ERROR row by retry's lock_error_rows.sql / find_error_rows.sql, and per load by the others.
// With a journal of many runs the question must be an index probe on ix_load_run_event_control
// (migration 019), not a read of every event since the load (bench/RESULTS.md, run 35).

const RUNS = 300;
const EVENTS_PER_RUN = 40;

/** A journal of RUNS load runs (40 events each), load 250 held, load 100 held then accepted, 40 ERROR rows per load, 200 HELD rows. */
async function seed(db: TestDatabase): Promise<void> {
  await db.sql(
    `INSERT INTO load_run (run_id, command, file_name, host, pid, status)
     SELECT r, 'load', 'orders_' || r || '.csv', 'test', 1, 'COMPLETED' FROM generate_series(1000001, 1000000 + ${RUNS}) r`,
  );
  await db.sql(
    `INSERT INTO load_run_event (run_id, seq, event, detail)
     SELECT r, s, CASE s WHEN 1 THEN 'invoked' ELSE 'staged_checkpoint' END,
            CASE s WHEN 1 THEN '{"loadId":' || r || '}' ELSE '{"offset":' || s || '}' END
       FROM generate_series(1000001, 1000000 + ${RUNS}) r, generate_series(1, ${EVENTS_PER_RUN}) s`,
  );
  await db.sql(
    `INSERT INTO load_run_event (run_id, seq, event, detail) VALUES
       (1000250, 41, 'control_held', '{"loadId":1000250}'),
       (1000100, 41, 'control_held', '{"loadId":1000100}'),
       (1000200, 41, 'control_accepted', '{"loadId":1000100}')`,
  );
  await db.sql(
    `INSERT INTO order_stage (source_key, customer_id, order_date, amount, currency, process_status, error_code, load_id)
     SELECT 'IX-' || i, 1, date '2026-01-01', 1, 'EUR', CASE WHEN i <= 200 THEN 'HELD' ELSE 'ERROR' END, 'X', 1000001 + i % ${RUNS}
       FROM generate_series(1, ${RUNS * 40}) i`,
  );
  await db.sql('ANALYZE load_run_event');
  await db.sql('ANALYZE order_stage');
}

/** The plan of a loader statement with the binds its engine gives it. */
async function plan(db: TestDatabase, query: string, binds: unknown[]): Promise<string> {
  const rows = await db.sql<{ 'QUERY PLAN': string }>(`EXPLAIN ${sqlQuery(query).replace(/;\s*$/, '')}`, binds);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

forEachTarget(
  'the journal read for control holds on $kind',
  () => {
    targetTest('retry asks each ERROR row through the index, never by reading the journal', async ({ db }) => {
      await seed(db);
      for (const query of ['lock_error_rows', 'find_error_rows']) {
        const text = await plan(db, query, [null, null, null, null, 0, 2000]);
        expect(text, query).toContain('ix_load_run_event_control');
        expect(text, query).not.toMatch(/Seq Scan on load_run_event|pk_load_run_event/);
      }
    });

    targetTest('the per-load questions go through it too', async ({ db }) => {
      await seed(db);
      const checks: [string, unknown[]][] = [
        ['release_held', [[1000250, 1000100, 1000001]]],
        ['held_loads', []],
        ['control_hold', [1000250]],
      ];
      for (const [query, binds] of checks) {
        const text = await plan(db, query, binds);
        expect(text, query).toContain('ix_load_run_event_control');
        expect(text, query).not.toMatch(/Seq Scan on load_run_event [ac]\b/);
      }
    });

    targetTest('and it answers as before: the held load left out, the accepted one retried', async ({ db }) => {
      await seed(db);
      const { loader } = await db.open();
      const { retry: dry } = await loader.retry({ all: true, selector: {}, corrections: {}, reason: 'index', dryRun: true });
      expect(dry.count).toBe(RUNS * 40 - 200 - 40);
      expect(dry.controlHeld).toEqual([{ loadId: 1000250, rows: 40 }]);
    });
  },
  testTargets().filter((t) => t.kind === 'pglite' || t.kind === 'postgres'),
);
