import { expect } from 'vitest';
import { testTargets, type TestDatabase } from '../support/databases.js';
import { orderFile } from '../support/files.js';
import { forEachTarget, targetTest } from '../support/target-test.js';

// PostgreSQL and PGlite: the indexes of order_stage after migration 009. The DONE
// update of a processed row must not insert into an index beyond those the claim, `retry`/`errors`
// and the release need: no index has process_status in its key, the only indexes naming it are
// the three partial ones (a DONE row is in none of them), and the load index is a BRIN.

interface IndexRow {
  name: string;
  method: string;
  keys: string;
  predicate: string | null;
}

const stageIndexes = (db: TestDatabase) =>
  db.sql<IndexRow>(
    `SELECT i.relname AS name, am.amname AS method,
            (SELECT string_agg(a.attname, ',' ORDER BY k.ord)
               FROM unnest(x.indkey) WITH ORDINALITY k(attnum, ord)
               JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum) AS keys,
            pg_get_expr(x.indpred, x.indrelid) AS predicate
       FROM pg_index x
       JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_am am ON am.oid = i.relam
      WHERE x.indrelid = 'order_stage'::regclass
      ORDER BY i.relname`,
  );

const INTENDED: IndexRow[] = [
  { name: 'ix_order_stage_claimable', method: 'btree', keys: 'stage_id', predicate: expect.stringContaining('process_status') as string },
  { name: 'ix_order_stage_error', method: 'btree', keys: 'stage_id', predicate: expect.stringContaining("'ERROR'") as string },
  { name: 'ix_order_stage_held', method: 'btree', keys: 'load_id', predicate: expect.stringContaining("'HELD'") as string },
  { name: 'ix_order_stage_load', method: 'brin', keys: 'load_id', predicate: null },
  { name: 'pk_order_stage', method: 'btree', keys: 'stage_id', predicate: null },
  { name: 'uq_order_stage_source', method: 'btree', keys: 'source_key', predicate: null },
];

/** Ranges of ix_order_stage_load still without a summary (summarizing them as a side effect). */
const unsummarized = async (db: TestDatabase) =>
  (await db.sql<{ n: number }>("SELECT brin_summarize_new_values('ix_order_stage_load'::regclass)::int AS n"))[0]!.n;

const rows = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i): [string, string, string, string, string] => [`${prefix}-${i}`, '1', '2026-01-01', `${i}.25`, 'JPY']);

forEachTarget(
  'indexes of order_stage on $kind',
  () => {
    targetTest('a migrated database has the intended indexes: none with process_status in its key', async ({ db }) => {
      expect(await stageIndexes(db)).toEqual(INTENDED);
      expect((await stageIndexes(db)).filter((i) => i.keys.split(',').includes('process_status'))).toEqual([]);
    });

    targetTest('staging leaves the block ranges it appended summarized, and the tally of a load reads them right', async ({ db }) => {
      const { loader } = await db.open();
      // several 32-page ranges of new keys, then a second load that restages some of them
      const first = await loader.stage([orderFile(rows(6000, 'S'))]);
      expect(first.exitCode).toBe(0);
      expect(await unsummarized(db)).toBe(0);
      const again = rows(6000, 'S')
        .filter((_, i) => i % 1000 === 7)
        .map((r): [string, string, string, string, string] => [r[0], '2', r[2], r[3], r[4]]);
      const second = await loader.load([orderFile([...again, ...rows(10, 'T')])]);
      expect(second.files[0]?.tally).toEqual({ DONE: 16 });
      // (the DONE versions written after that summary may sit in new, unsummarized ranges: a
      // range without a summary is read by every tally, never skipped)
      expect((await loader.status()).counts).toEqual([
        { loadId: first.files[0]!.loadId, status: 'DONE', count: 5994 },
        { loadId: second.files[0]!.loadId, status: 'DONE', count: 16 },
      ]);
    });

    targetTest('migration 009 on a database of 010 holding rows: the btree (load_id, process_status) becomes the BRIN', async ({ db }) => {
      // the schema as 001-010 left it, 009 not recorded, with rows of two loads in it
      await db.sql('DELETE FROM order_loader_migration WHERE version = 9');
      await db.sql('DROP INDEX ix_order_stage_load');
      await db.sql('CREATE INDEX ix_order_stage_load ON order_stage (load_id, process_status)');
      await db.sql(
        `INSERT INTO order_stage (source_key, customer_id, order_date, amount, currency, process_status, load_id)
         SELECT 'M-' || g, 1, DATE '2026-01-01', 1, 'JPY', CASE WHEN g % 10 = 0 THEN 'ERROR' ELSE 'DONE' END, 1 + g % 2
           FROM generate_series(1, 3000) g`,
      );
      const tally = () => db.sql('SELECT load_id, process_status, count(*)::int AS n FROM order_stage GROUP BY 1, 2 ORDER BY 1, 2');
      const before = await tally();
      expect(before).toHaveLength(3);
      const { loader } = await db.open();
      expect(await loader.init()).toEqual(['009_status_free_load_index']);
      expect(await stageIndexes(db)).toEqual(INTENDED);
      // built over the rows it found: every range summarized, the tallies as before
      expect(await unsummarized(db)).toBe(0);
      expect(await tally()).toEqual(before);
      expect(await loader.init()).toEqual([]);
    });
  },
  testTargets().filter((t) => t.kind === 'pglite' || t.kind === 'postgres'),
);
