import { describe, expect, test } from 'vitest';
import { testTargets } from '../support/databases.js';
import { orderFile } from '../support/files.js';

// A database given back after a test serves the next one only as its template was: the suite's
// speed rests on it (test/support/database-reuse.ts), and so does every test's "fresh database".
describe.each(testTargets().filter((t) => t.kind === 'pglite' || t.kind === 'postgres'))('a reused test database on $kind', (target) => {
  const state = async (sql: <R>(text: string) => Promise<R[]>) => ({
    rows: await sql<{ n: number }>(
      `SELECT (SELECT count(*) FROM order_stage) + (SELECT count(*) FROM orders) + (SELECT count(*) FROM load_run)
              + (SELECT count(*) FROM load_run_event) + (SELECT count(*) FROM order_bulk_error) AS n`,
    ),
    statistics: await sql<{ n: number }>(
      "SELECT count(*) AS n FROM pg_statistic s JOIN pg_class c ON c.oid = s.starelid WHERE c.relname = 'order_stage'",
    ),
    analyzed: await sql<{ analyzed: boolean }>(
      "SELECT last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE relname = 'order_stage'",
    ),
    migrations: await sql<{ n: number }>('SELECT count(*) AS n FROM order_loader_migration'),
  });

  test('comes back emptied, its identities restarted, without statistics, its migrations kept', async () => {
    const first = await target.create();
    const fresh = await state(first.sql.bind(first));
    const { loader } = await first.open();
    const report = await loader.load([
      orderFile([
        ['R-1', '1', '2026-01-01', '1', 'JPY'],
        ['R-2', '1', '2026-01-01', 'x', 'JPY'],
      ]),
    ]);
    expect(report.exitCode).toBe(2);
    await first.sql('ANALYZE order_stage');
    expect(await state(first.sql.bind(first))).not.toEqual(fresh);
    const url = first.url;
    await first.dispose({ reuse: true });

    const second = await target.create();
    try {
      expect(second.reused).toBe(true);
      if (target.kind === 'postgres') expect(second.url).toBe(url); // the same database, not a new one
      expect(await state(second.sql.bind(second))).toEqual(fresh);
      expect(Number(fresh.migrations[0]?.n)).toBeGreaterThan(0);
      const { loader: again } = await second.open();
      await again.load([orderFile([['S-1', '1', '2026-01-01', '1', 'JPY']])]);
      expect(await second.sql('SELECT stage_id, order_id FROM order_stage JOIN orders USING (source_key)')).toEqual([
        { stage_id: 1, order_id: 1 },
      ]);
    } finally {
      await second.dispose();
    }
  });

  test('a database whose schema a test changed is not reused', async () => {
    const first = await target.create();
    await first.sql('ALTER TABLE order_stage ADD CONSTRAINT ck_test_only CHECK (source_key <> $$X$$)');
    const url = first.url;
    await first.dispose({ reuse: true });
    const second = await target.create();
    try {
      expect(second.reused).toBe(false);
      if (target.kind === 'postgres') expect(second.url).not.toBe(url);
      expect(await second.sql("SELECT conname FROM pg_constraint WHERE conname = 'ck_test_only'")).toEqual([]);
    } finally {
      await second.dispose();
    }
  });

  test("the test's own sessions come back as new ones: no setting, and no activity counted before the reset", async () => {
    const first = await target.create();
    await first.sql("SELECT set_config('lock_timeout', '7s', false)");
    await first.sql("INSERT INTO load_run (command, host, pid) VALUES ('reuse-test', 'here', 1)");
    await first.dispose({ reuse: true });
    const second = await target.create();
    try {
      expect(second.reused).toBe(true);
      // a session reports its counters at most once a second: a later statement on the same
      // session would report what it still held from the previous test
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect(await second.sql<{ lock_timeout: string }>('SHOW lock_timeout')).toEqual([{ lock_timeout: '0' }]);
      expect(await second.sql("SELECT n_tup_ins AS inserted FROM pg_stat_user_tables WHERE relname = 'load_run'")).toEqual([
        { inserted: 0 },
      ]);
    } finally {
      await second.dispose();
    }
  });

  test('work a test left running cannot reach the next test', async () => {
    const first = await target.create();
    await first.dispose({ reuse: true });
    await expect(first.sql('SELECT 1')).rejects.toThrow();
  });
});
