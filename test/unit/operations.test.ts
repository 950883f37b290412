/**
 * The operator's commands of src/pipeline/operations.ts over fake ports: `--set` corrections,
 * `retry` (its checks, its batches and keyset walk, its report, a rejected line's values, how it
 * stops), `recover`, and the abandoned-run sweep. No database: the ports keep rows in memory.
 * The same commands against PGlite and PostgreSQL: test/integration/operations.test.ts,
 * attempts-and-retry.test.ts, errors-export.test.ts; against Oracle's SQL:
 * test/oracle/operations.recording.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { HoldSetsTx, OperatorTx } from '../../src/engine/contract.js';
import type {
  FileLayout,
  KeysetWindow,
  LatestRawRecord,
  ManualChange,
  RowSelector,
  RunEventInput,
  RunRecord,
  StageRowSnapshot,
} from '../../src/engine/types.js';
import { RunAbortedError, UserError } from '../../src/errors.js';
import {
  checkRetryRequest,
  DEFAULT_RETRY_BATCH,
  defaultOperator,
  defaultRecoverReason,
  markAbandonedRuns,
  operatorOf,
  recoverAuditOf,
  recoverRows,
  REPORTED_CHANGES,
  retryRows,
  type RetryRequest,
} from '../../src/pipeline/operations.js';
import { parseCorrections } from '../../src/pipeline/corrections.js';
import type { AbandonedRunsPort, OperatorPort } from '../../src/pipeline/ports.js';

function stageRow(stageId: number, over: Partial<StageRowSnapshot> = {}): StageRowSnapshot {
  return {
    stageId,
    sourceKey: `K${stageId}`,
    customerId: '42',
    orderDate: '2024-04-01',
    amount: '1200.00',
    currency: 'JPY',
    status: 'ERROR',
    attemptCount: 3,
    loadId: 7,
    lineNo: stageId + 1,
    errorCode: '22003',
    errorMessage: 'numeric field overflow',
    updatedAt: new Date('2024-05-01T10:00:00Z'),
    ...over,
  };
}

const HEADER = ['source_key', 'customer_id', 'order_date', 'amount', 'currency'];

/** ERROR rows in memory; a transaction's changes are kept only when its function returns. */
class FakeOperator implements OperatorPort {
  readonly rows: StageRowSnapshot[];
  readonly locks: { selector: RowSelector; window: KeysetWindow }[] = [];
  readonly finds: { selector: RowSelector; window: KeysetWindow }[] = [];
  readonly applied: ManualChange[][] = [];
  readonly rawAsked: number[][] = [];
  readonly layoutsAsked: number[][] = [];
  readonly staleAsked: Date[] = [];
  raws = new Map<number, LatestRawRecord>();
  layouts = new Map<number, FileLayout>();
  stale: StageRowSnapshot[] = [];
  /** The HELD rows lockAbandonedHolds returns. */
  held: StageRowSnapshot[] = [];
  readonly heldAsked: Date[] = [];
  /** The loads whose hold sets a committed transaction ended (endHoldSets). */
  readonly setsEnded: number[][] = [];
  /** Throw in the n-th transaction (1-based). */
  failIn?: { txNo: number; error: unknown };
  txCount = 0;

  constructor(rows: StageRowSnapshot[]) {
    this.rows = rows;
  }

  private window(selector: RowSelector, window: KeysetWindow): StageRowSnapshot[] {
    return this.rows
      .filter((r) => r.status === 'ERROR' && r.stageId > window.afterStageId)
      .filter((r) => selector.stageIds === undefined || selector.stageIds.length === 0 || selector.stageIds.includes(r.stageId))
      .sort((a, b) => a.stageId - b.stageId)
      .slice(0, window.limit);
  }

  async transaction<T>(fn: (tx: OperatorTx & Pick<HoldSetsTx, 'endHoldSets'>) => Promise<T>): Promise<T> {
    const txNo = ++this.txCount;
    const changes: ManualChange[][] = [];
    const ended: number[][] = [];
    const tx: OperatorTx & Pick<HoldSetsTx, 'endHoldSets'> = {
      lockErrorRows: (selector, window) => {
        this.locks.push({ selector, window });
        return Promise.resolve(this.window(selector, window));
      },
      findErrorRows: (selector, window) => {
        this.finds.push({ selector, window });
        return Promise.resolve(this.window(selector, window));
      },
      lockStaleProcessing: (olderThan) => {
        this.staleAsked.push(olderThan);
        return Promise.resolve(this.stale);
      },
      lockAbandonedHolds: (olderThan) => {
        this.heldAsked.push(olderThan);
        return Promise.resolve(this.held);
      },
      // `accept` is tested against the databases (test/integration/control-totals.test.ts)
      controlHold: () => Promise.resolve(null),
      controlHeldErrors: () => Promise.resolve([]),
      lockControlHeld: () => Promise.resolve([]),
      applyManualChanges: (c) => {
        // an empty batch (the walk's last, empty step) writes nothing, as the engines do
        if (c.length > 0) changes.push(c);
        return Promise.resolve();
      },
      latestRawRecords: (ids) => {
        this.rawAsked.push(ids);
        return Promise.resolve(ids.flatMap((id) => this.raws.get(id) ?? []));
      },
      rowAttributes: (ids) => Promise.resolve(new Map(ids.map((id) => [id, null]))),
      endHoldSets: (loadIds) => {
        ended.push(loadIds);
        return Promise.resolve();
      },
      fileLayouts: (ids) => {
        this.layoutsAsked.push(ids);
        return Promise.resolve(
          new Map(ids.flatMap((id) => (this.layouts.has(id) ? [[id, this.layouts.get(id) as FileLayout] as const] : []))),
        );
      },
    };
    const result = await fn(tx);
    if (this.failIn?.txNo === txNo) throw this.failIn.error;
    this.setsEnded.push(...ended);
    for (const batch of changes) {
      this.applied.push(batch);
      for (const c of batch) {
        const row = this.rows.find((r) => r.stageId === c.stageId);
        if (row !== undefined) Object.assign(row, c.values, { status: c.newStatus });
      }
    }
    return result;
  }
}

function request(over: Partial<RetryRequest> = {}): RetryRequest {
  return { selector: { stageIds: [1] }, all: false, corrections: {}, reason: 'supplier resent', operator: 'alice', dryRun: false, ...over };
}

const errorRows = (n: number) => Array.from({ length: n }, (_, i) => stageRow(i + 1));

describe('parseCorrections (--set)', () => {
  it('reads each field with the rules of a file’s value (trimmed, canonical); the field name case-insensitive', () => {
    expect(parseCorrections(['amount=3500'])).toEqual({ amount: '3500' });
    expect(parseCorrections([' Amount = 5 '])).toEqual({ amount: '5' });
    expect(parseCorrections(['customer_id=007'])).toEqual({ customerId: '7' });
    expect(parseCorrections(['order_date=2024-02-29', 'currency=USD'])).toEqual({ orderDate: '2024-02-29', currency: 'USD' });
    expect(parseCorrections([])).toEqual({});
  });

  it('the last of two corrections of one field wins', () => {
    expect(parseCorrections(['currency=USD', 'currency=EUR'])).toEqual({ currency: 'EUR' });
  });

  it('the value is everything after the first =', () => {
    expect(() => parseCorrections(['amount=1=2'])).toThrow('--set amount: amount is not a decimal number: "1=2"');
  });

  it('refuses an assignment without =, a field that cannot be corrected, and a value that cannot be stored', () => {
    expect(() => parseCorrections(['amount'])).toThrow(new UserError('--set amount: expected field=value'));
    expect(() => parseCorrections(['source_key=X'])).toThrow(
      new UserError('--set source_key: only customer_id, order_date, amount, currency and attributes.NAME can be corrected'),
    );
    expect(() => parseCorrections(['order_date=2024-02-30'])).toThrow(
      new UserError('--set order_date: order_date is not a valid date (YYYY-MM-DD): "2024-02-30"'),
    );
    expect(() => parseCorrections(['amount=1e5'])).toThrow(UserError);
  });

  it('refuses a value that can be stored but breaks the field’s business rule, each field checked on its own', () => {
    expect(() => parseCorrections(['amount=-5'])).toThrow(new UserError('--set: amount must be zero or greater'));
    expect(() => parseCorrections(['currency=usd'])).toThrow(new UserError('--set: currency must be three upper-case letters'));
    expect(() => parseCorrections(['customer_id=0'])).toThrow(new UserError('--set: customer_id must be a positive integer'));
    expect(() => parseCorrections(['amount='])).toThrow(new UserError('--set: amount is missing'));
    // one valid field alone passes: the other fields of the probe are valid
    for (const one of ['customer_id=1', 'order_date=1900-01-01', 'amount=0', 'currency=ZZZ'])
      expect(() => parseCorrections([one])).not.toThrow();
  });
});

describe('operator and reason defaults', () => {
  it('operatorOf: the operator given, else (none or blank) the OS user at this host', () => {
    expect(operatorOf('bob')).toBe('bob');
    expect(operatorOf(' bob ')).toBe(' bob ');
    for (const none of [undefined, null, '', '   ']) expect(operatorOf(none)).toBe(defaultOperator());
    expect(defaultOperator()).toMatch(new RegExp(`^.+@${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  });

  it('recoverAuditOf: the reason given, else the default with the threshold in whole seconds', () => {
    expect(recoverAuditOf({ olderThanMs: 60_000, reason: 'stuck', operator: 'op', dryRun: false })).toEqual({
      operator: 'op',
      reason: 'stuck',
    });
    for (const reason of [undefined, '', '  ']) {
      expect(recoverAuditOf({ olderThanMs: 90_500, reason, dryRun: false })).toEqual({
        operator: defaultOperator(),
        reason:
          'recover: PROCESSING rows older than 91 s that no transaction holds, and HELD rows of loads no running run stages held that long',
      });
    }
    expect(defaultRecoverReason(89_400)).toBe(
      'recover: PROCESSING rows older than 89 s that no transaction holds, and HELD rows of loads no running run stages held that long',
    );
  });
});

describe('retry: the request', () => {
  it('needs a reason and a selection (or --all-errors); an empty list selects nothing', () => {
    expect(() => checkRetryRequest(request({ reason: '  ' }))).toThrow(
      new UserError('retry: --reason is required (it is recorded in the audit trail)'),
    );
    expect(() => checkRetryRequest(request({ reason: undefined as unknown as string }))).toThrow(/--reason is required/);
    const choose = 'retry: choose rows with --stage-id, --source-key, --error-code or --load-id, or say --all-errors';
    expect(() => checkRetryRequest(request({ selector: {} }))).toThrow(new UserError(choose));
    expect(() => checkRetryRequest(request({ selector: { stageIds: [], sourceKeys: [], errorCodes: [], loadIds: [] } }))).toThrow(choose);
    for (const selector of [{ stageIds: [1] }, { sourceKeys: ['K'] }, { errorCodes: ['22003'] }, { loadIds: [7] }]) {
      expect(() => checkRetryRequest(request({ selector }))).not.toThrow();
    }
    expect(() => checkRetryRequest(request({ selector: {}, all: true }))).not.toThrow();
  });

  it('a refused request touches nothing', async () => {
    const port = new FakeOperator(errorRows(2));
    await expect(retryRows(port, request({ reason: '' }))).rejects.toThrow(UserError);
    expect(port.txCount).toBe(0);
  });
});

describe('retry: batches', () => {
  it('ERROR → READY with the corrections, one audited change per row, in stage_id order', async () => {
    const port = new FakeOperator([stageRow(1), stageRow(2, { amount: '5.00' })]);
    const report = await retryRows(port, request({ selector: { stageIds: [1, 2] }, corrections: { amount: '3500' } }));
    expect(report.dryRun).toBe(false);
    expect(report.count).toBe(2);
    expect(report.changes).toEqual([
      {
        stageId: 1,
        sourceKey: 'K1',
        action: 'RETRY',
        oldStatus: 'ERROR',
        newStatus: 'READY',
        values: { customerId: '42', orderDate: '2024-04-01', amount: '3500', currency: 'JPY' },
        oldValues: JSON.stringify({ process_status: 'ERROR', amount: '1200.00' }),
        newValues: JSON.stringify({ process_status: 'READY', amount: '3500' }),
        operator: 'alice',
        reason: 'supplier resent',
      },
      expect.objectContaining({ stageId: 2, oldValues: JSON.stringify({ process_status: 'ERROR', amount: '5.00' }) }),
    ]);
    expect(port.applied).toEqual([report.changes]);
    expect(port.locks).toHaveLength(2);
    expect(port.finds).toEqual([]);
  });

  it('without corrections only the status is in the audit’s values; every field that changes is', async () => {
    const port = new FakeOperator([stageRow(1)]);
    const plain = await retryRows(port, request());
    expect(plain.changes[0]).toMatchObject({
      oldValues: '{"process_status":"ERROR"}',
      newValues: '{"process_status":"READY"}',
      values: { customerId: '42', orderDate: '2024-04-01', amount: '1200.00', currency: 'JPY' },
    });
    const all = new FakeOperator([stageRow(1)]);
    const corrected = await retryRows(
      all,
      request({ corrections: { customerId: '8', orderDate: '2025-01-02', amount: '1', currency: 'USD' } }),
    );
    expect(JSON.parse(corrected.changes[0]?.oldValues ?? '')).toEqual({
      process_status: 'ERROR',
      customer_id: '42',
      order_date: '2024-04-01',
      amount: '1200.00',
      currency: 'JPY',
    });
    expect(JSON.parse(corrected.changes[0]?.newValues ?? '')).toEqual({
      process_status: 'READY',
      customer_id: '8',
      order_date: '2025-01-02',
      amount: '1',
      currency: 'USD',
    });
  });

  it('walks the rows in batches of batchSize, each after the last of the previous one, until a batch is empty', async () => {
    const port = new FakeOperator(errorRows(5));
    const report = await retryRows(port, request({ selector: {}, all: true }), { batchSize: 2 });
    expect(port.locks.map((l) => l.window)).toEqual([
      { afterStageId: 0, limit: 2 },
      { afterStageId: 2, limit: 2 },
      { afterStageId: 4, limit: 2 },
      { afterStageId: 5, limit: 2 },
    ]);
    expect(port.applied.map((b) => b.map((c) => c.stageId))).toEqual([[1, 2], [3, 4], [5]]);
    expect(report.count).toBe(5);
    expect(report.changes.map((c) => c.stageId)).toEqual([1, 2, 3, 4, 5]);
    expect(port.txCount).toBe(4);
  });

  it('a phase: the walk goes on past batches none of whose rows is of it; only the rows of it are changed', async () => {
    const port = new FakeOperator(errorRows(5));
    for (const id of [1, 2, 3, 4, 5])
      port.raws.set(id, { stageId: id, loadId: 7, rawRecord: null, phase: id === 5 ? 'MERGE' : 'VALIDATE' });
    const report = await retryRows(port, request({ selector: {}, all: true, phase: 'MERGE' }), { batchSize: 2 });
    expect(port.locks.map((l) => l.window.afterStageId)).toEqual([0, 2, 4, 5]);
    expect(port.applied.map((b) => b.map((c) => c.stageId))).toEqual([[5]]);
    expect(report.count).toBe(1);
  });

  it('--all-errors ignores the selector; the batch size is a whole number of at least 1, 2000 by default', async () => {
    const port = new FakeOperator(errorRows(3));
    await retryRows(port, request({ selector: { stageIds: [2] }, all: true }), { batchSize: 2.7 });
    expect(port.locks[0]).toEqual({ selector: {}, window: { afterStageId: 0, limit: 2 } });
    const one = new FakeOperator(errorRows(2));
    await retryRows(one, request({ selector: { stageIds: [1, 2] } }), { batchSize: 0 });
    expect(one.locks.map((l) => l.window.limit)).toEqual([1, 1, 1]);
    expect(one.locks[0]?.selector).toEqual({ stageIds: [1, 2] });
    const dflt = new FakeOperator(errorRows(1));
    await retryRows(dflt, request());
    expect(dflt.locks[0]?.window.limit).toBe(DEFAULT_RETRY_BATCH);
    expect(DEFAULT_RETRY_BATCH).toBe(2000);
  });

  it('a dry run reads the same batches without locking or writing, and reports the same plan', async () => {
    const port = new FakeOperator(errorRows(3));
    const report = await retryRows(port, request({ selector: {}, all: true, dryRun: true, corrections: { currency: 'USD' } }), {
      batchSize: 2,
    });
    expect(port.locks).toEqual([]);
    expect(port.applied).toEqual([]);
    expect(port.finds.map((f) => f.window.afterStageId)).toEqual([0, 2, 3]);
    expect(report).toMatchObject({ dryRun: true, count: 3 });
    expect(report.changes.map((c) => c.values.currency)).toEqual(['USD', 'USD', 'USD']);
    expect(port.rows.every((r) => r.status === 'ERROR')).toBe(true);
  });

  it('the report lists the first REPORTED_CHANGES changes and counts them all', async () => {
    const port = new FakeOperator(errorRows(REPORTED_CHANGES + 7));
    const report = await retryRows(port, request({ selector: {}, all: true }), { batchSize: 600 });
    expect(report.count).toBe(REPORTED_CHANGES + 7);
    expect(report.changes).toHaveLength(REPORTED_CHANGES);
    expect(report.changes.at(-1)?.stageId).toBe(REPORTED_CHANGES);
  });

  it('the operator defaults to the OS user when none is given', async () => {
    const port = new FakeOperator(errorRows(1));
    const report = await retryRows(port, request({ operator: ' ' }));
    expect(report.changes[0]?.operator).toBe(defaultOperator());
  });
});

describe('retry: stops', () => {
  it('interrupted between batches: the committed batches stay, the message counts them', async () => {
    const port = new FakeOperator(errorRows(5));
    const controller = new AbortController();
    const original = port.transaction.bind(port);
    port.transaction = async <T>(fn: (tx: OperatorTx & Pick<HoldSetsTx, 'endHoldSets'>) => Promise<T>) => {
      const result = await original(fn);
      controller.abort();
      return result;
    };
    const error = await retryRows(port, request({ selector: {}, all: true }), { batchSize: 2, signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RunAbortedError);
    expect((error as RunAbortedError).reason).toBe('interrupted');
    expect((error as RunAbortedError).message).toBe(
      'retry interrupted: 2 row(s) changed, committed and audited; run the same command again for the rest',
    );
    expect(port.applied).toHaveLength(1);
  });

  it('interrupted dry run says planned; aborted before the first batch, nothing is read', async () => {
    const controller = new AbortController();
    controller.abort();
    const port = new FakeOperator(errorRows(2));
    await expect(retryRows(port, request({ dryRun: true }), { signal: controller.signal })).rejects.toThrow(
      'retry interrupted: 0 row(s) planned; run the same command again for the rest',
    );
    expect(port.txCount).toBe(0);
  });

  it('a failure in the first batch is thrown as it is', async () => {
    const port = new FakeOperator(errorRows(2));
    const cause = new Error('connection reset');
    port.failIn = { txNo: 1, error: cause };
    await expect(retryRows(port, request({ selector: {}, all: true }))).rejects.toBe(cause);
  });

  it('a database failure after committed batches: fatal, saying how many rows were changed, keeping the cause', async () => {
    const port = new FakeOperator(errorRows(5));
    const cause = new Error('connection reset');
    port.failIn = { txNo: 2, error: cause };
    const error = await retryRows(port, request({ selector: {}, all: true }), { batchSize: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunAbortedError);
    expect((error as RunAbortedError).reason).toBe('fatal');
    expect((error as RunAbortedError).cause).toBe(cause);
    expect((error as RunAbortedError).message).toMatch(
      /^retry stopped after 2 row\(s\) changed, committed and audited: .*connection reset.*; run the same command again for the rest$/,
    );
    expect(port.applied).toHaveLength(1);
    const dry = new FakeOperator(errorRows(5));
    dry.failIn = { txNo: 2, error: cause };
    await expect(retryRows(dry, request({ selector: {}, all: true, dryRun: true }), { batchSize: 2 })).rejects.toThrow(
      /^retry stopped after 2 row\(s\) planned: /,
    );
  });

  it('a user error after committed batches stays a user error and says what the earlier batches did', async () => {
    const port = new FakeOperator(errorRows(5));
    const cause = new UserError('bad row');
    port.failIn = { txNo: 2, error: cause };
    const error = await retryRows(port, request({ selector: {}, all: true }), { batchSize: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).message).toBe('bad row; 2 row(s) of earlier batches were changed, committed and audited');
    expect((error as UserError).cause).toBe(cause);
    const dry = new FakeOperator(errorRows(5));
    dry.failIn = { txNo: 2, error: cause };
    await expect(retryRows(dry, request({ selector: {}, all: true, dryRun: true }), { batchSize: 2 })).rejects.toThrow(
      'bad row; 2 row(s) of earlier batches were planned',
    );
  });
});

describe('retry: a row whose line was rejected while parsing', () => {
  const parseRow = (stageId: number, over: Partial<StageRowSnapshot> = {}) =>
    stageRow(stageId, {
      customerId: null,
      orderDate: null,
      amount: null,
      currency: null,
      errorCode: 'PARSE_AMOUNT',
      errorMessage: 'amount is not a decimal number',
      ...over,
    });

  it('starts from the values of its logged line, split by its file’s header; the corrections replace some', async () => {
    const port = new FakeOperator([parseRow(1), stageRow(2)]);
    port.raws.set(1, { stageId: 1, loadId: 7, rawRecord: 'K1;8;2025-01-02;abc;USD' });
    port.layouts.set(7, { header: HEADER, delimiter: ';' });
    const report = await retryRows(port, request({ selector: { stageIds: [1, 2] }, corrections: { amount: '10' } }));
    expect(port.rawAsked).toEqual([[1]]);
    expect(port.layoutsAsked).toEqual([[7]]);
    expect(report.changes.map((c) => c.values)).toEqual([
      { customerId: '8', orderDate: '2025-01-02', amount: '10', currency: 'USD' },
      { customerId: '42', orderDate: '2024-04-01', amount: '10', currency: 'JPY' },
    ]);
    expect(JSON.parse(report.changes[0]?.oldValues ?? '')).toEqual({
      process_status: 'ERROR',
      customer_id: null,
      order_date: null,
      amount: null,
      currency: null,
    });
  });

  it('its line’s values are read with the rules of a file’s values (trimmed, canonical)', async () => {
    const port = new FakeOperator([parseRow(1)]);
    port.raws.set(1, { stageId: 1, loadId: 7, rawRecord: 'K1, 008 ,2025-01-02, 12.5 ,USD' });
    port.layouts.set(7, { header: HEADER, delimiter: ',' });
    const report = await retryRows(port, request());
    expect(report.changes[0]?.values).toEqual({ customerId: '8', orderDate: '2025-01-02', amount: '12.5', currency: 'USD' });
  });

  it('no other query when no row of the batch was rejected while parsing', async () => {
    const port = new FakeOperator([stageRow(1, { errorCode: 'VALIDATE_AMOUNT' }), stageRow(2, { errorCode: null })]);
    await retryRows(port, request({ selector: { stageIds: [1, 2] } }));
    expect(port.rawAsked).toEqual([]);
    expect(port.layoutsAsked).toEqual([]);
  });

  it('each load’s layout asked once; rows of several loads each split by their own', async () => {
    const port = new FakeOperator([parseRow(1), parseRow(2, { loadId: 8 }), parseRow(3)]);
    port.raws.set(1, { stageId: 1, loadId: 7, rawRecord: 'K1,1,2025-01-01,1,USD' });
    port.raws.set(2, { stageId: 2, loadId: 8, rawRecord: '2|2025-01-02|2|EUR|K2' });
    port.raws.set(3, { stageId: 3, loadId: 7, rawRecord: 'K3,3,2025-01-03,3,GBP' });
    port.layouts.set(7, { header: HEADER, delimiter: ',' });
    port.layouts.set(8, { header: ['customer_id', 'order_date', 'amount', 'currency', 'source_key'], delimiter: '|' });
    const report = await retryRows(port, request({ selector: {}, all: true }));
    expect(port.layoutsAsked).toEqual([[7, 8]]);
    expect(report.changes.map((c) => [c.values.customerId, c.values.currency])).toEqual([
      ['1', 'USD'],
      ['2', 'EUR'],
      ['3', 'GBP'],
    ]);
  });

  it('without a logged line, an empty one, or its file’s layout: the stage’s values', async () => {
    const port = new FakeOperator([parseRow(1), parseRow(2), parseRow(3), parseRow(4, { loadId: null })]);
    port.raws.set(2, { stageId: 2, loadId: 7, rawRecord: '' });
    port.raws.set(3, { stageId: 3, loadId: 9, rawRecord: 'K3,3,2025-01-03,3,GBP' });
    port.raws.set(4, { stageId: 4, loadId: null, rawRecord: 'K4,4,2025-01-04,4,GBP' });
    port.layouts.set(7, { header: HEADER, delimiter: ',' });
    const report = await retryRows(port, request({ selector: {}, all: true, corrections: { amount: '1' } }));
    expect(port.layoutsAsked).toEqual([[7, 9]]);
    expect(report.changes.map((c) => c.values)).toEqual(
      [1, 2, 3, 4].map(() => ({ customerId: null, orderDate: null, amount: '1', currency: null })),
    );
  });

  it('a value of its line that still cannot be read and is not corrected refuses the retry; nothing is changed', async () => {
    const port = new FakeOperator([parseRow(1)]);
    port.raws.set(1, { stageId: 1, loadId: 7, rawRecord: 'K1,8,2025-01-02,abc,USD' });
    port.layouts.set(7, { header: HEADER, delimiter: ',' });
    await expect(retryRows(port, request())).rejects.toThrow(
      new UserError(
        'retry: a row\'s line still has a value that cannot be read; correct it with --set or leave the row out (its batch was not changed): stage_id 1 (K1): amount is not a decimal number: "abc"',
      ),
    );
    expect(port.applied).toEqual([]);
    // corrected: the retry goes through
    const corrected = await retryRows(port, request({ corrections: { amount: '3' } }));
    expect(corrected.changes[0]?.values).toEqual({ customerId: '8', orderDate: '2025-01-02', amount: '3', currency: 'USD' });
  });

  it('the refusal names five problems and counts the rest', async () => {
    const rows = [1, 2, 3, 4].map((id) => parseRow(id));
    const port = new FakeOperator(rows);
    for (const id of [1, 2, 3, 4]) port.raws.set(id, { stageId: id, loadId: 7, rawRecord: `K${id},x,2025-01-02,y,USD` });
    port.layouts.set(7, { header: HEADER, delimiter: ',' });
    const error = await retryRows(port, request({ selector: {}, all: true })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserError);
    const message = (error as UserError).message;
    expect(message.split(': stage_id')).toHaveLength(2);
    expect(message.match(/stage_id \d/g)).toHaveLength(5);
    expect(message).toMatch(/; and 3 more$/);
    const few = new FakeOperator([parseRow(1), parseRow(2)]);
    for (const id of [1, 2]) few.raws.set(id, { stageId: id, loadId: 7, rawRecord: `K${id},1,2025-01-02,y,USD` });
    few.layouts.set(7, { header: HEADER, delimiter: ',' });
    const fewError = await retryRows(few, request({ selector: {}, all: true })).catch((e: unknown) => e);
    expect((fewError as UserError).message).toMatch(/stage_id 1 \(K1\): [^;]+; stage_id 2 \(K2\): [^;]+$/);
    // exactly five: all named, nothing more to count
    const five = new FakeOperator([1, 2, 3, 4, 5].map((id) => parseRow(id)));
    for (const id of [1, 2, 3, 4, 5]) five.raws.set(id, { stageId: id, loadId: 7, rawRecord: `K${id},1,2025-01-02,y,USD` });
    five.layouts.set(7, { header: HEADER, delimiter: ',' });
    const fiveError = await retryRows(five, request({ selector: {}, all: true })).catch((e: unknown) => e);
    expect((fiveError as UserError).message.match(/stage_id \d/g)).toHaveLength(5);
    expect((fiveError as UserError).message).not.toMatch(/more$/);
  });
});

describe('recover', () => {
  it('stale PROCESSING rows and abandoned HELD rows → READY, both audited as RECOVER with their values unchanged, in stage_id order', async () => {
    const port = new FakeOperator([]);
    port.stale = [stageRow(4, { status: 'PROCESSING' })];
    port.held = [stageRow(2, { status: 'HELD', loadId: 7 }), stageRow(9, { status: 'HELD', loadId: 7 })];
    const before = Date.now();
    const report = await recoverRows(port, { olderThanMs: 600_000, operator: 'op', reason: 'stuck', dryRun: false }, () =>
      Promise.resolve([]),
    );
    const after = Date.now();
    for (const asked of [port.staleAsked[0], port.heldAsked[0]]) {
      // one cutoff for both: --older-than applies to HELD rows as to PROCESSING rows
      expect(asked?.getTime()).toBeGreaterThanOrEqual(before - 600_000);
      expect(asked?.getTime()).toBeLessThanOrEqual(after - 600_000);
    }
    expect(report.count).toBe(3);
    expect(report.released).toBe(2);
    expect(report.heldKept).toBeUndefined();
    expect(report.changes.map((c) => [c.stageId, c.oldStatus, c.newStatus, c.action, c.oldValues, c.newValues])).toEqual([
      [2, 'HELD', 'READY', 'RECOVER', '{"process_status":"HELD"}', '{"process_status":"READY"}'],
      [4, 'PROCESSING', 'READY', 'RECOVER', '{"process_status":"PROCESSING"}', '{"process_status":"READY"}'],
      [9, 'HELD', 'READY', 'RECOVER', '{"process_status":"HELD"}', '{"process_status":"READY"}'],
    ]);
    expect(report.changes[0]).toMatchObject({ operator: 'op', reason: 'stuck', values: { amount: '1200.00' } });
    expect(port.applied).toEqual([report.changes]);
    // given up: the sets that held load 7 wait on it no more, in the same transaction
    expect(port.setsEnded).toEqual([[7]]);
  });

  it('nothing released: no `released` in the report', async () => {
    const port = new FakeOperator([]);
    const report = await recoverRows(port, { olderThanMs: 1000, dryRun: false });
    expect(report).toEqual({ dryRun: false, count: 0, changes: [] });
  });

  it('a dry run plans the same changes and writes nothing; the HELD rows it would not release are reported by load', async () => {
    const port = new FakeOperator([]);
    port.stale = [stageRow(4, { status: 'PROCESSING' })];
    port.held = [stageRow(2, { status: 'HELD', loadId: 7 })];
    const since = new Date('2026-01-01T00:00:00Z');
    const report = await recoverRows(port, { olderThanMs: 1000, dryRun: true }, () =>
      Promise.resolve([
        { loadId: 7, rows: 1, heldSince: since, fileName: 'a.csv', staging: false },
        { loadId: 8, rows: 5, heldSince: since, fileName: 'b.csv', staging: false },
        { loadId: 9, rows: 2, heldSince: since, fileName: 'c.csv', staging: true },
      ]),
    );
    expect(report).toMatchObject({ dryRun: true, count: 2, released: 1 });
    expect(report.changes[0]).toMatchObject({ action: 'RECOVER', reason: defaultRecoverReason(1000), operator: defaultOperator() });
    expect(report.heldKept).toEqual([
      { loadId: 8, rows: 5, heldSince: since, fileName: 'b.csv', staging: false, why: 'younger' },
      { loadId: 9, rows: 2, heldSince: since, fileName: 'c.csv', staging: true, why: 'staging' },
    ]);
    expect(port.applied).toEqual([]);
    expect(port.setsEnded).toEqual([]);
  });
});

describe('markAbandonedRuns', () => {
  function run(runId: number, over: Partial<RunRecord> = {}): RunRecord {
    return {
      runId,
      command: 'load',
      fileName: null,
      fileSize: null,
      fileSha256: null,
      host: hostname(),
      pid: 1_000_000 + runId,
      status: 'RUNNING',
      startedAt: new Date(0),
      finishedAt: null,
      counts: { staged: 5 },
      message: null,
      ...over,
    };
  }

  class FakeRuns implements AbandonedRunsPort {
    readonly events: [number, RunEventInput][] = [];
    readonly finished: [number, string, unknown, string | null][] = [];
    readonly order: string[] = [];
    constructor(readonly runs: RunRecord[]) {}
    runningRuns() {
      return Promise.resolve(this.runs);
    }
    async transaction<T>(fn: (tx: { addRunEvent(runId: number, event: RunEventInput): Promise<void> }) => Promise<T>): Promise<T> {
      return fn({
        addRunEvent: (runId, event) => {
          this.events.push([runId, event]);
          this.order.push(`event ${runId}`);
          return Promise.resolve();
        },
      });
    }
    finishRun(runId: number, status: RunRecord['status'], counts: unknown, message: string | null) {
      this.finished.push([runId, status, counts, message]);
      this.order.push(`finish ${runId}`);
      return Promise.resolve();
    }
  }

  it('a RUNNING run of this host whose process is gone is FAILED as abandoned, with an event first; its counts kept', async () => {
    const port = new FakeRuns([run(1), run(2, { counts: null })]);
    const gone = await markAbandonedRuns(port, () => true);
    expect(gone).toEqual([1, 2]);
    const reason = (pid: number) => `abandoned: process ${pid} on ${hostname()} is gone`;
    expect(port.events).toEqual([
      [1, { event: 'failed', detail: { reason: reason(1_000_001) } }],
      [2, { event: 'failed', detail: { reason: reason(1_000_002) } }],
    ]);
    expect(port.finished).toEqual([
      [1, 'FAILED', { staged: 5 }, reason(1_000_001)],
      [2, 'FAILED', {}, reason(1_000_002)],
    ]);
    expect(port.order).toEqual(['event 1', 'finish 1', 'event 2', 'finish 2']);
  });

  it('left alone: another host’s run, this process’s own run, a run whose process lives', async () => {
    const asked: number[] = [];
    const port = new FakeRuns([run(1, { host: `not-${hostname()}` }), run(2, { pid: process.pid }), run(3), run(4)]);
    const gone = await markAbandonedRuns(port, (pid) => {
      asked.push(pid);
      return pid === 1_000_004;
    });
    expect(gone).toEqual([4]);
    expect(asked).toEqual([1_000_003, 1_000_004]);
    expect(port.finished.map((f) => f[0])).toEqual([4]);
  });

  it('by default a process is gone when signalling it says it does not exist (not when it is only not ours)', async () => {
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(child.stdout);
    expect(deadPid).toBeGreaterThan(0);
    const port = new FakeRuns([run(1, { pid: deadPid }), run(2, { pid: 1 })]);
    expect(await markAbandonedRuns(port)).toEqual([1]);
  });
});
