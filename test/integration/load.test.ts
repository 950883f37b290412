import { expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { TestDatabase } from '../support/databases.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, orderFile, writeTestFile } from '../support/files.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url));

interface StageRow {
  source_key: string;
  process_status: string;
  attempt_count: number;
  error_code: string | null;
}

forEachTarget('load on $kind', () => {
  const stageRows = (db: TestDatabase) =>
    db.sql<StageRow>('SELECT source_key, process_status, attempt_count, error_code FROM order_stage ORDER BY source_key');
  const orders = async (db: TestDatabase) =>
    (
      await db.sql<{ source_key: string; amount: string; updated_at: Date; order_id: number }>(
        'SELECT source_key, amount, updated_at, order_id FROM orders ORDER BY source_key',
      )
    ).map((o) => ({ ...o, amount: Number(o.amount) }));
  const errorLog = (db: TestDatabase) =>
    db.sql<{
      source_key: string | null;
      phase: string;
      error_code: string;
      attempt_no: number | null;
      line_no: number | null;
      raw_record: string | null;
    }>(
      // by line: within a chunk the database writes the MERGE's refusals before the client writes
      // the validation failures (migration 014), so error_id order is not line order
      'SELECT source_key, phase, error_code, attempt_no, line_no, raw_record FROM order_bulk_error ORDER BY load_id, line_no, error_id',
    );

  targetTest('runs the seed-004 scenario: sample, then corrected, then reloads that change nothing', async ({ db }) => {
    const { loader } = await db.open();
    const first = await loader.load([fixture('orders-sample.csv')]);
    expect(first.exitCode).toBe(2);
    expect(await stageRows(db)).toEqual([
      { source_key: 'SRC-101', process_status: 'DONE', attempt_count: 1, error_code: null },
      { source_key: 'SRC-102', process_status: 'ERROR', attempt_count: 1, error_code: 'INVALID_AMOUNT' },
      {
        source_key: 'SRC-103',
        process_status: 'ERROR',
        attempt_count: 1,
        error_code: expect.stringMatching(/^(22003|ORA-01438)$/) as unknown,
      },
      { source_key: 'SRC-104', process_status: 'DONE', attempt_count: 1, error_code: null },
    ]);
    const firstErrors = await errorLog(db);
    expect(firstErrors.map((e) => [e.source_key, e.phase, e.attempt_no, e.line_no])).toEqual([
      ['SRC-102', 'VALIDATE', 1, 3],
      ['SRC-103', 'MERGE', 1, 4],
    ]);
    expect((await orders(db)).map((o) => [o.source_key, o.amount])).toEqual([
      ['SRC-101', 1200],
      ['SRC-104', 2500],
    ]);
    const ordersAfterFirst = await orders(db);

    const second = await loader.load([fixture('orders-corrected.csv')]);
    expect(second.exitCode).toBe(0);
    expect(second.files[0]?.counts).toMatchObject({ read: 4, updated: 2, unchanged: 2, inserted: 0 });
    expect(await stageRows(db)).toEqual([
      // attempt_count is every time the row was processed, never reset: the corrected rows were
      // processed twice (the failure, then their corrected values), 101 and 104 once
      { source_key: 'SRC-101', process_status: 'DONE', attempt_count: 1, error_code: null },
      { source_key: 'SRC-102', process_status: 'DONE', attempt_count: 2, error_code: null },
      { source_key: 'SRC-103', process_status: 'DONE', attempt_count: 2, error_code: null },
      { source_key: 'SRC-104', process_status: 'DONE', attempt_count: 1, error_code: null },
    ]);
    // what --max-attempts bounds restarted with the corrected values (nothing transient here)
    expect(await db.sql('SELECT source_key, transient_failures FROM order_stage ORDER BY source_key')).toEqual(
      ['SRC-101', 'SRC-102', 'SRC-103', 'SRC-104'].map((source_key) => ({ source_key, transient_failures: 0 })),
    );
    const stageAfterCorrection = await stageRows(db);
    const afterCorrection = await orders(db);
    expect(afterCorrection.map((o) => [o.source_key, o.amount])).toEqual([
      ['SRC-101', 1200],
      ['SRC-102', 3500],
      ['SRC-103', 5000],
      ['SRC-104', 2500],
    ]);
    // 101 and 104 were not merged again
    expect(afterCorrection.filter((o) => o.source_key === 'SRC-101' || o.source_key === 'SRC-104')).toEqual(ordersAfterFirst);
    // the error log still holds both first failures, never rewritten
    expect(await errorLog(db)).toEqual(firstErrors);

    for (const file of ['orders-corrected.csv', 'orders-sample.csv']) {
      const before = await orders(db);
      const again = await loader.load([fixture(file)]);
      expect(again.exitCode, file).toBe(0);
      expect(again.files[0]?.skipped, file).toContain('already staged');
      expect(await orders(db)).toEqual(before);
      // a reload changes nothing: no stage row processed again, no error-log row
      expect(await stageRows(db), file).toEqual(stageAfterCorrection);
      expect(await errorLog(db), file).toEqual(firstErrors);
    }
  });

  targetTest('reloading the same file changes nothing and says so', async ({ db }) => {
    const { loader } = await db.open();
    const file = orderFile([
      ['K-1', '1', '2026-01-01', '10.50', 'EUR'],
      ['K-2', '2', '2026-01-02', '20', 'EUR'],
    ]);
    expect((await loader.load([file])).exitCode).toBe(0);
    const before = await orders(db);
    // the same file again (same sha256): staging is skipped, and says so
    const again = await loader.load([file]);
    expect(again.exitCode).toBe(0);
    expect(again.files[0]?.skipped).toMatch(/already staged by load \d+ \(same sha256, encoding and delimiter\)/);
    // the same rows in another file: staged, all unchanged
    const copy = orderFile([
      ['K-1', '1', '2026-01-01', '10.5', 'EUR'],
      ['K-2', '2', '2026-01-02', '20.00', 'EUR'],
    ]);
    const third = await loader.load([copy]);
    expect(third.exitCode).toBe(0);
    expect(third.files[0]?.counts).toMatchObject({ read: 2, inserted: 0, updated: 0, unchanged: 2, rejected: 0 });
    expect(third.process?.claimed).toBe(0);
    expect(await orders(db)).toEqual(before);
    expect((await stageRows(db)).map((r) => r.attempt_count)).toEqual([1, 1]);
  });

  targetTest('reloading a file whose rows are still ERROR exits 2 without reprocessing them', async ({ db }) => {
    const { loader } = await db.open();
    expect((await loader.load([orderFile([['K-1', '1', '2026-01-01', '', 'EUR']])])).exitCode).toBe(2);
    // the same rows in a new file (CRLF: other bytes, so not skipped as the same file)
    const again = await loader.load([writeTestFile(`${HEADER}\r\nK-1,1,2026-01-01,,EUR\r\n`)]);
    expect(again.exitCode).toBe(2);
    expect(again.files[0]?.counts).toMatchObject({ unchanged: 1, unchangedError: 1 });
    expect((await stageRows(db))[0]).toMatchObject({ process_status: 'ERROR', attempt_count: 1 });
  });

  targetTest('applies an amendment of a DONE row to the order; its attempt_count counts both processings', async ({ db }) => {
    const { loader } = await db.open();
    await loader.load([
      orderFile([
        ['K-1', '1', '2026-01-01', '10', 'EUR'],
        ['K-2', '2', '2026-01-01', '20', 'EUR'],
      ]),
    ]);
    const [k1Before] = await orders(db);
    const report = await loader.load([orderFile([['K-1', '1', '2026-01-01', '11.25', 'USD']])]);
    expect(report.exitCode).toBe(0);
    expect(report.files[0]?.counts).toMatchObject({ updated: 1 });
    const after = await orders(db);
    expect(after.map((o) => [o.source_key, o.amount])).toEqual([
      ['K-1', 11.25],
      ['K-2', 20],
    ]);
    expect(after[0]?.order_id).toBe(k1Before?.order_id);
    expect((await stageRows(db)).map((r) => [r.source_key, r.process_status, r.attempt_count])).toEqual([
      ['K-1', 'DONE', 2],
      ['K-2', 'DONE', 1],
    ]);
  });

  targetTest('keeps the last occurrence of a repeated source_key and counts the duplicates, within and across batches', async ({ db }) => {
    const { loader } = await db.open();
    const file = orderFile([
      ['D-1', '1', '2026-01-01', '1', 'EUR'],
      ['D-2', '2', '2026-01-01', '2', 'EUR'],
      ['D-1', '1', '2026-01-01', '3', 'EUR'], // same batch as the first D-1
      ['X-1', '3', '2026-01-01', '4', 'EUR'],
      ['X-2', '4', '2026-01-01', '5', 'EUR'],
      ['D-2', '2', '2026-01-01', '6', 'EUR'], // a later batch (batch size 3)
    ]);
    const report = await loader.load([file], { batchSize: 3 });
    expect(report.exitCode).toBe(0);
    expect(report.files[0]?.counts).toMatchObject({ read: 6, duplicates: 2, inserted: 4 });
    expect((await orders(db)).map((o) => [o.source_key, o.amount])).toEqual([
      ['D-1', 3],
      ['D-2', 6],
      ['X-1', 4],
      ['X-2', 5],
    ]);
  });

  targetTest('isolates database-level failures at the first, last and adjacent positions of a chunk; the rest is DONE', async ({ db }) => {
    const { loader } = await db.open();
    const rows: Array<[string, string, string, string, string]> = [];
    const bad = new Set([0, 5, 6, 7, 19]);
    for (let i = 0; i < 20; i++) {
      rows.push([`M-${String(i).padStart(2, '0')}`, String(i + 1), '2026-03-01', bad.has(i) ? '99999999999.99' : `${i}.50`, 'JPY']);
    }
    // the chunk's MERGE is what is watched: no row DONE while staging (PGlite would settle the good ones)
    const report = await loader.load([orderFile(rows)], { chunkSize: 20, settleWhileStaging: false });
    expect(report.exitCode).toBe(2);
    expect(report.process).toMatchObject({ chunks: 1, done: 15, error: 5, mergeErrors: 5 });
    const stage = await stageRows(db);
    for (const [i, row] of stage.entries()) {
      expect(row.process_status, row.source_key).toBe(bad.has(i) ? 'ERROR' : 'DONE');
      if (bad.has(i)) expect(row.error_code).toMatch(/^(22003|ORA-01438)$/);
    }
    expect((await orders(db)).map((o) => o.source_key)).toEqual(stage.filter((_, i) => !bad.has(i)).map((r) => r.source_key));
    expect((await errorLog(db)).map((e) => [e.source_key, e.phase])).toEqual(
      [...bad].map((i) => [`M-${String(i).padStart(2, '0')}`, 'MERGE']),
    );

    // a second chunk after failures uses small isolation blocks: same outcome
    const more = rows.map(([k, c, d, a, cur]) => [`N${k}`, c, d, a, cur] as [string, string, string, string, string]);
    const second = await loader.load([orderFile(more)], { chunkSize: 10, settleWhileStaging: false });
    expect(second.process).toMatchObject({ done: 15, error: 5 });
  });
});
