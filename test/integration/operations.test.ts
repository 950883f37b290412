import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { errorsToCsv } from '../../src/cli/errors-csv.js';
import { UserError } from '../../src/errors.js';
import { parseCorrections } from '../../src/pipeline/corrections.js';
import { defaultOperator, defaultRecoverReason } from '../../src/pipeline/operations.js';
import { serverPgTarget, type TestDatabase } from '../support/databases.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, orderFile, writeTestFile } from '../support/files.js';
import { failingKeys } from '../support/transient-failures.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url));
const operator = 'test-operator';

/** A real row-level transient failure (40P01) raised by the database inside the MERGE for one key. */
async function injectTransientFailures(db: TestDatabase, sourceKey: string): Promise<void> {
  await (await failingKeys(db)).fail(sourceKey);
}

forEachTarget('operations on $kind', (target) => {
  targetTest('retry with a correction: ERROR → READY → DONE, one audit row with old and new values', async ({ db }) => {
    const { loader } = await db.open();
    await loader.load([fixture('orders-sample.csv')]);
    const dry = await loader.retry({
      selector: { sourceKeys: ['SRC-102'] },
      all: false,
      corrections: parseCorrections(['amount=3500']),
      reason: 'supplier resent',
      operator,
      dryRun: true,
    });
    expect(dry.retry.changes).toHaveLength(1);
    expect(await db.sql('SELECT count(*) AS n FROM order_stage_audit')).toEqual([{ n: 0 }]);
    expect(await db.sql("SELECT process_status FROM order_stage WHERE source_key = 'SRC-102'")).toEqual([{ process_status: 'ERROR' }]);

    const { retry, process } = await loader.retry({
      selector: { sourceKeys: ['SRC-102'] },
      all: false,
      corrections: parseCorrections(['amount=3500']),
      reason: 'supplier resent',
      operator,
      dryRun: false,
    });
    expect(retry.changes.map((c) => c.sourceKey)).toEqual(['SRC-102']);
    expect(process).toMatchObject({ exitCode: 0, process: { done: 1 } });
    const audit = await db.sql<{
      action: string;
      old_status: string;
      new_status: string;
      old_values: string;
      new_values: string;
      operator: string;
      reason: string;
    }>('SELECT action, old_status, new_status, old_values, new_values, operator, reason FROM order_stage_audit');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: 'RETRY', old_status: 'ERROR', new_status: 'READY', operator, reason: 'supplier resent' });
    expect(JSON.parse(audit[0]!.old_values)).toEqual({ process_status: 'ERROR', amount: null });
    expect(JSON.parse(audit[0]!.new_values)).toEqual({ process_status: 'READY', amount: '3500' });
    // attempt_count counts every processing, the one before the retry too; the retry restarted
    // only the transient failures that --max-attempts bounds
    expect(await db.sql("SELECT process_status, attempt_count, transient_failures FROM order_stage WHERE source_key = 'SRC-102'")).toEqual([
      { process_status: 'DONE', attempt_count: 2, transient_failures: 0 },
    ]);
    // the error log is never rewritten
    expect(await db.sql("SELECT phase FROM order_bulk_error WHERE source_key = 'SRC-102'")).toEqual([{ phase: 'VALIDATE' }]);
  });

  targetTest('a library retry or recover without an operator records the OS user at this host, as the CLI does', async ({ db }) => {
    const { loader } = await db.open();
    await loader.load([fixture('orders-sample.csv')]);
    // no operator at all (the field is optional for a library caller), then a blank one
    const first = await loader.retry({
      selector: { sourceKeys: ['SRC-102'] },
      all: false,
      corrections: parseCorrections(['amount=3500']),
      reason: 'supplier resent',
      dryRun: false,
    });
    expect(first.retry.changes.map((c) => [c.sourceKey, c.operator])).toEqual([['SRC-102', defaultOperator()]]);
    expect(first.process).toMatchObject({ exitCode: 0, process: { done: 1 } });
    await loader.retry({
      selector: { sourceKeys: ['SRC-103'] },
      all: false,
      corrections: {},
      reason: 'again',
      operator: ' ',
      dryRun: false,
    });
    await db.sql(
      "UPDATE order_stage SET process_status = 'PROCESSING', updated_at = now() - interval '1 hour' WHERE source_key = 'SRC-101'",
    );
    const recovered = await loader.recover({ olderThanMs: 15 * 60_000, dryRun: false });
    expect(recovered.changes.map((c) => c.sourceKey)).toEqual(['SRC-101']);
    expect(
      await db.sql(
        'SELECT s.source_key, a.action, a.operator, a.reason FROM order_stage_audit a JOIN order_stage s ON s.stage_id = a.stage_id ORDER BY a.audit_id',
      ),
    ).toEqual([
      { source_key: 'SRC-102', action: 'RETRY', operator: defaultOperator(), reason: 'supplier resent' },
      { source_key: 'SRC-103', action: 'RETRY', operator: defaultOperator(), reason: 'again' },
      { source_key: 'SRC-101', action: 'RECOVER', operator: defaultOperator(), reason: defaultRecoverReason(15 * 60_000) },
    ]);
    expect(defaultOperator()).toContain(`@${hostname()}`);
  });

  targetTest('retry refuses what it cannot do', async ({ db }) => {
    const { loader } = await db.open();
    await expect(loader.retry({ selector: {}, all: false, corrections: {}, reason: 'x', operator, dryRun: false })).rejects.toThrow(
      /choose rows/,
    );
    await expect(
      loader.retry({ selector: { stageIds: [1] }, all: false, corrections: {}, reason: ' ', operator, dryRun: false }),
    ).rejects.toThrow(/--reason is required/);
    expect(() => parseCorrections(['amount=-5'])).toThrow(UserError);
    expect(() => parseCorrections(['amount=1e5'])).toThrow(/no exponent/);
    expect(() => parseCorrections(['source_key=X'])).toThrow(/only customer_id, order_date, amount, currency/);
    expect(() => parseCorrections(['currency=usd'])).toThrow(/upper-case/);
  });

  targetTest('export → fix → reload: every row ends DONE', async ({ db }) => {
    const { loader } = await db.open();
    await loader.load([fixture('orders-sample.csv')]);
    const csv = errorsToCsv(await loader.errors());
    const lines = csv.trim().split('\n');
    expect(lines[0]).toBe('source_key,customer_id,order_date,amount,currency,error_code,error_message,line_no,load_id,raw_record');
    expect(lines).toHaveLength(3);
    // the operator fixes the amounts in a spreadsheet
    const fixed = csv.replace(/^(SRC-102,20,2026-11-01,)(,)/m, '$13500$2').replace(/999999999999\.99/, '5000');
    const report = await loader.load([writeTestFile(fixed)]);
    expect(report.exitCode).toBe(0);
    expect(await db.sql("SELECT count(*) AS n FROM order_stage WHERE process_status <> 'DONE'")).toEqual([{ n: 0 }]);
    expect(await loader.errors()).toEqual([]);
  });

  targetTest('neutralises formulas in the CSV export and reads them back as the original values', async ({ db }) => {
    const { loader } = await db.open();
    await loader.load([orderFile([['=cmd|calc', '1', '2026-01-01', '-5', 'JPY']])]);
    const csv = errorsToCsv(await loader.errors());
    expect(csv).toContain("'=cmd|calc,1,2026-01-01,'-5.00,JPY");
    const back = await loader.load([writeTestFile(csv.replace("'-5.00", '5'))]);
    expect(back.exitCode).toBe(0);
    expect(await db.sql('SELECT source_key FROM orders')).toEqual([{ source_key: '=cmd|calc' }]);
  });

  targetTest('--max-errors stops processing past the threshold; committed chunks stay', async ({ db }) => {
    const { loader } = await db.open();
    const rows = Array.from(
      { length: 40 },
      (_, i) =>
        [`E-${String(i).padStart(2, '0')}`, '1', '2026-01-01', i % 2 === 0 ? '' : '1', 'JPY'] as [string, string, string, string, string],
    );
    // one worker for exact counts: with several, each finishes its chunk in flight before stopping
    const report = await loader.load([orderFile(rows)], { chunkSize: 4, maxErrors: 3, workers: 1 });
    expect(report.exitCode).toBe(1);
    expect(report.aborted).toContain('--max-errors 3');
    expect(report.process?.error).toBe(4);
    expect(await db.sql('SELECT process_status, count(*) AS n FROM order_stage GROUP BY process_status ORDER BY process_status')).toEqual([
      { process_status: 'DONE', n: 4 },
      { process_status: 'ERROR', n: 4 },
      { process_status: 'READY', n: 32 },
    ]);
  });

  targetTest('--dry-run parses and validates, and writes nothing', async ({ db }) => {
    const { loader } = await db.open();
    const file = writeTestFile(`${HEADER}\nA,1,2026-01-01,1,JPY\nB,x,2026-01-01,1,JPY\nA,1,2026-01-01,2,JPY\n`);
    const [result] = await loader.dryRun([file]);
    // B has a usable key: it would be staged (as ERROR), as `stage` does
    expect(result?.counts).toMatchObject({ read: 3, inserted: 2, duplicates: 1, rejected: 1 });
    expect(result?.samples).toEqual([{ lineNo: 3, code: 'PARSE_CUSTOMER_ID', message: 'customer_id is not an integer: "x"' }]);
    for (const table of ['order_stage', 'load_run', 'order_bulk_error']) {
      expect(await db.sql(`SELECT count(*) AS n FROM ${table}`), table).toEqual([{ n: 0 }]);
    }
  });

  targetTest('resumes a staging interrupted mid-file after its last checkpoint, without re-reading the committed part', async ({ db }) => {
    const rows = Array.from(
      { length: 25 },
      (_, i) => [`R-${String(i).padStart(2, '0')}`, '1', '2026-01-01', '1', 'JPY'] as [string, string, string, string, string],
    );
    const file = orderFile(rows);
    const { loader } = await db.open();
    const controller = new AbortController();
    const first = await loader.stage([file], { batchSize: 10, signal: controller.signal, onStageProgress: () => controller.abort() });
    expect(first.aborted).toContain('interrupted while staging');
    expect(first.exitCode).toBe(1);
    expect(await db.sql('SELECT count(*) AS n FROM order_stage')).toEqual([{ n: 10 }]);

    const second = await loader.load([file], { batchSize: 10 });
    expect(second.exitCode).toBe(0);
    expect(second.files[0]?.resumedAt).toEqual({
      line: 11,
      byte: Buffer.byteLength(`${HEADER}\n`) + rows.slice(0, 10).reduce((n, r) => n + Buffer.byteLength(`${r.join(',')}\n`), 0),
    });
    expect(second.files[0]?.loadId).toBe(first.files[0]?.loadId);
    expect(second.files[0]?.counts).toMatchObject({ read: 25, inserted: 25 });
    // the resumed run's checkpoints cover lines 12..26 only: 15 lines read, not 25
    const events = await db.sql<{ detail: string }>(
      "SELECT detail FROM load_run_event WHERE run_id = $1 AND event = 'staged_checkpoint' ORDER BY seq",
      [second.files[0]!.runId],
    );
    expect(events.map((e) => (JSON.parse(e.detail) as { lines?: number }).lines ?? 0).reduce((a, b) => a + b, 0)).toBe(15);
    expect(await db.sql("SELECT count(*) AS n FROM order_stage WHERE process_status = 'DONE'")).toEqual([{ n: 25 }]);
    // and a third load of the same file skips staging altogether
    expect((await loader.load([file])).files[0]?.skipped).toContain('already staged');
  });

  targetTest(
    'an interrupted Shift_JIS staging (no byte offsets) resumes its load after the lines it committed: no false duplicates',
    async ({ db }) => {
      const body = Array.from({ length: 25 }, (_, i) => `S-${String(i).padStart(2, '0')},1,2026-01-01,1,JPY`).join('\r\n');
      const file = writeTestFile(Buffer.from(`${HEADER}\r\n${body}\r\n`, 'latin1'));
      const { loader } = await db.open();
      const controller = new AbortController();
      const first = await loader.stage([file], {
        encoding: 'shift_jis',
        batchSize: 10,
        signal: controller.signal,
        onStageProgress: () => controller.abort(),
      });
      expect(first.aborted).toContain('interrupted while staging');
      const second = await loader.load([file], { encoding: 'shift_jis', batchSize: 10 });
      expect(second.exitCode).toBe(0);
      // read from line 1 (no byte offsets), the 10 lines of the committed batch passed over
      expect(second.files[0]?.loadId).toBe(first.files[0]?.loadId);
      expect(second.files[0]?.resumedAt).toEqual({ line: 11, byte: null });
      // the load's counts over both its runs: every line inserted once, none a duplicate of itself
      expect(second.files[0]?.counts).toMatchObject({ read: 25, inserted: 25, unchanged: 0, duplicates: 0 });
      expect(await db.sql('SELECT count(*) AS n FROM orders')).toEqual([{ n: 25 }]);
    },
  );

  targetTest('marks a RUNNING run whose process is gone FAILED (abandoned) at the next start', async ({ db }) => {
    await db.sql(`INSERT INTO load_run (command, host, pid) VALUES ('load', $1, 2147483646)`, [hostname()]);
    const { loader } = await db.open();
    // fromEngine does not migrate: the PGlite path opens through the same function as the CLI
    const { markAbandonedRuns } = await import('../../src/pipeline/operations.js');
    await markAbandonedRuns(loader.engine);
    expect(await db.sql('SELECT status, message FROM load_run')).toEqual([
      { status: 'FAILED', message: `abandoned: process 2147483646 on ${hostname()} is gone` },
    ]);
  });

  targetTest(
    "leaves a RUNNING run of another host RUNNING, its pid dead or not (another host's processes cannot be seen)",
    async ({ db }) => {
      await db.sql(`INSERT INTO load_run (command, host, pid) VALUES ('load', $1, 2147483646)`, [`not-${hostname()}`]);
      const { loader } = await db.open();
      const { markAbandonedRuns } = await import('../../src/pipeline/operations.js');
      // every pid reported gone: only the host can keep the run
      expect(await markAbandonedRuns(loader.engine, () => true)).toEqual([]);
      expect(await db.sql('SELECT status, message, finished_at FROM load_run')).toEqual([
        { status: 'RUNNING', message: null, finished_at: null },
      ]);
      expect(await db.sql("SELECT count(*) AS n FROM load_run_event WHERE event = 'failed'")).toEqual([{ n: 0 }]);
    },
  );

  targetTest.skipIf(target.kind === 'oracle')(
    'a transient row failure goes through RETRY_WAIT to DONE, and to ERROR after the maximum',
    async ({ db }) => {
      await injectTransientFailures(db, 'T-1');
      const { loader } = await db.open();
      const slow = { rowRetryBaseMs: 60_000, rowRetryMaxMs: 60_000 };
      // a real backoff: the load ends with the row waiting, and says until when
      const first = await loader.load(
        [
          orderFile([
            ['T-1', '1', '2026-01-01', '1', 'JPY'],
            ['T-2', '2', '2026-01-01', '2', 'JPY'],
          ]),
        ],
        slow,
      );
      expect(first.exitCode).toBe(2);
      expect(first.process).toMatchObject({ done: 1, retryWait: 1, error: 0 });
      expect(first.retryWait?.count).toBe(1);
      expect(first.retryWait?.nextDueAt?.getTime()).toBeGreaterThan(Date.now() + 20_000);
      const wait = await db.sql<{ process_status: string; attempt_count: number; next_attempt_at: Date; error_code: string }>(
        "SELECT process_status, attempt_count, next_attempt_at, error_code FROM order_stage WHERE source_key = 'T-1'",
      );
      expect(wait[0]).toMatchObject({ process_status: 'RETRY_WAIT', attempt_count: 1, error_code: '40P01' });
      expect((await loader.status()).retryWait.count).toBe(1);
      // not due: nothing to claim
      expect((await loader.process({})).process.claimed).toBe(0);
      const makeDue = () =>
        db.sql("UPDATE order_stage SET next_attempt_at = now() - interval '1 second' WHERE process_status = 'RETRY_WAIT'");
      await makeDue();
      expect((await loader.process(slow)).process).toMatchObject({ claimed: 1, retryWait: 1 });
      // the cause goes away: the third attempt succeeds
      await db.sql('DELETE FROM test_fail_keys');
      await makeDue();
      const third = await loader.process(slow);
      expect(third.exitCode).toBe(0);
      expect(await db.sql("SELECT process_status, attempt_count FROM order_stage WHERE source_key = 'T-1'")).toEqual([
        { process_status: 'DONE', attempt_count: 3 },
      ]);
      expect(await db.sql("SELECT attempt_no, error_code FROM order_bulk_error WHERE source_key = 'T-1' ORDER BY error_id")).toEqual([
        { attempt_no: 1, error_code: '40P01' },
        { attempt_no: 2, error_code: '40P01' },
      ]);
      expect(await db.sql("SELECT count(*) AS n FROM orders WHERE source_key = 'T-1'")).toEqual([{ n: 1 }]);

      // a key that keeps failing: ERROR after --max-attempts, every attempt logged
      await db.sql("INSERT INTO test_fail_keys VALUES ('T-9', '40001')");
      const last = await loader.load([orderFile([['T-9', '1', '2026-01-01', '1', 'JPY']])], {
        maxAttempts: 3,
        rowRetryBaseMs: 1,
        rowRetryMaxMs: 1,
      });
      expect(last.exitCode).toBe(2);
      expect(await db.sql("SELECT process_status, attempt_count, error_code FROM order_stage WHERE source_key = 'T-9'")).toEqual([
        { process_status: 'ERROR', attempt_count: 3, error_code: '40001' },
      ]);
      expect(await db.sql("SELECT attempt_no FROM order_bulk_error WHERE source_key = 'T-9' ORDER BY error_id")).toEqual([
        { attempt_no: 1 },
        { attempt_no: 2 },
        { attempt_no: 3 },
      ]);
    },
  );

  targetTest('a file skipped as already staged still exits 2 when staging had rejected some of its lines', async ({ db }) => {
    const { loader } = await db.open();
    const file = writeTestFile(`${HEADER}\nA,1,2026-01-01,1,JPY\nB,1,2026-01-01\n`);
    expect((await loader.load([file])).exitCode).toBe(2);
    const again = await loader.load([file]);
    expect(again.files[0]?.skipped).toContain('already staged');
    expect(again.files[0]?.counts.rejected).toBe(1);
    expect(again.exitCode).toBe(2);
  });

  targetTest.skipIf(target.kind === 'oracle')(
    "an error that is not a row's fault (privilege) fails the chunk instead of marking rows ERROR",
    async ({ db }) => {
      await injectTransientFailures(db, 'none');
      await db.sql("INSERT INTO test_fail_keys VALUES ('Q-2', '42501')");
      const { loader } = await db.open();
      const file = orderFile([
        ['Q-1', '1', '2026-01-01', '1', 'JPY'],
        ['Q-2', '2', '2026-01-01', '2', 'JPY'],
      ]);
      await expect(loader.load([file], { retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 } })).rejects.toThrow(/42501/);
      expect(await db.sql('SELECT process_status, count(*) AS n FROM order_stage GROUP BY process_status')).toEqual([
        { process_status: 'READY', n: 2 },
      ]);
      expect(await db.sql('SELECT count(*) AS n FROM orders')).toEqual([{ n: 0 }]);
      expect(await db.sql("SELECT count(*) AS n FROM order_bulk_error WHERE error_code = '42501'")).toEqual([{ n: 0 }]);
    },
  );

  targetTest('recover: PROCESSING rows left by a dead process go back to READY, audited', async ({ db }) => {
    const { loader } = await db.open();
    await loader.stage([
      orderFile([
        ['P-1', '1', '2026-01-01', '1', 'JPY'],
        ['P-2', '1', '2026-01-01', '1', 'JPY'],
      ]),
    ]);
    await db.sql("UPDATE order_stage SET process_status = 'PROCESSING', updated_at = now() - interval '1 hour' WHERE source_key = 'P-1'");
    await db.sql("UPDATE order_stage SET process_status = 'PROCESSING' WHERE source_key = 'P-2'"); // recent: left alone
    const report = await loader.recover({ olderThanMs: 15 * 60_000, operator, reason: 'night shift crash', dryRun: false });
    expect(report.changes.map((c) => c.sourceKey)).toEqual(['P-1']);
    expect(await db.sql('SELECT source_key, process_status FROM order_stage ORDER BY source_key')).toEqual([
      { source_key: 'P-1', process_status: 'READY' },
      { source_key: 'P-2', process_status: 'PROCESSING' },
    ]);
    expect(await db.sql('SELECT action, old_status, new_status, reason FROM order_stage_audit')).toEqual([
      { action: 'RECOVER', old_status: 'PROCESSING', new_status: 'READY', reason: 'night shift crash' },
    ]);
  });
});

const server = serverPgTarget();
describe.skipIf(unavailable(NEEDS.server))('recover on server PostgreSQL', () => {
  it('leaves a PROCESSING row alone while a live transaction holds it', async () => {
    const db = await server!.create();
    try {
      const { loader } = await db.open();
      await loader.stage([orderFile([['H-1', '1', '2026-01-01', '1', 'JPY']])]);
      await db.sql("UPDATE order_stage SET process_status = 'PROCESSING', updated_at = now() - interval '1 hour'");
      const pg = await import('pg');
      const holder = new pg.default.Client({ connectionString: db.url! });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query("SELECT 1 FROM order_stage WHERE source_key = 'H-1' FOR UPDATE");
        expect((await loader.recover({ olderThanMs: 60_000, operator, reason: 'r', dryRun: false })).changes).toEqual([]);
        await holder.query('ROLLBACK');
        expect((await loader.recover({ olderThanMs: 60_000, operator, reason: 'r', dryRun: false })).changes).toHaveLength(1);
      } finally {
        await holder.end();
      }
    } finally {
      await db.dispose();
    }
  });
});
