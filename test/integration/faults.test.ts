import { describe, expect, it } from 'vitest';
import { RunAbortedError } from '../../src/errors.js';
import { serverPgTarget } from '../support/databases.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { connectionLost, faultyEngine, lostConnectionCode, lostCommitReplies } from '../support/fault-engine.js';
import { HEADER, orderFile, writeTestFile } from '../support/files.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const fastRetry = { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 };

function rows(n: number, badEvery = 0): Array<[string, string, string, string, string]> {
  return Array.from({ length: n }, (_, i) => [
    `F-${String(i).padStart(5, '0')}`,
    String(i + 1),
    '2026-05-01',
    badEvery > 0 && i % badEvery === 3 ? '99999999999.99' : `${i}.25`,
    'EUR',
  ]);
}

forEachTarget('chunk transactions on $kind', () => {
  targetTest('a chunk that fails mid-way (after its MERGE, before its statuses) leaves no partial state', async ({ db }) => {
    const { loader: stager } = await db.open();
    await stager.stage([orderFile(rows(30, 10))]);
    // every finalizeChunk fails: the MERGE ran, but the chunk must roll back as a whole
    const { loader } = await db.openWith((engine) =>
      faultyEngine(engine, (step) => (step === 'finalizeChunk' ? new Error('injected bug') : undefined)),
    );
    const error = await loader.process({ chunkSize: 10, retry: fastRetry }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunAbortedError);
    expect((error as Error).message).toContain('injected bug');
    expect(await db.sql('SELECT count(*) AS n FROM orders')).toEqual([{ n: 0 }]);
    expect(await db.sql('SELECT process_status, count(*) AS n, max(attempt_count) AS a FROM order_stage GROUP BY process_status')).toEqual([
      { process_status: 'READY', n: 30, a: 0 },
    ]);
    expect(await db.sql('SELECT count(*) AS n FROM order_bulk_error')).toEqual([{ n: 0 }]);
  });

  targetTest('a chunk that loses its connection is rolled back, retried with backoff, and finishes once', async ({ db }) => {
    const { loader: stager } = await db.open();
    await stager.stage([orderFile(rows(30, 10))]);
    const failed = new Set<number>();
    const { loader, logs } = await db.openWith((engine) =>
      faultyEngine(engine, (step, txNo) => {
        // the first attempt of each of the first two chunks dies after its MERGE (on PostgreSQL,
        // the chunk's one call that merges in the database)
        if ((step === 'mergeOrders' || step === 'processInDatabase') && failed.size < 2 && !failed.has(txNo)) {
          failed.add(txNo);
          return connectionLost(engine.kind);
        }
        return undefined;
      }),
    );
    const report = await loader.process({ chunkSize: 10, retry: fastRetry });
    expect(report.exitCode).toBe(2);
    expect(report.process).toMatchObject({ claimed: 30, done: 27, error: 3 });
    expect(await db.sql('SELECT count(*) AS n FROM orders')).toEqual([{ n: 27 }]);
    expect(await db.sql('SELECT max(attempt_count) AS a, min(attempt_count) AS b FROM order_stage')).toEqual([{ a: 1, b: 1 }]);
    expect(await db.sql('SELECT count(*) AS n FROM order_bulk_error')).toEqual([{ n: 3 }]);
    const retries = logs.records.filter((r) => r.msg.includes('rolled back; retrying'));
    expect(retries).toHaveLength(2);
    expect(retries[0]).toMatchObject({ level: 40, kind: 'fatal' });
  });

  targetTest('a staging batch whose COMMIT reply is lost is not staged twice on retry', async ({ db }) => {
    let lost = 0;
    const { loader, logs } = await db.openWith(
      (engine) => lostCommitReplies(engine, (_n, steps) => steps.has('stageBatch') && lost++ === 0), // the first batch
    );
    const file = writeTestFile(
      `${HEADER}\nA,1,2026-01-01,1,JPY\nB,x,2026-01-01,1,JPY\nC,3,2026-01-01,1,JPY\nD,4,2026-01-01,1,JPY\nE,5,2026-01-01,1,JPY\n`,
    );
    const report = await loader.stage([file], { batchSize: 3, retry: fastRetry });
    expect(report.files[0]?.counts).toMatchObject({ read: 5, inserted: 5, rejected: 1, updated: 0, duplicates: 0 });
    expect(await db.sql("SELECT count(*) AS n FROM order_bulk_error WHERE phase = 'PARSE'")).toEqual([{ n: 1 }]);
    expect(await db.sql("SELECT count(*) AS n FROM load_run_event WHERE event = 'staged_checkpoint'")).toEqual([{ n: 2 }]);
    expect(logs.records.some((r) => r.msg.includes('not staged again'))).toBe(true);
  });

  targetTest(
    "a --restage whose first batch fails before COMMIT stages it on retry: an earlier load's checkpoint is not this run's",
    async ({ db }) => {
      const file = writeTestFile(`${HEADER}\nA,1,2026-01-01,1,JPY\nB,x,2026-01-01,1,JPY\nC,3,2026-01-01,1,JPY\nD,4,2026-01-01,1,JPY\n`);
      const { loader: first } = await db.open();
      expect((await first.stage([file], { batchSize: 3 })).files[0]?.counts).toMatchObject({ read: 4, inserted: 4, rejected: 1 });
      let failed = 0;
      const { loader, logs } = await db.openWith((engine) =>
        faultyEngine(engine, (step) => (step === 'stageBatch' && failed++ === 0 ? connectionLost(engine.kind) : undefined)),
      );
      const report = await loader.stage([file], { batchSize: 3, restage: true, retry: fastRetry });
      // staged again, as a new load: the first batch too (its rejected line logged for this load)
      expect(report.files[0]?.counts).toMatchObject({ read: 4, rejected: 1, inserted: 0 });
      expect(logs.records.some((r) => r.msg.includes('not staged again'))).toBe(false);
      expect(
        await db.sql(
          "SELECT count(DISTINCT load_id) AS loads, count(*) AS n, max(line_no) AS line FROM order_bulk_error WHERE phase = 'PARSE'",
        ),
      ).toEqual([{ loads: 2, n: 2, line: 3 }]);
    },
  );

  targetTest('a chunk whose COMMIT reply is lost is counted once, not lost from the counts', async ({ db }) => {
    const { loader: stager } = await db.open();
    await stager.stage([orderFile(rows(30, 10))]);
    let lost = 0;
    const { loader } = await db.openWith((engine) => lostCommitReplies(engine, (_n, steps) => steps.has('finalizeChunk') && lost++ === 0));
    const report = await loader.process({ chunkSize: 10, workers: 1, retry: fastRetry });
    expect(report.process).toMatchObject({ claimed: 30, done: 27, error: 3 });
    expect(report.exitCode).toBe(2);
    expect(await db.sql('SELECT max(attempt_count) AS a FROM order_stage')).toEqual([{ a: 1 }]);
  });

  targetTest('stops with a clear reason when the database stays away past the retry budget; the next run finishes', async ({ db }) => {
    const { loader: stager } = await db.open();
    await stager.stage([orderFile(rows(20))]);
    const { loader } = await db.openWith((engine) =>
      faultyEngine(engine, (step) => (step === 'claimChunk' || step === 'processInDatabase' ? connectionLost(engine.kind) : undefined)),
    );
    const error = await loader.process({ chunkSize: 10, retry: fastRetry }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunAbortedError);
    // the error's first line, after its code: 08006 injected: connection lost / NJS-500: connection to Oracle Database was closed or broken
    expect((error as Error).message).toContain(`failed 3 times, giving up: ${lostConnectionCode(db.kind)}`);
    const { loader: again } = await db.open();
    const report = await again.process({ chunkSize: 10 });
    expect(report).toMatchObject({ exitCode: 0, process: { done: 20 } });
  });
});

const server = serverPgTarget();
describe.skipIf(unavailable(NEEDS.server))('load --overlap on server PostgreSQL', () => {
  it('processes while staging and ends with every row accounted for', async () => {
    const db = await server!.create();
    try {
      const { loader } = await db.open({ workers: 2 });
      const all = rows(3000, 97);
      const report = await loader.load([orderFile(all)], { overlap: true, batchSize: 300, chunkSize: 100 });
      const bad = all.filter(([, , , amount]) => amount.startsWith('99999')).length;
      expect(report.exitCode).toBe(2);
      expect(report.process).toMatchObject({ done: 3000 - bad, error: bad });
      expect(await db.sql('SELECT process_status, count(*) AS n FROM order_stage GROUP BY process_status ORDER BY process_status')).toEqual(
        [
          { process_status: 'DONE', n: 3000 - bad },
          { process_status: 'ERROR', n: bad },
        ],
      );
      expect(await db.sql('SELECT min(attempt_count) AS lo, max(attempt_count) AS hi FROM order_stage')).toEqual([{ lo: 1, hi: 1 }]);
      expect(await db.sql('SELECT count(*) AS n FROM orders')).toEqual([{ n: 3000 - bad }]);
    } finally {
      await db.dispose();
    }
  });

  it('by default (no overlap), a key whose last line in the file is rejected never reaches orders with an earlier line', async () => {
    const db = await server!.create();
    try {
      const { loader } = await db.open({ workers: 2 });
      const lines = [HEADER, 'DUP,1,2026-01-01,100,JPY'];
      for (let i = 0; i < 3000; i++) lines.push(`K-${i},1,2026-01-01,1,JPY`);
      lines.push('DUP,1,2026-01-01,,JPY');
      const report = await loader.load([writeTestFile(`${lines.join('\n')}\n`)], { batchSize: 300, chunkSize: 100 });
      expect(report.exitCode).toBe(2);
      expect(await db.sql("SELECT process_status, line_no FROM order_stage WHERE source_key = 'DUP'")).toEqual([
        { process_status: 'ERROR', line_no: 3003 },
      ]);
      expect(await db.sql("SELECT count(*) AS n FROM orders WHERE source_key = 'DUP'")).toEqual([{ n: 0 }]);
    } finally {
      await db.dispose();
    }
  });
});

describe.skipIf(unavailable(NEEDS.server))('concurrent workers on server PostgreSQL', () => {
  it('two process runs over one backlog never process the same row', async () => {
    const db = await server!.create();
    try {
      const { loader: stager } = await db.open();
      await stager.stage([orderFile(rows(3000, 97))]);
      const a = await db.open({ workers: 2 });
      const b = await db.open({ workers: 2 });
      const [ra, rb] = await Promise.all([
        a.loader.process({ chunkSize: 50, workers: 2 }),
        b.loader.process({ chunkSize: 50, workers: 2 }),
      ]);
      expect(ra.process.claimed + rb.process.claimed).toBe(3000);
      expect(ra.process.claimed).toBeGreaterThan(0);
      expect(rb.process.claimed).toBeGreaterThan(0);
      expect(await db.sql('SELECT min(attempt_count) AS lo, max(attempt_count) AS hi FROM order_stage')).toEqual([{ lo: 1, hi: 1 }]);
      const bad = rows(3000, 97).filter(([, , , amount]) => amount.startsWith('99999')).length;
      expect(await db.sql('SELECT count(*) AS n FROM orders')).toEqual([{ n: 3000 - bad }]);
      expect(await db.sql("SELECT count(*) AS n FROM order_stage WHERE process_status = 'ERROR'")).toEqual([{ n: bad }]);
      expect(await db.sql('SELECT count(*) AS n FROM order_bulk_error')).toEqual([{ n: bad }]);
    } finally {
      await db.dispose();
    }
  });
});
