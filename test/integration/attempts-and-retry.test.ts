import { describe, expect, it } from 'vitest';
import { parseCorrections } from '../../src/pipeline/corrections.js';
import type { RetryRequest } from '../../src/pipeline/operations.js';
import { serverPgTarget, type TestDatabase } from '../support/databases.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { faultyEngine } from '../support/fault-engine.js';
import { HEADER, orderFile, writeTestFile } from '../support/files.js';
import { failingKeys } from '../support/transient-failures.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const operator = 'test-operator';

/** Lines rejected while parsing (customer_id not an integer), with a usable source_key. */
const rejectedLines = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}-${i},x,2026-01-01,1,JPY`);

/** Rows that end ERROR in validation (no amount). */
const missingAmounts = (n: number, prefix: string) =>
  Array.from(
    { length: n },
    (_, i) => [`${prefix}-${String(i).padStart(4, '0')}`, '1', '2026-01-01', '', 'JPY'] as [string, string, string, string, string],
  );

const retryAll = (over: Partial<RetryRequest> = {}): RetryRequest => ({
  selector: {},
  all: true,
  corrections: parseCorrections(['amount=5']),
  reason: 'amounts resent',
  operator,
  dryRun: false,
  ...over,
});

forEachTarget('--max-errors, attempt counts and retry batches on $kind', (target) => {
  const counts = (db: TestDatabase, key: string) =>
    db.sql<{ process_status: string; attempt_count: number; transient_failures: number }>(
      'SELECT process_status, attempt_count, transient_failures FROM order_stage WHERE source_key = $1',
      [key],
    );

  targetTest(
    '--max-errors counts lines rejected while parsing: 7 of them with --max-errors 2 stop the run (exit 1) before processing',
    async ({ db }) => {
      const { loader } = await db.open();
      const bad = writeTestFile(`${HEADER}\n${rejectedLines(7, 'P').join('\n')}\nG-1,1,2026-01-01,1,JPY\n`);
      const later = orderFile([['L-1', '1', '2026-01-01', '1', 'JPY']]);
      const report = await loader.load([bad, later], { maxErrors: 2 });
      expect(report.exitCode).toBe(1);
      expect(report.aborted).toContain(
        'more than --max-errors 2 rows rejected (7 line(s) rejected while staging, 0 row(s) ended ERROR while processing',
      );
      expect(report.files.map((f) => [f.file, f.counts.rejected])).toEqual([[bad, 7]]);
      // nothing processed: after staging (sequential), or beside it (a server database's default)
      expect(report.process?.claimed ?? 0).toBe(0);
      // the committed staging stays; nothing was processed; the file after it was not staged
      expect(await db.sql("SELECT source_key, process_status FROM order_stage WHERE process_status <> 'ERROR'")).toEqual([
        { source_key: 'G-1', process_status: 'READY' },
      ]);
      expect(await db.sql('SELECT count(*) AS n FROM orders')).toEqual([{ n: 0 }]);
      // the same file again gives the same answer: the lines its load rejected still count
      const again = await loader.load([bad], { maxErrors: 2 });
      expect(again.files[0]?.skipped).toContain('already staged');
      expect(again.exitCode).toBe(1);
    },
  );

  targetTest(
    '--max-errors with --overlap (processing alongside staging on a server database) counts the rejected lines too',
    async ({ db }) => {
      const { loader } = await db.open();
      const good = Array.from({ length: 6 }, (_, i) => `G-${i},1,2026-01-01,1,JPY`);
      const file = writeTestFile(`${HEADER}\n${[...good, ...rejectedLines(7, 'P')].join('\n')}\n`);
      const report = await loader.load([file], { maxErrors: 2, overlap: true, batchSize: 3, chunkSize: 2 });
      expect(report.exitCode).toBe(1);
      expect(report.aborted).toContain('more than --max-errors 2 rows rejected (7 line(s) rejected while staging');
    },
  );

  targetTest('--max-errors N allows exactly N rejected rows', async ({ db }) => {
    const { loader } = await db.open();
    const file = writeTestFile(`${HEADER}\n${rejectedLines(2, 'P').join('\n')}\nG-1,1,2026-01-01,1,JPY\n`);
    const report = await loader.load([file], { maxErrors: 2 });
    expect(report.aborted).toBeNull();
    expect(report.exitCode).toBe(2);
    expect(report.process).toMatchObject({ done: 1, error: 0 });
  });

  targetTest('--max-errors adds the rows processing ends ERROR to the lines rejected while staging', async ({ db }) => {
    const { loader } = await db.open();
    // two rejected lines are allowed by --max-errors 2; the first chunk's validation error is one too many
    const rows = ['V-1,1,2026-01-01,,JPY', 'V-2,1,2026-01-01,1,JPY', 'V-3,1,2026-01-01,1,JPY', 'V-4,1,2026-01-01,1,JPY'];
    const file = writeTestFile(`${HEADER}\n${[...rejectedLines(2, 'P'), ...rows].join('\n')}\n`);
    // one worker for exact counts: with several, each finishes its chunk in flight before stopping
    const report = await loader.load([file], { maxErrors: 2, chunkSize: 2, workers: 1 });
    expect(report.exitCode).toBe(1);
    expect(report.aborted).toContain('(2 line(s) rejected while staging, 1 row(s) ended ERROR while processing');
    expect(report.process).toMatchObject({ chunks: 1, done: 1, error: 1 });
    expect(await db.sql("SELECT count(*) AS n FROM order_stage WHERE process_status = 'READY'")).toEqual([{ n: 2 }]);
  });

  targetTest.skipIf(target.kind === 'oracle')(
    'an amended row gets --max-attempts transient failures at its new values; attempt_count still counts every processing',
    async ({ db }) => {
      const keys = await failingKeys(db);
      const { loader } = await db.open();
      // processed four times: the first load and three amendments
      for (const amount of ['1', '2', '3', '4']) {
        expect((await loader.load([orderFile([['A-1', '1', '2026-01-01', amount, 'JPY']])])).exitCode).toBe(0);
      }
      expect(await counts(db, 'A-1')).toEqual([{ process_status: 'DONE', attempt_count: 4, transient_failures: 0 }]);
      await keys.fail('A-1');
      const slow = { maxAttempts: 2, rowRetryBaseMs: 60_000, rowRetryMaxMs: 60_000 };
      const amended = await loader.load([orderFile([['A-1', '1', '2026-01-01', '5', 'JPY']])], slow);
      // the first transient failure of the new values waits with backoff: its fifth processing,
      // but --max-attempts 2 bounds the transient failures of these values, not attempt_count
      expect(amended.process).toMatchObject({ claimed: 1, retryWait: 1, error: 0 });
      expect(await counts(db, 'A-1')).toEqual([{ process_status: 'RETRY_WAIT', attempt_count: 5, transient_failures: 1 }]);
      await db.sql("UPDATE order_stage SET next_attempt_at = now() - interval '1 second' WHERE process_status = 'RETRY_WAIT'");
      expect((await loader.process(slow)).process).toMatchObject({ claimed: 1, retryWait: 0, error: 1 });
      expect(
        await db.sql("SELECT process_status, attempt_count, transient_failures, error_message FROM order_stage WHERE source_key = 'A-1'"),
      ).toEqual([
        {
          process_status: 'ERROR',
          attempt_count: 6,
          transient_failures: 2,
          error_message: expect.stringContaining('gave up after 2 transient failures at these values, --max-attempts 2') as unknown,
        },
      ]);
      // the error log's attempt_no is attempt_count at that attempt
      expect(await db.sql("SELECT attempt_no FROM order_bulk_error WHERE source_key = 'A-1' ORDER BY error_id")).toEqual([
        { attempt_no: 5 },
        { attempt_no: 6 },
      ]);
      expect(await db.sql("SELECT amount::text AS amount FROM orders WHERE source_key = 'A-1'")).toEqual([{ amount: '4.00' }]);

      // a correction restarts the transient failures (and keeps counting attempts): one more wait
      const corrected = await loader.load([orderFile([['A-1', '1', '2026-01-01', '6', 'JPY']])], slow);
      expect(corrected.process).toMatchObject({ claimed: 1, retryWait: 1, error: 0 });
      expect(await counts(db, 'A-1')).toEqual([{ process_status: 'RETRY_WAIT', attempt_count: 7, transient_failures: 1 }]);
    },
  );

  targetTest.skipIf(target.kind === 'oracle')(
    "an operator's retry of a row that gave up restarts its transient failures, with backoff; attempt_count goes on",
    async ({ db }) => {
      const keys = await failingKeys(db);
      await keys.fail('T-9', '40001');
      const { loader } = await db.open();
      const report = await loader.load([orderFile([['T-9', '1', '2026-01-01', '1', 'JPY']])], {
        maxAttempts: 2,
        rowRetryBaseMs: 1,
        rowRetryMaxMs: 1,
      });
      expect(report.exitCode).toBe(2);
      expect(await counts(db, 'T-9')).toEqual([{ process_status: 'ERROR', attempt_count: 2, transient_failures: 2 }]);

      const { retry, process } = await loader.retry(
        { selector: { sourceKeys: ['T-9'] }, all: false, corrections: {}, reason: 'lock storm over', operator, dryRun: false },
        { maxAttempts: 2, rowRetryBaseMs: 60_000, rowRetryMaxMs: 60_000 },
      );
      expect(retry.count).toBe(1);
      // the first failure after the retry waits with backoff instead of ending ERROR at once
      expect(process?.process).toMatchObject({ claimed: 1, retryWait: 1, error: 0 });
      expect(
        await db.sql(
          "SELECT process_status, attempt_count, transient_failures, next_attempt_at > now() + interval '20 seconds' AS later FROM order_stage WHERE source_key = 'T-9'",
        ),
      ).toEqual([{ process_status: 'RETRY_WAIT', attempt_count: 3, transient_failures: 1, later: true }]);
      // the history stays: every attempt in the error log, numbered by attempt_count; the retry in the audit
      expect(await db.sql("SELECT attempt_no FROM order_bulk_error WHERE source_key = 'T-9' ORDER BY error_id")).toEqual([
        { attempt_no: 1 },
        { attempt_no: 2 },
        { attempt_no: 3 },
      ]);
      expect(await db.sql('SELECT action, old_status, new_status FROM order_stage_audit')).toEqual([
        { action: 'RETRY', old_status: 'ERROR', new_status: 'READY' },
      ]);
      // the second failure after the retry ends it ERROR (--max-attempts 2)
      await db.sql("UPDATE order_stage SET next_attempt_at = now() - interval '1 second' WHERE process_status = 'RETRY_WAIT'");
      expect((await loader.process({ maxAttempts: 2 })).process).toMatchObject({ claimed: 1, retryWait: 0, error: 1 });
      expect(await counts(db, 'T-9')).toEqual([{ process_status: 'ERROR', attempt_count: 4, transient_failures: 2 }]);
    },
  );

  targetTest.skipIf(target.kind === 'oracle')(
    'migration 007 on a database of 006: RETRY_WAIT rows keep their transient failures, reset attempt counts are raised from the error log',
    async ({ db }) => {
      // the schema as migration 006 left it: no transient_failures, 007 not recorded (the
      // functions 007 replaces are re-created by it whatever they are)
      await db.sql('DELETE FROM order_loader_migration WHERE version = 7');
      await db.sql('ALTER TABLE order_stage DROP COLUMN transient_failures');
      // rows as the code of 005/006 left them: attempt_count restarted at 0 when the values changed
      const stage = async (key: string, status: string, attempts: number) =>
        (
          await db.sql<{ stage_id: number }>(
            `INSERT INTO order_stage (source_key, customer_id, order_date, amount, currency, process_status, attempt_count, next_attempt_at)
             VALUES ($1, 1, DATE '2026-01-01', 1, 'JPY', $2::text, $3, CASE WHEN $2::text = 'RETRY_WAIT' THEN now() - interval '1 second' END)
             RETURNING stage_id`,
            [key, status, attempts],
          )
        )[0]!.stage_id;
      const log = (stageId: number, key: string, phase: string, attemptNo: number | null) =>
        db.sql(
          `INSERT INTO order_bulk_error (stage_id, source_key, phase, error_code, error_message, attempt_no)
           VALUES ($1, $2, $3, 'X', 'x', $4)`,
          [stageId, key, phase, attemptNo],
        );
      // corrected after a validation error, then DONE (the seed's SRC-102 under 005): 1 → 2
      const corrected = await stage('M-DONE', 'DONE', 1);
      await log(corrected, 'M-DONE', 'VALIDATE', 1);
      // amended after a rejection, then two deadlocks of the new values, waiting: attempt_count
      // 2 → 3, and its two transient failures carried over
      const waiting = await stage('M-WAIT', 'RETRY_WAIT', 2);
      await log(waiting, 'M-WAIT', 'MERGE', 1);
      await log(waiting, 'M-WAIT', 'MERGE', 1);
      await log(waiting, 'M-WAIT', 'MERGE', 2);
      // never reset: left as it is; a PARSE row of the log is no processing attempt
      const plain = await stage('M-ERR', 'ERROR', 2);
      await log(plain, 'M-ERR', 'PARSE', null);
      await log(plain, 'M-ERR', 'VALIDATE', 1);
      await log(plain, 'M-ERR', 'VALIDATE', 2);
      await stage('M-NEW', 'DONE', 1);

      const { loader } = await db.open();
      expect(await loader.init()).toEqual(['007_transient_failures']);
      expect(
        await db.sql('SELECT source_key, process_status, attempt_count, transient_failures FROM order_stage ORDER BY source_key'),
      ).toEqual([
        { source_key: 'M-DONE', process_status: 'DONE', attempt_count: 2, transient_failures: 0 },
        { source_key: 'M-ERR', process_status: 'ERROR', attempt_count: 2, transient_failures: 0 },
        { source_key: 'M-NEW', process_status: 'DONE', attempt_count: 1, transient_failures: 0 },
        { source_key: 'M-WAIT', process_status: 'RETRY_WAIT', attempt_count: 3, transient_failures: 2 },
      ]);
      // the waiting row's third transient failure reaches --max-attempts 3; the log numbers it by attempt_count
      const keys = await failingKeys(db);
      await keys.fail('M-WAIT');
      expect((await loader.process({ maxAttempts: 3 })).process).toMatchObject({ claimed: 1, retryWait: 0, error: 1 });
      expect(await counts(db, 'M-WAIT')).toEqual([{ process_status: 'ERROR', attempt_count: 4, transient_failures: 3 }]);
      expect(await db.sql("SELECT attempt_no FROM order_bulk_error WHERE source_key = 'M-WAIT' ORDER BY error_id DESC LIMIT 1")).toEqual([
        { attempt_no: 4 },
      ]);
      // applied once
      expect(await loader.init()).toEqual([]);
    },
  );

  targetTest('retry changes more rows than one batch holds, one audit row each; its dry run plans the same', async ({ db }) => {
    const { loader } = await db.open();
    const rows = missingAmounts(7, 'B');
    await loader.load([orderFile(rows)]);
    const dry = await loader.retry(retryAll({ dryRun: true }), { chunkSize: 3 });
    expect(dry.process).toBeNull();
    expect(await db.sql('SELECT count(*) AS n FROM order_stage_audit')).toEqual([{ n: 0 }]);

    const { retry, process } = await loader.retry(retryAll(), { chunkSize: 3 });
    expect(retry.count).toBe(7);
    expect(retry.changes.map((c) => c.sourceKey)).toEqual(rows.map((r) => r[0]));
    expect(dry.retry).toEqual({ ...retry, dryRun: true });
    expect(process).toMatchObject({ exitCode: 0, process: { done: 7 } });
    expect(
      await db.sql(
        'SELECT s.source_key, count(*) AS n FROM order_stage_audit a JOIN order_stage s ON s.stage_id = a.stage_id GROUP BY s.source_key ORDER BY s.source_key',
      ),
    ).toEqual(rows.map((r) => ({ source_key: r[0], n: 1 })));
  });

  targetTest(
    'a retry that fails part-way leaves each committed batch complete and audited; the same command does the rest',
    async ({ db }) => {
      const { loader: setup } = await db.open();
      const rows = missingAmounts(7, 'C');
      await setup.load([orderFile(rows)]);
      // the second batch's transaction fails after its writes: it rolls back, the first stays
      // (counted by calls, not by transaction number: the retry's run record has transactions too)
      let batches = 0;
      const { loader } = await db.openWith((engine) =>
        faultyEngine(engine, (step) =>
          step === 'applyManualChanges' && ++batches === 2 ? new Error('injected: the second batch fails') : undefined,
        ),
      );
      await expect(loader.retry(retryAll(), { chunkSize: 3, process: false })).rejects.toThrow(
        /retry stopped after 3 row\(s\) changed, committed and audited: injected/,
      );
      const ready = rows.slice(0, 3).map((r) => r[0]);
      expect(await db.sql("SELECT source_key FROM order_stage WHERE process_status = 'READY' ORDER BY source_key")).toEqual(
        ready.map((k) => ({ source_key: k })),
      );
      expect(
        await db.sql('SELECT s.source_key FROM order_stage_audit a JOIN order_stage s ON s.stage_id = a.stage_id ORDER BY s.source_key'),
      ).toEqual(ready.map((k) => ({ source_key: k })));

      const again = await setup.retry(retryAll(), { chunkSize: 3, process: false });
      expect(again.retry.count).toBe(4);
      expect(await db.sql("SELECT count(*) AS n FROM order_stage WHERE process_status = 'READY'")).toEqual([{ n: 7 }]);
      expect(await db.sql('SELECT count(DISTINCT stage_id) AS audited, count(*) AS n FROM order_stage_audit')).toEqual([
        { audited: 7, n: 7 },
      ]);
    },
  );

  targetTest(
    'retry --load-id over a load with DONE and ERROR rows changes only its ERROR rows: the DONE rows keep their state, unaudited',
    async ({ db }) => {
      const { loader } = await db.open();
      const good = (prefix: string) =>
        Array.from({ length: 3 }, (_, i) => [`${prefix}-${i}`, '1', '2026-01-01', '10', 'JPY'] as [string, string, string, string, string]);
      const bad = missingAmounts(3, 'E');
      // DONE and ERROR rows interleaved in stage_id order, so that a batch holds both
      const chosen = await loader.load([orderFile([good('D')[0]!, bad[0]!, good('D')[1]!, bad[1]!, bad[2]!, good('D')[2]!])]);
      const loadId = chosen.files[0]!.loadId;
      // another load's DONE and ERROR rows, not chosen
      await loader.load([orderFile([...good('O'), ...missingAmounts(1, 'O')])]);
      const doneBefore = await db.sql(
        "SELECT source_key, attempt_count, updated_at FROM order_stage WHERE process_status = 'DONE' ORDER BY source_key",
      );
      expect(doneBefore).toHaveLength(6);
      const errorKeys = bad.map((r) => r[0]);
      const request = retryAll({ all: false, selector: { loadIds: [loadId] }, corrections: {} });

      const dry = await loader.retry({ ...request, dryRun: true }, { chunkSize: 2 });
      expect(dry.retry.changes.map((c) => [c.sourceKey, c.oldStatus])).toEqual(errorKeys.map((k) => [k, 'ERROR']));
      const { retry } = await loader.retry(request, { chunkSize: 2, process: false });
      expect(retry.count).toBe(3);
      expect(retry.changes.map((c) => [c.sourceKey, c.oldStatus])).toEqual(errorKeys.map((k) => [k, 'ERROR']));

      expect(
        await db.sql("SELECT source_key, attempt_count, updated_at FROM order_stage WHERE process_status = 'DONE' ORDER BY source_key"),
      ).toEqual(doneBefore);
      expect(
        await db.sql("SELECT source_key, process_status FROM order_stage WHERE process_status NOT IN ('DONE') ORDER BY source_key"),
      ).toEqual([...errorKeys.map((k) => ({ source_key: k, process_status: 'READY' })), { source_key: 'O-0000', process_status: 'ERROR' }]);
      expect(
        await db.sql(
          'SELECT s.source_key, a.old_status FROM order_stage_audit a JOIN order_stage s ON s.stage_id = a.stage_id ORDER BY s.source_key',
        ),
      ).toEqual(errorKeys.map((k) => ({ source_key: k, old_status: 'ERROR' })));
    },
  );

  targetTest('the report of a large retry counts every row and lists the first 1000', async ({ db }) => {
    const { loader } = await db.open();
    await loader.load([orderFile(missingAmounts(1003, 'M'))]);
    const { retry } = await loader.retry(retryAll({ dryRun: true }), { chunkSize: 400 });
    expect(retry.count).toBe(1003);
    expect(retry.changes).toHaveLength(1000);
    expect(retry.changes[999]?.sourceKey).toBe('M-0999');
  });
});

const server = serverPgTarget();
describe.skipIf(unavailable(NEEDS.server))('retry on server PostgreSQL', () => {
  it('a dry run returns at once while another session holds one of the rows locked', async () => {
    const db = await server!.create();
    const pg = await import('pg');
    const holder = new pg.default.Client({ connectionString: db.url! });
    let dry: Promise<number> | undefined;
    try {
      const { loader } = await db.open();
      await loader.load([orderFile(missingAmounts(3, 'H'))]);
      await holder.connect();
      await holder.query('BEGIN');
      await holder.query("SELECT 1 FROM order_stage WHERE source_key = 'H-0001' FOR UPDATE");
      dry = loader.retry(retryAll({ dryRun: true })).then((r) => r.retry.count);
      // a dry run that took row locks would wait here until the holder ends its transaction
      const outcome = await Promise.race([dry, new Promise((resolve) => setTimeout(() => resolve('still waiting for the lock'), 10_000))]);
      expect(outcome).toBe(3);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
      if (dry !== undefined) await Promise.allSettled([dry]);
      await db.dispose();
    }
  });
});
