import type { StagingTx } from '../contract.js';
import { pgHoldsFileClaim } from './file-claims.js';
import type { ErrorLogInput, StageBatchCounts, StageBatchResult, StageInput, StageRefusal, StageSettle } from '../types.js';
import { classifySqlstate, isRowLevelSqlstate, sqlstateOf } from './classify.js';
import { sqlQuery } from './rows.js';
import type { PgSession } from './session.js';
import { addStageCounts } from '../stage-counts.js';
import { copyText, settledCopyText, settleGuess } from './copy-text.js';

/** The savepoint a staging batch runs under, so that a row-level refusal can be isolated. */
const SAVEPOINT = 'order_loader_stage';

type CopyFrom = NonNullable<PgSession['copyFrom']>;

/**
 * A row's own refusal: a row-level SQLSTATE (the list the chunk MERGE isolates,
 * ROW_LEVEL_SQLSTATES) that is not transient. A transient one (a deadlock, a lock timeout, a
 * concurrent insert of the same key) or any other error fails the whole batch: retried or fatal.
 */
function rowRefusalCode(error: unknown): string | undefined {
  const code = sqlstateOf(error);
  if (code === undefined || !/^[0-9A-Z]{5}$/.test(code)) return undefined;
  return isRowLevelSqlstate(code) && classifySqlstate(code) === 'rejected' ? code : undefined;
}

/** The first line of the server's message with quoted text blanked (PostgreSQL quotes the
 * offending input in some messages, 22P02, and an error-log message never carries a value),
 * then the constraint's name when the server gives it (a name, not a value). */
function refusalMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = (message.split('\n')[0] ?? '').replace(/"[^"]*"/g, '"…"').replace(/'[^']*'/g, "'…'");
  const constraint = (error as { constraint?: unknown }).constraint;
  return typeof constraint === 'string' && constraint !== '' ? `${line} (constraint ${constraint})` : line;
}

/**
 * When a batch is first tried as a COPY. Every batch is, until one gives way (a key already
 * staged: a reload, a correction file; or a refused value): then the next `backoff` batches go
 * to the function directly, `backoff` doubling at each further failure (1, 2, 4 … 64) and halving
 * at each COPY that goes through. A failed COPY costs at most about the COPY of the batch, a
 * successful one saves about as much, so COPY is worth trying while about half the tries go
 * through; a reload of a whole known file costs a failed COPY (of its first row) about once in
 * 64 batches. One policy per engine, shared by its connections.
 */
export class StageCopyPolicy {
  private readonly copy = new Backoff();
  // The same rule for settling a batch while staging (stageSettled): a batch whose check or
  // MERGE refused it is staged a second time, so after one the next batches are staged without
  // settling, 1, 2, 4 … 64 of them, halving at each batch settled.
  private readonly settle = new Backoff();
  constructor(readonly enabled: boolean) {}
  /** Whether this batch goes as a COPY first (counts the skipped ones). */
  tryCopy(): boolean {
    return this.enabled && this.copy.tryNow();
  }
  copied(): void {
    this.copy.wentThrough();
  }
  gaveWay(): void {
    this.copy.gaveWay();
  }
  /** Whether this batch is tried settled (counts the skipped ones). */
  trySettle(): boolean {
    return this.settle.tryNow();
  }
  settled(): void {
    this.settle.wentThrough();
  }
  settleRefused(): void {
    this.settle.gaveWay();
  }
}

/** Skip the next 1, 2, 4 … 64 tries after each try that gave way, halving at each that went through. */
class Backoff {
  private skipNext = 0;
  private backoff = 0;
  /** Whether to try now (a skipped try is counted). */
  tryNow(): boolean {
    if (this.skipNext > 0) {
      this.skipNext--;
      return false;
    }
    return true;
  }
  wentThrough(): void {
    this.backoff = Math.floor(this.backoff / 2);
  }
  gaveWay(): void {
    this.backoff = Math.min(Math.max(1, this.backoff * 2), 64);
    this.skipNext = this.backoff;
  }
}

/**
 * Why a COPY of a batch is given up for the function: a key already staged (23505: the function
 * updates it, or counts it unchanged) or a value refused (a row-level SQLSTATE that is not
 * transient, as the function's isolation refuses it: the function's bisection finds the row).
 * Anything else (a lost connection, a deadlock, a lock timeout) fails the batch as the function's
 * call would: retried or fatal.
 */
function copyFallbackCode(error: unknown): string | undefined {
  const code = sqlstateOf(error);
  return code === '23505' ? code : rowRefusalCode(error);
}

/**
 * stage_copy.sql without its comment lines: the statement alone is what pg_stat_activity shows
 * (its first 1024 bytes, track_activity_query_size), and what a DBA looking for it will search.
 */
const copySql = new Map<string, string>();
function copyStatement(name: 'stage_copy' | 'stage_copy_settled' = 'stage_copy'): string {
  let text = copySql.get(name);
  if (text === undefined) {
    text = sqlQuery(name)
      .replace(/^\s*--.*(\n|$)/gm, '')
      .trim();
    copySql.set(name, text);
  }
  return text;
}

/**
 * Staging on one connection: each batch is one call of order_loader_stage_batch, column arrays
 * bound, under a savepoint. When the database refuses a row of it (a row-level SQLSTATE, e.g.
 * 22003 numeric overflow, a check constraint), the batch is rolled back to the savepoint and
 * staged again in halves, each under its own savepoint, down to the rows that fail alone: those
 * are returned as refused, the rest is staged (in line order, as one call would have). k bad
 * rows among n cost about k·log2(n) extra calls; a batch without one costs one SAVEPOINT.
 */
export function stagingSlice(session: PgSession, copyPolicy?: StageCopyPolicy): StagingTx {
  /**
   * The batch as one COPY straight into order_stage under the savepoint, when every key is new
   * (the common case: a first load); true when it went in. On a key already staged or a refused
   * value it is rolled back to the savepoint (nothing of it stays) and false is returned.
   * Measured (bench/stage-cpu.ts, 300,000 rows): server CPU 5.5 µs a row against the function's
   * 8.9 (bench/RESULTS.md, run 13).
   */
  async function stageByCopy(loadId: number, rows: StageInput[], out: StageBatchResult): Promise<boolean> {
    const copyFrom = session.copyFrom?.bind(session);
    if (copyFrom === undefined || copyPolicy === undefined) return false;
    const gaveWayOn = await copyUnderSavepoint(copyFrom, copyStatement(), copyText(loadId, rows));
    if (gaveWayOn !== undefined) {
      out.copyGaveWayOn = gaveWayOn;
      copyPolicy.gaveWay();
      return false;
    }
    await session.exec(`RELEASE SAVEPOINT ${SAVEPOINT}`);
    copyPolicy.copied();
    return true;
  }

  /**
   * The savepoint, then the COPY under it: undefined when the COPY went in (the savepoint still
   * open, for the caller to release or to go on under); the SQLSTATE when it gave way
   * (copyFallbackCode: rolled back to the savepoint and released, nothing of it stays). Any other
   * error is thrown.
   */
  async function copyUnderSavepoint(copyFrom: CopyFrom, statement: string, text: string): Promise<string | undefined> {
    await session.exec(`SAVEPOINT ${SAVEPOINT}`);
    try {
      await copyFrom(statement, text);
      return undefined;
    } catch (error) {
      const code = copyFallbackCode(error);
      if (code === undefined) throw error;
      await rollbackToSavepoint();
      return code;
    }
  }

  async function rollbackToSavepoint(): Promise<void> {
    await session.exec(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}; RELEASE SAVEPOINT ${SAVEPOINT}`);
  }

  /**
   * A `load` (PGlite or server): the batch as one COPY straight into order_stage (every key new), with the
   * rows settleGuess expects processing to merge written DONE, then checked and merged by
   * order_loader_settle_staged in the same savepoint (migration 015): the rows merged; `'none'`
   * when no row is expected merged (nothing tried); `'refused'` when the check refused a row or
   * the database a value (nothing of the try stays: the batch is staged as before); `'staged-key'`
   * when a key was staged already (23505: the batch goes to the function, as a COPY that gives
   * way does).
   */
  async function stageSettled(
    loadId: number,
    rows: StageInput[],
    settle: StageSettle,
    out: StageBatchResult,
  ): Promise<number | 'none' | 'refused' | 'staged-key'> {
    const copyFrom = session.copyFrom?.bind(session);
    if (copyFrom === undefined) return 'none';
    const marks = rows.map((r) => settleGuess(r) && settle.except?.has(r.sourceKey) !== true);
    const expected = marks.reduce((n, m) => (m ? n + 1 : n), 0);
    if (expected === 0) return 'none';
    const { rows: started } = await session.query<{ after: number; now: string }>(sqlQuery('settle_start'));
    const start = started[0];
    if (start === undefined) throw new Error('settle_start returned no row');
    const text = settledCopyText(loadId, rows, marks, settle.batchId, start.now);
    const gaveWayOn = await copyUnderSavepoint(copyFrom, copyStatement('stage_copy_settled'), text);
    if (gaveWayOn !== undefined) {
      out.settleGaveWayOn = gaveWayOn;
      return gaveWayOn === '23505' ? 'staged-key' : 'refused';
    }
    let settled: number;
    try {
      const { rows: result } = await session.query<{ settled: number }>(sqlQuery('settle_staged'), [start.after, loadId, expected]);
      settled = result[0]?.settled ?? -1;
      if (settled !== expected) out.settleGaveWayOn = 'check';
    } catch (error) {
      // Whatever the MERGE met (a row refused, a transient conflict, a missing privilege, a lock
      // timeout): it is processing's to meet, with its own rules (RETRY_WAIT, ERROR, a failed
      // chunk). The batch is staged as before, and the SQLSTATE said (stage.ts logs it); an error
      // that is not the MERGE's (a lost connection) fails that again, as it would have.
      out.settleGaveWayOn = sqlstateOf(error) ?? 'error';
      settled = -1;
    }
    if (settled !== expected) {
      await rollbackToSavepoint();
      return 'refused';
    }
    await session.exec(`RELEASE SAVEPOINT ${SAVEPOINT}`);
    return settled;
  }

  async function stageRows(loadId: number, rows: StageInput[]): Promise<StageBatchCounts> {
    const { rows: result } = await session.query<{
      inserted: number;
      updated: number;
      unchanged: number;
      unchanged_error: number;
      repeated_in_load: number;
    }>(sqlQuery('stage_batch'), [
      rows.map((r) => r.sourceKey),
      rows.map((r) => r.customerId),
      rows.map((r) => r.orderDate),
      rows.map((r) => r.amount),
      rows.map((r) => r.currency),
      rows.map((r) => r.lineNo),
      rows.map((r) => r.parseError?.code ?? null),
      rows.map((r) => r.parseError?.message ?? null),
      rows.map((r) => r.attributes ?? null),
      loadId,
    ]);
    const counts = result[0];
    if (counts === undefined) throw new Error('stage batch returned no counts');
    return {
      inserted: counts.inserted,
      updated: counts.updated,
      unchanged: counts.unchanged,
      unchangedError: counts.unchanged_error,
      repeatedInLoad: counts.repeated_in_load,
    };
  }

  /** Stage `rows` under a savepoint; on a row's refusal roll back to it and split. */
  async function stageIsolating(loadId: number, rows: StageInput[], out: StageBatchResult, release: boolean): Promise<void> {
    await session.exec(`SAVEPOINT ${SAVEPOINT}`);
    let counts: StageBatchCounts;
    try {
      counts = await stageRows(loadId, rows);
    } catch (error) {
      const code = rowRefusalCode(error);
      if (code === undefined) throw error;
      await rollbackToSavepoint();
      const only = rows.length === 1 ? rows[0] : undefined;
      if (only !== undefined) {
        out.refused.push({ lineNo: only.lineNo, sourceKey: only.sourceKey, code, message: refusalMessage(error) });
        return;
      }
      const middle = Math.ceil(rows.length / 2);
      await stageIsolating(loadId, rows.slice(0, middle), out, true); // the first half first: line order
      await stageIsolating(loadId, rows.slice(middle), out, true);
      return;
    }
    addStageCounts(out, counts);
    // the batch's own savepoint ends with the transaction; those of the halves are released
    // at once, so that a long isolation does not pile up subtransactions
    if (release) await session.exec(`RELEASE SAVEPOINT ${SAVEPOINT}`);
  }

  return {
    async stageBatch(loadId: number, rows: StageInput[], settle?: StageSettle): Promise<StageBatchResult> {
      const out: StageBatchResult = { inserted: 0, updated: 0, unchanged: 0, unchangedError: 0, repeatedInLoad: 0, refused: [] };
      let copy = rows.length > 0 && copyPolicy?.tryCopy() === true;
      if (copy && settle !== undefined && copyPolicy?.trySettle() === true) {
        const settled = await stageSettled(loadId, rows, settle, out);
        if (typeof settled === 'number') {
          copyPolicy.copied();
          copyPolicy.settled();
          out.inserted = rows.length; // every key was new: the COPY inserted each
          out.settled = settled;
          out.by = 'copy';
          return out;
        }
        if (settled === 'staged-key') {
          out.copyGaveWayOn = '23505';
          copyPolicy.gaveWay();
          copy = false;
        } else if (settled === 'refused') {
          copyPolicy.settleRefused();
        }
      }
      if (copy && (await stageByCopy(loadId, rows, out))) {
        out.inserted = rows.length; // every key was new: the COPY inserted each
        out.by = 'copy';
        return out;
      }
      await stageIsolating(loadId, rows, out, false);
      out.by = 'function';
      out.refused.sort((a: StageRefusal, b: StageRefusal) => a.lineNo - b.lineNo);
      return out;
    },

    async logErrors(rows: ErrorLogInput[]): Promise<void> {
      if (rows.length === 0) return;
      await session.query(sqlQuery('log_errors'), [
        rows.map((r) => r.stageId),
        rows.map((r) => r.sourceKey),
        rows.map((r) => r.loadId),
        rows.map((r) => r.lineNo),
        rows.map((r) => r.batchId),
        rows.map((r) => r.attemptNo),
        rows.map((r) => r.phase),
        rows.map((r) => r.code),
        rows.map((r) => r.message),
        rows.map((r) => r.rawRecord),
        rows.map((r) => r.keyOnly !== true),
      ]);
    },

    async holdRows(loadId: number, sourceKeys: string[]): Promise<void> {
      if (sourceKeys.length === 0) return;
      await session.query(sqlQuery('hold_rows'), [sourceKeys, loadId]);
    },

    async laterLoadKeys(loadId: number, sourceKeys: string[], except: number[] = []): Promise<string[]> {
      if (sourceKeys.length === 0) return [];
      const { rows } = await session.query<{ source_key: string }>(sqlQuery('later_load_keys'), [sourceKeys, loadId, except]);
      return rows.map((r) => r.source_key);
    },

    async releaseHeld(loadIds: number[]): Promise<number> {
      if (loadIds.length === 0) return 0;
      return (await session.query(sqlQuery('release_held'), [loadIds])).affectedRows;
    },

    async holdLoad(loadId: number): Promise<number> {
      return (await session.query(sqlQuery('hold_load'), [loadId])).affectedRows;
    },
    holdsFileClaim: (fence) => pgHoldsFileClaim(session, fence),
  };
}
