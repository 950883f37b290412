/**
 * A row lock held by someone else is that row's problem, not the run's: the chunk waits at most
 * the lock wait (lockWaitMs, --row-lock-wait), the held row waits in RETRY_WAIT and the rest of the
 * chunk commits. PGlite has one connection, so no other session can hold a lock there; a
 * trigger that raises lock_not_available (55P03) for one key stands in for it on every target,
 * and server PostgreSQL also runs the real thing (a second connection holding the row).
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serverPgTarget, testTargets, type TestDatabase } from '../support/databases.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { orderFile } from '../support/files.js';
import { NEEDS, unavailable } from '../support/requirements.js';
import { parseCorrections } from '../../src/pipeline/corrections.js';
import { RunAbortedError } from '../../src/errors.js';

type Row = [string, string, string, string, string];
const rows = (n: number, amount: string): Row[] =>
  Array.from({ length: n }, (_, i) => [`LK-${String(i + 1).padStart(3, '0')}`, String(100 + i), '2026-03-01', amount, 'JPY']);

interface StageRow {
  source_key: string;
  process_status: string;
  error_code: string | null;
}

const pgTargets = testTargets().filter((t) => t.kind !== 'oracle'); // the stand-in is a PL/pgSQL trigger

forEachTarget(
  'a row that times out on a lock, on $kind',
  () => {
    targetTest.beforeEach(async ({ db }) => {
      // Records the lock_timeout in force when each row reaches orders and when each stage row gets
      // its final status, and raises lock_not_available for one key while `lock_held` says so.
      await db.sql(`CREATE TABLE lock_held (source_key text PRIMARY KEY)`);
      await db.sql(`CREATE TABLE lock_seen (phase text, source_key text, lock_timeout text)`);
      await db.sql(`CREATE FUNCTION test_lock_stand_in() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO lock_seen VALUES ('merge', NEW.source_key, current_setting('lock_timeout'));
        IF EXISTS (SELECT 1 FROM lock_held h WHERE h.source_key = NEW.source_key) THEN
          RAISE EXCEPTION 'canceling statement due to lock timeout' USING ERRCODE = '55P03';
        END IF;
        RETURN NEW;
      END $$`);
      await db.sql(
        `CREATE TRIGGER test_lock_stand_in BEFORE INSERT OR UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION test_lock_stand_in()`,
      );
      await db.sql(`CREATE FUNCTION test_finalize_seen() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO lock_seen VALUES ('finalize', NEW.source_key, current_setting('lock_timeout'));
        RETURN NEW;
      END $$`);
      await db.sql(`CREATE TRIGGER test_finalize_seen BEFORE UPDATE OF process_status ON order_stage FOR EACH ROW
      WHEN (NEW.process_status IN ('DONE', 'RETRY_WAIT')) EXECUTE FUNCTION test_finalize_seen()`);
    });

    const stageRows = (db: TestDatabase) =>
      db.sql<StageRow>('SELECT source_key, process_status, error_code FROM order_stage ORDER BY source_key');

    targetTest('with the default chunk size, that row waits in RETRY_WAIT and every other row of the chunk is DONE', async ({ db }) => {
      await db.sql("INSERT INTO lock_held VALUES ('LK-017')");
      const { loader } = await db.open();
      const report = await loader.load([orderFile(rows(40, '1000'))], { lockWaitMs: 1500 });

      expect(report.aborted).toBeNull();
      expect(report.exitCode).toBe(2); // not every row DONE yet
      expect(report.process).toMatchObject({ chunks: 1, done: 39, retryWait: 1, error: 0 });
      const stage = await stageRows(db);
      expect(stage.filter((r) => r.process_status !== 'DONE')).toEqual([
        { source_key: 'LK-017', process_status: 'RETRY_WAIT', error_code: '55P03' },
      ]);
      expect(await db.sql('SELECT count(*)::int AS n FROM orders')).toEqual([{ n: 39 }]);
      expect(await db.sql("SELECT phase, error_code, attempt_no FROM order_bulk_error WHERE source_key = 'LK-017'")).toEqual([
        { phase: 'MERGE', error_code: '55P03', attempt_no: 1 },
      ]);

      // After the first lock timeout the split that finds the held row waits at most 100 ms per
      // lock (what the rolled-back first attempt saw is gone with it); the rest of the transaction
      // (the final statuses) has the chunk's lock wait back.
      const seen = await db.sql<{ phase: string; lock_timeout: string }>(
        'SELECT DISTINCT phase, lock_timeout FROM lock_seen ORDER BY 1, 2',
      );
      expect(seen).toEqual([
        { phase: 'finalize', lock_timeout: '1500ms' },
        { phase: 'merge', lock_timeout: '100ms' },
      ]);

      // Released: once due, the next `process` merges it.
      await db.sql('DELETE FROM lock_held');
      await db.sql("UPDATE order_stage SET next_attempt_at = now() WHERE process_status = 'RETRY_WAIT'");
      const later = await loader.process();
      expect(later.exitCode).toBe(0);
      expect((await stageRows(db)).every((r) => r.process_status === 'DONE')).toBe(true);
      expect(await db.sql('SELECT count(*)::int AS n FROM orders')).toEqual([{ n: 40 }]);
    });

    targetTest('lockWaitMs 0 means no limit (lock_timeout 0); by default a chunk waits at most 10 s', async ({ db }) => {
      const { loader } = await db.open();
      // processing's merge: rows settled while staging are merged by the staging batch, whose
      // wait is its own (at most 100 ms, migration 016)
      await loader.load([orderFile(rows(3, '1000'))], { lockWaitMs: 0, settleWhileStaging: false });
      expect(await db.sql("SELECT DISTINCT lock_timeout FROM lock_seen WHERE phase = 'merge'")).toEqual([{ lock_timeout: '0' }]);
      await db.sql('DELETE FROM lock_seen');
      await loader.load([orderFile(rows(3, '2000'))]);
      expect(await db.sql("SELECT DISTINCT lock_timeout FROM lock_seen WHERE phase = 'merge'")).toEqual([{ lock_timeout: '10s' }]);
      expect((await stageRows(db)).map((r) => r.process_status)).toEqual(['DONE', 'DONE', 'DONE']);
    });

    targetTest('retry changes its rows under the row-lock wait (lock_timeout), by default 10 s, 0 without a limit', async ({ db }) => {
      await db.sql(`CREATE TRIGGER test_retry_seen BEFORE UPDATE OF process_status ON order_stage FOR EACH ROW
      WHEN (OLD.process_status = 'ERROR' AND NEW.process_status = 'READY') EXECUTE FUNCTION test_finalize_seen()`);
      const { loader } = await db.open();
      expect((await loader.load([orderFile(rows(3, 'not an amount'))])).exitCode).toBe(2);
      const ask = (key: string) => ({
        selector: { sourceKeys: [key] },
        all: false,
        corrections: parseCorrections(['amount=1000']),
        reason: 'lock wait',
        dryRun: false,
      });
      await loader.retry(ask('LK-001'), { lockWaitMs: 1500, process: false });
      await loader.retry(ask('LK-002'), { process: false });
      await loader.retry(ask('LK-003'), { lockWaitMs: 0, process: false });
      expect(await db.sql("SELECT source_key, lock_timeout FROM lock_seen WHERE phase = 'finalize' ORDER BY source_key")).toEqual([
        { source_key: 'LK-001', lock_timeout: '1500ms' },
        { source_key: 'LK-002', lock_timeout: '10s' },
        { source_key: 'LK-003', lock_timeout: '0' },
      ]);
    });
  },
  pgTargets,
);

forEachTarget(
  'the claim locks the rows it claims, on $kind',
  () => {
    targetTest('while a chunk merges, each of its stage rows is locked by the chunk transaction (FOR UPDATE)', async ({ db }) => {
      // A row lock is the xid of its holder in the row's xmax: read it while the chunk merges (a
      // trigger on orders), before the chunk's own UPDATE of the stage row. A claim without its
      // lock clause leaves xmax 0, and two workers could then merge the same row at once.
      await db.sql('CREATE TABLE claim_seen (source_key text, locked_by_chunk boolean)');
      await db.sql(`CREATE FUNCTION test_claim_seen() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO claim_seen
        SELECT NEW.source_key, s.xmax::text::bigint = pg_current_xact_id()::text::bigint % 4294967296
          FROM order_stage s WHERE s.source_key = NEW.source_key;
        RETURN NEW;
      END $$`);
      await db.sql('CREATE TRIGGER test_claim_seen BEFORE INSERT OR UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION test_claim_seen()');
      const { loader } = await db.open();
      // processing's claim is what is watched: no row DONE while staging (PGlite would settle these)
      const report = await loader.load([orderFile(rows(5, '1000'))], { chunkSize: 2, workers: 1, settleWhileStaging: false });
      expect(report.process).toMatchObject({ chunks: 3, done: 5 });
      expect(await db.sql('SELECT source_key, locked_by_chunk FROM claim_seen ORDER BY source_key')).toEqual(
        rows(5, '1000').map((r) => ({ source_key: r[0], locked_by_chunk: true })),
      );
    });
  },
  pgTargets,
);

const server = serverPgTarget();
const STILL_WAITING = 'still waiting after 20 s';

describe.skipIf(unavailable(NEEDS.server))('a row held by another session, on server PostgreSQL', () => {
  let db: TestDatabase;
  let holder: pg.Client;
  beforeEach(async () => {
    db = await server!.create();
    holder = new pg.Client({ connectionString: db.url! });
    await holder.connect();
  });
  afterEach(async () => {
    await holder.end().catch(() => undefined);
    await db.dispose();
  });

  const stageRows = () => db.sql<StageRow>('SELECT source_key, process_status, error_code FROM order_stage ORDER BY source_key');

  /**
   * `work`'s outcome, or STILL_WAITING if it has not ended within 20 s; either way the holder's
   * transaction is then ended (`end`) and `work` awaited, so that no test leaves a session waiting.
   */
  async function whileHeld<T>(work: Promise<T>, end: 'COMMIT' | 'ROLLBACK'): Promise<T | typeof STILL_WAITING> {
    try {
      return await Promise.race([work, new Promise<typeof STILL_WAITING>((resolve) => setTimeout(() => resolve(STILL_WAITING), 20_000))]);
    } finally {
      await holder.query(end);
      await Promise.allSettled([work]);
    }
  }

  it('an amended file loads with the default chunk size: the held row RETRY_WAIT, every other row DONE; released, it follows', async () => {
    const { loader } = await db.open();
    expect((await loader.load([orderFile(rows(60, '1000'))])).exitCode).toBe(0);

    await holder.query('BEGIN');
    await holder.query("SELECT * FROM orders WHERE source_key = 'LK-033' FOR UPDATE");
    // no lock_timeout anywhere but ours: the server's default (0) would wait for ever
    expect((await db.sql<{ lock_timeout: string }>('SHOW lock_timeout'))[0]?.lock_timeout).toBe('0');
    // one worker: with the default two, the second one's claim can take part of the rows first
    // (SKIP LOCKED), and the count of chunks would depend on timing
    const report = await loader.load([orderFile(rows(60, '2000'))], { lockWaitMs: 1000, workers: 1 });

    expect(report.aborted).toBeNull();
    expect(report.process).toMatchObject({ chunks: 1, done: 59, retryWait: 1, error: 0 });
    expect((await stageRows()).filter((r) => r.process_status !== 'DONE')).toEqual([
      { source_key: 'LK-033', process_status: 'RETRY_WAIT', error_code: '55P03' },
    ]);
    expect(await db.sql('SELECT amount::text AS amount, count(*)::int AS n FROM orders GROUP BY amount ORDER BY amount')).toEqual([
      { amount: '1000.00', n: 1 },
      { amount: '2000.00', n: 59 },
    ]);

    await holder.query('ROLLBACK');
    await db.sql("UPDATE order_stage SET next_attempt_at = now() WHERE process_status = 'RETRY_WAIT'");
    expect((await loader.process()).exitCode).toBe(0);
    expect((await stageRows()).every((r) => r.process_status === 'DONE')).toBe(true);
    expect(await db.sql("SELECT amount::text AS amount FROM orders WHERE source_key = 'LK-033'")).toEqual([{ amount: '2000.00' }]);
  });

  it('a new key another session inserted and has not committed: the MERGE waits at most the row-lock wait, that row RETRY_WAIT, the rest DONE', async () => {
    // no row to lock first: the insert of the key waits for the holder's transaction (its unique
    // index entry); lock_timeout bounds that wait as it bounds a row lock's
    const { loader } = await db.open();
    await holder.query('BEGIN');
    await holder.query(
      "INSERT INTO orders (source_key, customer_id, order_date, amount, currency) VALUES ('LK-033', 1, '2026-03-01', 1, 'JPY')",
    );
    const started = Date.now();
    const outcome = await whileHeld(loader.load([orderFile(rows(60, '2000'))], { lockWaitMs: 1000, workers: 1 }), 'COMMIT');
    expect(outcome).not.toBe(STILL_WAITING);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(outcome).toMatchObject({ aborted: null, process: { done: 59, retryWait: 1, error: 0 } });
    expect((await stageRows()).filter((r) => r.process_status !== 'DONE')).toEqual([
      { source_key: 'LK-033', process_status: 'RETRY_WAIT', error_code: '55P03' },
    ]);
    // committed now: the next attempt updates the holder's row with the file's values
    await db.sql("UPDATE order_stage SET next_attempt_at = now() WHERE process_status = 'RETRY_WAIT'");
    expect((await loader.process()).exitCode).toBe(0);
    expect(await db.sql("SELECT amount::text AS amount FROM orders WHERE source_key = 'LK-033'")).toEqual([{ amount: '2000.00' }]);
  });

  it('a batch settling while staging does not wait on a held orders row: processing meets it, with its own wait', async () => {
    // LK-005 is in orders but not staged (its stage row purged): new to order_stage, so its batch
    // tries to settle it, and the MERGE meets the holder's lock. Waiting for ever (the server's
    // lock_timeout 0) would stall staging; the batch is staged as before and processing waits.
    const { loader } = await db.open();
    await db.sql("INSERT INTO orders (source_key, customer_id, order_date, amount, currency) VALUES ('LK-005', 1, '2026-03-01', 1, 'JPY')");
    await holder.query('BEGIN');
    await holder.query("SELECT * FROM orders WHERE source_key = 'LK-005' FOR UPDATE");
    const outcome = await whileHeld(
      loader.load([orderFile(rows(40, '3000'))], { lockWaitMs: 1000, workers: 1, batchSize: 10, feedProcessing: false }),
      'ROLLBACK',
    );
    expect(outcome).not.toBe(STILL_WAITING);
    // LK-005's batch (the first) went to processing, which gave up on LK-005 after its wait; the
    // second was not tried settled (the backoff after a refusal), the last two settled
    expect(outcome).toMatchObject({ aborted: null, process: { done: 39, retryWait: 1, error: 0, settled: 20 } });
    expect((await stageRows()).filter((r) => r.process_status !== 'DONE')).toEqual([
      { source_key: 'LK-005', process_status: 'RETRY_WAIT', error_code: '55P03' },
    ]);
  });

  it('a claimable row another session holds is skipped, not waited for: process ends well within the row-lock wait, the row still READY', async () => {
    const { loader } = await db.open();
    await loader.stage([orderFile(rows(20, '1000'))]);
    await holder.query('BEGIN');
    await holder.query("SELECT 1 FROM order_stage WHERE source_key = 'LK-007' FOR UPDATE");
    // a claim that waited for the row would wait up to the row-lock wait (60 s) on every pass
    const processing = loader.process({ lockWaitMs: 60_000, workers: 1 });
    let outcome: Awaited<typeof processing> | 'still waiting after 10 s';
    try {
      outcome = await Promise.race([
        processing,
        new Promise<'still waiting after 10 s'>((resolve) => setTimeout(() => resolve('still waiting after 10 s'), 10_000)),
      ]);
    } finally {
      await holder.query('ROLLBACK');
      await Promise.allSettled([processing]);
    }
    expect(outcome).not.toBe('still waiting after 10 s');
    expect(outcome).toMatchObject({ aborted: null, process: { claimed: 19, done: 19, error: 0, retryWait: 0 } });
    expect((await stageRows()).filter((r) => r.process_status !== 'DONE')).toEqual([
      { source_key: 'LK-007', process_status: 'READY', error_code: null },
    ]);
    expect(await db.sql('SELECT count(*)::int AS n FROM orders')).toEqual([{ n: 19 }]);
  });

  it('a retry whose ERROR row another session holds waits at most the row-lock wait per attempt, then stops saying so', async () => {
    const { loader } = await db.open();
    expect((await loader.load([orderFile(rows(3, 'not an amount'))])).exitCode).toBe(2);
    await holder.query('BEGIN');
    await holder.query("SELECT * FROM order_stage WHERE source_key = 'LK-002' FOR UPDATE");
    const retrying = loader.retry(
      { selector: { loadIds: [1] }, all: false, corrections: parseCorrections(['amount=1000']), reason: 'held', dryRun: false },
      { lockWaitMs: 300, retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 10 } },
    );
    let outcome: unknown;
    try {
      // unbounded, the retry waits for the holder for ever: the race says which
      outcome = await Promise.race([
        retrying.then(
          () => 'changed',
          (error: unknown) => error,
        ),
        new Promise((resolve) => setTimeout(() => resolve('still waiting after 20 s'), 20_000)),
      ]);
    } finally {
      await holder.query('ROLLBACK');
      await Promise.allSettled([retrying]);
    }
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).toMatch(
      /^retry stopped: its batch was rolled back 2 times: 55P03 canceling statement due to lock timeout \(a row it chose is held by another session longer than --row-lock-wait/,
    );
    // the batch rolled back whole: nothing changed, nothing audited
    expect((await stageRows()).map((r) => r.process_status)).toEqual(['ERROR', 'ERROR', 'ERROR']);
    expect(await db.sql('SELECT count(*)::int AS n FROM order_stage_audit')).toEqual([{ n: 0 }]);
  });

  it('a retry that deadlocks with another session runs its batch again: every chosen row READY and audited once', async () => {
    // Staging locks a load's rows in its file's order and `retry` in stage_id order, so a `load`
    // restaging keys that a `retry` is changing could deadlock with it (found by an adversary run:
    // `retry` ended with 40P01). The holder stands in for that load, in the order that closes the
    // cycle: it holds the last row, the retry locks the first ones and waits for it, then the
    // holder asks for the first. The server aborts the session whose deadlock check runs first:
    // the retry's (the holder's check waits 30 s).
    const { loader, logs } = await db.open();
    expect((await loader.load([orderFile(rows(3, 'not an amount'))])).exitCode).toBe(2);
    const stageIds = (
      await db.sql<{ stage_id: string }>("SELECT stage_id::text FROM order_stage WHERE process_status = 'ERROR' ORDER BY stage_id")
    ).map((r) => r.stage_id);
    expect(stageIds).toHaveLength(3);
    const before = await db.sql('SELECT stage_id, attempt_count, updated_at FROM order_stage ORDER BY stage_id');
    await holder.query("SET deadlock_timeout = '30s'");
    await holder.query('BEGIN');
    await holder.query('UPDATE order_stage SET line_no = line_no WHERE stage_id = $1', [stageIds[2]]);

    const retrying = loader.retry(
      {
        selector: { loadIds: [1] },
        all: false,
        corrections: parseCorrections(['amount=1000']),
        reason: 'deadlock test',
        operator: 'test-operator',
        dryRun: false,
      },
      { process: false },
    );
    const waiting = async () =>
      (
        await db.sql<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        )
      )[0]?.n;
    for (let i = 0; i < 200 && (await waiting()) !== 1; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await waiting()).toBe(1);
    // closes the cycle; it returns once the retry's transaction has rolled back
    await holder.query('UPDATE order_stage SET line_no = line_no WHERE stage_id = $1', [stageIds[0]]);
    await holder.query('COMMIT');

    const { retry } = await retrying;
    expect(retry.count).toBe(3);
    expect(await db.sql('SELECT process_status, count(*)::int AS n FROM order_stage GROUP BY process_status')).toEqual([
      { process_status: 'READY', n: 3 },
    ]);
    expect(
      await db.sql('SELECT stage_id::text, action, count(*)::int AS n FROM order_stage_audit GROUP BY stage_id, action ORDER BY stage_id'),
    ).toEqual(stageIds.map((id) => ({ stage_id: id, action: 'RETRY', n: 1 })));
    // the retry does not count as a processing attempt
    expect(await db.sql('SELECT stage_id, attempt_count FROM order_stage ORDER BY stage_id')).toEqual(
      before.map((r) => ({ stage_id: r.stage_id, attempt_count: r.attempt_count })),
    );
    const rolledBack = logs.records.filter((r) => r.msg === 'retry batch: the database rolled the transaction back; running it again');
    expect(rolledBack.map((r) => [r.attempt, String(r.error).slice(0, 23)])).toEqual([[1, '40P01 deadlock detected']]);
  });

  it('a lock on the whole orders table fails the chunk (retried, then the run stops), not every row one by one', async () => {
    const { loader } = await db.open();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE orders IN SHARE MODE');
    await expect(
      loader.load([orderFile(rows(20, '1000'))], {
        lockWaitMs: 300,
        retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 10 },
      }),
    ).rejects.toThrow(/failed 2 times, giving up: 55P03 .*lock timeout/);
    expect((await stageRows()).every((r) => r.process_status === 'READY')).toBe(true);
    expect(await db.sql('SELECT count(*)::int AS n FROM order_bulk_error')).toEqual([{ n: 0 }]);
    await holder.query('ROLLBACK');
  });

  it('SIGINT while a chunk waits to run again stops the load at once, saying it was asked to', async () => {
    const { loader } = await db.open();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE orders IN SHARE MODE');
    const controller = new AbortController();
    const started = Date.now();
    const loading = loader
      .load([orderFile(rows(20, '1000'))], {
        lockWaitMs: 300,
        // a minute's wait before the second attempt: the interruption must not sit through it
        retry: { attempts: 5, baseDelayMs: 60_000, maxDelayMs: 60_000 },
        signal: controller.signal,
      })
      .catch((error: unknown) => error);
    setTimeout(() => controller.abort(), 2_000);
    const error = await loading;
    expect(error).toBeInstanceOf(RunAbortedError);
    expect((error as RunAbortedError).reason).toBe('interrupted');
    expect((error as RunAbortedError).message).toMatch(
      /stopped as asked after 1 attempt: 55P03 .*lock timeout \(nothing of it was committed; run the command again\)$/,
    );
    expect(Date.now() - started).toBeLessThan(30_000);
    expect((await stageRows()).every((r) => r.process_status === 'READY')).toBe(true);
    await holder.query('ROLLBACK');
  });
});
