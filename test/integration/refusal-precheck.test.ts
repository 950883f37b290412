/**
 * order_loader_merge_chunk refuses the amounts that cannot fit orders.amount before the MERGE
 * when the caller expects failures (a block smaller than the chunk: migration 013), with the
 * SQLSTATE and message the column's coercion raises. The outcome must be the MERGE's own: the
 * same rows refused with the same SQLSTATE and message, the same orders, whether the check runs
 * (block 8) or not (block = chunk), on edge amounts, in any order of the rows, and for another
 * precision of orders.amount (read from the catalog, not assumed). PostgreSQL and PGlite.
 */
import { expect } from 'vitest';
import { ROW_LEVEL_SQLSTATES } from '../../src/engine/postgres/classify.js';
import { testTargets, type TestDatabase } from '../support/databases.js';
import { forEachTarget, targetTest } from '../support/target-test.js';

// stage amounts (numeric(18,2)); orders.amount is numeric(12,2): at most 10 digits before the point
const AMOUNTS = [
  '10000000000.00', // the smallest that overflows: first of the rows the check takes
  '9999999999.99', // the largest that fits
  '-10000000000.00',
  '-9999999999.99',
  '0.00',
  '99999999999999.99',
  null, // refused by the MERGE (orders.amount NOT NULL), not by the check
  'NaN', // the coercion passes NaN: left to the MERGE
  '12.50',
  '12345678901.23',
];

interface Outcome {
  refused: Array<{ key: string; sqlstate: string; message: string }>;
  orders: Array<{ source_key: string; amount: string | null }>;
}

async function stageRows(db: TestDatabase, amounts: ReadonlyArray<string | null>): Promise<number[]> {
  await db.open(); // migrated
  const ids: number[] = [];
  for (const [i, amount] of amounts.entries()) {
    const rows = await db.sql<{ stage_id: number }>(
      `INSERT INTO order_stage (source_key, customer_id, order_date, amount, currency, load_id, line_no)
       VALUES ($1, 1, DATE '2026-01-01', $2::numeric, 'JPY', 1, $3) RETURNING stage_id`,
      [`A${i}`, amount, i + 2],
    );
    ids.push(Number(rows[0]?.stage_id));
  }
  return ids;
}

async function mergeChunk(db: TestDatabase, ids: number[], block: number): Promise<Outcome> {
  await db.sql('DELETE FROM orders');
  const failed = await db.sql<{ failed_stage_id: number | string; failed_sqlstate: string; failed_message: string }>(
    'SELECT failed_stage_id, failed_sqlstate, failed_message FROM order_loader_merge_chunk($1::bigint[], $2::integer, $3::text[])',
    [ids, block, ROW_LEVEL_SQLSTATES],
  );
  const keyOf = new Map(
    (await db.sql<{ stage_id: number | string; source_key: string }>('SELECT stage_id, source_key FROM order_stage')).map((r) => [
      Number(r.stage_id),
      r.source_key,
    ]),
  );
  return {
    refused: failed
      .map((f) => ({ key: keyOf.get(Number(f.failed_stage_id)) ?? '?', sqlstate: f.failed_sqlstate, message: f.failed_message }))
      .sort((a, b) => a.key.localeCompare(b.key)),
    orders: await db.sql<{ source_key: string; amount: string | null }>(
      'SELECT source_key, amount::text AS amount FROM orders ORDER BY source_key',
    ),
  };
}

forEachTarget(
  'amounts that cannot fit orders.amount, refused before the MERGE, on $kind',
  () => {
    targetTest('are the rows the MERGE refuses, with its SQLSTATE and message, and the same orders', async ({ db }) => {
      const ids = await stageRows(db, AMOUNTS);
      const merged = await mergeChunk(db, ids, ids.length);
      const checked = await mergeChunk(db, ids, 8);
      expect(checked).toEqual(merged);
      const overflow = { sqlstate: '22003', message: 'numeric field overflow' };
      expect(merged.refused).toEqual([
        { key: 'A0', ...overflow },
        { key: 'A2', ...overflow },
        { key: 'A5', ...overflow },
        { key: 'A6', sqlstate: '23502', message: expect.stringContaining('amount') as string },
        { key: 'A9', ...overflow },
      ]);
      expect(merged.orders.map((o) => o.source_key)).toEqual(['A1', 'A3', 'A4', 'A7', 'A8']);
      // the rows in another order (the check reads them by stage_id, the MERGE in the order given)
      const reversed = [...ids].reverse();
      expect(await mergeChunk(db, reversed, 8)).toEqual(merged);
    });

    targetTest('follow the precision orders.amount has, read from the catalog', async ({ db }) => {
      const ids = await stageRows(db, AMOUNTS);
      // one digit more before the point: 11 digits fit, only 99999999999999.99 (and the NULL) are refused
      await db.sql('ALTER TABLE orders ALTER COLUMN amount TYPE numeric(13, 2)');
      const merged = await mergeChunk(db, ids, ids.length);
      expect(await mergeChunk(db, ids, 8)).toEqual(merged);
      expect(merged.refused.map((r) => r.key)).toEqual(['A5', 'A6']);
    });

    targetTest('all refused: no row left for the MERGE', async ({ db }) => {
      const ids = await stageRows(db, ['10000000000.00', '-99999999999.99', '12345678901.23']);
      const merged = await mergeChunk(db, ids, ids.length);
      expect(await mergeChunk(db, ids, 1)).toEqual(merged);
      expect(merged.refused).toHaveLength(3);
      expect(merged.orders).toEqual([]);
    });
  },
  testTargets().filter((t) => t.kind !== 'oracle'),
);
