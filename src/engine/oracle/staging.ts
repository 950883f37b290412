import type { StagingTx } from '../contract.js';
import type { ErrorLogInput, StageBatchResult, StageInput, StageRefusal } from '../types.js';
import { classifyOracleCode, classifyOracleCodes, oracleCodesFromMessage } from './classify.js';
import { boundedWait, OracleChunkError } from './merge.js';
import { type LockBudget, withinLockBudget } from './lock-budget.js';
import { attributeRuns, attributesOf, checkValueSizes, LIMITS, MAX_BYTES, ORACLE_MAX_CHUNK, slices } from './binds.js';
import { type DirectInsertPolicy, insertDirect } from './stage-direct.js';
import type { OraBatchError, OraBindDef, OraBinds, OraConnection } from './oracledb-types.js';
import { int, type OracleKit, type Row } from './rows.js';
import { cutChars, nonEmpty, oracleQuery } from './sql-text.js';
import { storedMessage } from './stored-message.js';
import { oracleHoldsFileClaim } from './file-claims.js';
import { oracleLaterLoadKeys } from './later-loads.js';

/**
 * The rows of one executeMany that the database refused, from its batchErrors (each entry's
 * offset indexes the bind array): a row-level code (classify.ts) refuses that row alone; a
 * fatal code anywhere in a message, or a transient first code (ORA-00001 of a concurrent
 * insert, ORA-08177, a deadlock), fails the batch: thrown as an OracleChunkError carrying the
 * code, which classifyOracleError reads, so the batch rolls back and is retried.
 */
function refusalsOf(what: string, rows: readonly StageInput[], batchErrors: readonly OraBatchError[]): StageRefusal[] {
  const refused: StageRefusal[] = [];
  for (const batchError of batchErrors) {
    const row = rows[batchError.offset];
    if (row === undefined) throw new Error(`${what}: batch error offset ${batchError.offset} outside the ${rows.length} rows bound`);
    const codes = oracleCodesFromMessage(batchError.message);
    const kind = classifyOracleCodes(codes);
    const code = codes.find((c) => classifyOracleCode(c) === 'fatal') ?? codes[0] ?? 'ORA-UNKNOWN';
    if (kind !== 'rejected') {
      throw new OracleChunkError(code, `${what}: ${codes.join(' ')} reported for line ${row.lineNo}; the batch is rolled back`);
    }
    refused.push({
      lineNo: row.lineNo,
      sourceKey: row.sourceKey,
      code: cutChars(code, LIMITS.code),
      message: storedMessage(batchError.message, code),
    });
  }
  return refused;
}

/** The counts of a batch that nothing was staged by yet, and no refusal. */
function emptyResult(): StageBatchResult {
  return { inserted: 0, updated: 0, unchanged: 0, unchangedError: 0, repeatedInLoad: 0, refused: [] };
}

/**
 * stage_batch_lock.sql: the order_stage rows of the batch table's keys locked by this transaction,
 * waiting at most what is left of its bound (`budget`, whole seconds; 0: NOWAIT) for a session
 * that holds one, or without bound when the transaction has none.
 */
async function lockStaged(connection: OraConnection, budget: LockBudget | undefined): Promise<void> {
  await connection.execute(boundedWait(oracleQuery('stage_batch_lock'), budget?.secondsLeft()), {}, { autoCommit: false });
}

/**
 * The batch's keys changed under it: a key counted as new was staged by another session since.
 * Transient (ORA-08177's code, "cannot serialize"): the batch is
 * rolled back and staged again, when the other session's rows are committed and locked too.
 */
function concurrentlyStaged(found: number, expected: number): never {
  throw new OracleChunkError(
    'ORA-08177',
    `stage batch: another session staged keys of this batch meanwhile (${found} of its ${expected} new keys inserted); the batch is rolled back`,
  );
}

/**
 * Staging on one connection, in one READ COMMITTED transaction whose counts and writes describe the
 * same rows because the rows they read are locked first (stage_batch_lock.sql says why this and
 * not SERIALIZABLE: processing's commits made a SERIALIZABLE batch fail with ORA-08177 on every
 * retry):
 *  0. unless the engine's DirectInsertPolicy says otherwise (stage-direct.ts), the batch goes
 *     straight into order_stage (executeMany of stage_batch_direct.sql, batchErrors: true): a
 *     new key is staged by that alone, READY or ERROR, stage_id in line order. The lines it did
 *     not insert (ORA-00001: the key is staged already; or refused for another row-level reason)
 *     go on through steps 1 to 4, and only they: as the batch's keys are distinct (the
 *     contract), what step 0 inserted is no key of theirs, so the counts and the writes of
 *     steps 2 to 4 are the ones the batch table alone would make for those lines. A transient
 *     or fatal code fails the batch.
 *  1. the lines go into the session's global temporary table order_stage_batch (executeMany
 *     of stage_batch_insert.sql, batchErrors: true): a row the database refuses there (a value
 *     order_stage cannot hold) is left out and returned as refused, the rest goes on; then the
 *     order_stage rows of their keys are locked (stage_batch_lock.sql: waits for a chunk that
 *     holds one, bounded by the transaction's lock wait when it has one);
 *  2. the rows left are counted against order_stage (stage_batch_counts.sql);
 *  2b. when the counts found unchanged lines, this load is recorded for their keys in
 *     order_stage_unchanged (stage_batch_unchanged.sql, after the savepoint of step 3, so that a
 *     rollback to it undoes the records too): a DONE row such a line repeats keeps its load, and
 *     the record is what later_load_keys.sql reads for it;
 *  3. the keys order_stage holds are updated (executeMany of stage_batch_update.sql, one
 *     iteration per key, batchErrors: true, after the savepoint of stage_batch_savepoint.sql):
 *     an update the database refuses (a CHECK constraint, a trigger, a VPD policy of the
 *     site) is rejected for its line alone, as in step 1. The counts of step 2 included it,
 *     so the updates are rolled back to the savepoint, the refused keys taken out of the
 *     batch (stage_batch_drop_key.sql), and steps 2 and 3 run again without them;
 *  4. the new keys are inserted in line order (executeMany of stage_batch_new.sql, one
 *     iteration per row, batchErrors: true): stage_id follows the file's order, and the
 *     statement's own rowsAffected is the "inserted" count; a key it did not insert (another
 *     session committed it since the counts) fails the batch as transient. Not sent when the
 *     counts of step 2 found every key staged already (a reload): it would insert nothing.
 * A transient or fatal code in any batch error fails the batch (refusalsOf). A later call in the
 * same transaction (a refused line's earlier line, src/pipeline/stage-batch.ts) empties the batch
 * table first (stage_batch_clear.sql): it still holds the earlier call's lines until the commit.
 */
export function oracleStagingTx(connection: OraConnection, kit: OracleKit, direct?: DirectInsertPolicy): StagingTx {
  const { binds, queryOptions, lockWaits } = kit;
  const stageDefs: Record<string, OraBindDef> = {
    source_key: binds.varchar(MAX_BYTES.sourceKey),
    customer_id: binds.varchar(MAX_BYTES.numberText),
    order_date: binds.varchar(MAX_BYTES.dateText),
    amount: binds.varchar(MAX_BYTES.numberText),
    currency: binds.varchar(MAX_BYTES.currency),
    line_no: binds.number(),
    parse_code: binds.varchar(MAX_BYTES.code),
    parse_message: binds.varchar(MAX_BYTES.message),
  };
  const keyDefs = { source_key: binds.varchar(MAX_BYTES.sourceKey), load_id: binds.number() };
  /** stageBatch calls in this transaction: a later one finds the batch table holding the earlier call's lines. */
  let calls = 0;

  /** A line's binds for stage_batch_insert.sql (and, with load_id, stage_batch_direct.sql). */
  function stageBind(r: StageInput): OraBinds {
    // A failed batch is then the same outcome as on PostgreSQL (varchar(100) / cast errors).
    checkValueSizes('stage batch', `line ${r.lineNo}`, r.sourceKey, r);
    return {
      source_key: r.sourceKey,
      customer_id: r.customerId,
      order_date: r.orderDate,
      amount: r.amount,
      currency: r.currency,
      line_no: r.lineNo,
      parse_code: r.parseError === undefined ? null : cutChars(nonEmpty(r.parseError.code, 'PARSE'), LIMITS.code),
      parse_message: r.parseError === undefined ? null : cutChars(nonEmpty(r.parseError.message, '(no message)'), LIMITS.message),
      attributes: r.attributes ?? null,
    };
  }

  /**
   * Steps 1 to 4 for `rows` (`values` their stage binds): into `result` go the refused lines,
   * the counts of step 2 and the inserts of step 4. Returns how many of the lines staged had a
   * key order_stage held, and how many were staged (for the DirectInsertPolicy).
   */
  async function throughBatchTable(
    loadId: number,
    rows: readonly StageInput[],
    values: readonly OraBinds[],
    result: StageBatchResult,
  ): Promise<{ existing: number; staged: number }> {
    const refused = new Set<number>();
    for (const { start, part } of attributeRuns(values, binds)) {
      const inserted = await connection.executeMany(oracleQuery('stage_batch_insert'), part, {
        autoCommit: false,
        batchErrors: true,
        bindDefs: { ...stageDefs, attributes: binds.longText(part.map(attributesOf)) },
      });
      for (const refusal of refusalsOf('stage batch', rows.slice(start, start + part.length), inserted.batchErrors ?? [])) {
        result.refused.push(refusal);
        refused.add(refusal.lineNo);
      }
    }
    let staged = rows.filter((r) => !refused.has(r.lineNo));
    if (staged.length === 0) return { existing: 0, staged: 0 };
    await lockStaged(connection, lockWaits?.get(connection));
    let row: Row | undefined;
    for (;;) {
      if (staged.length === 0) return { existing: 0, staged: 0 };
      const counted = await connection.execute(oracleQuery('stage_batch_counts'), { load_id: binds.num(loadId) }, queryOptions);
      row = (counted.rows?.[0] ?? undefined) as Row | undefined;
      if (row === undefined) throw new Error('stage batch: the count query returned no row');
      await connection.execute(oracleQuery('stage_batch_savepoint'), {}, { autoCommit: false });
      if (int(row.UNCHANGED, 'unchanged') > 0)
        await connection.execute(oracleQuery('stage_batch_unchanged'), { load_id: binds.num(loadId) }, { autoCommit: false });
      const refusedUpdates: StageRefusal[] = [];
      for (const part of slices(staged, ORACLE_MAX_CHUNK)) {
        const updated = await connection.executeMany(
          oracleQuery('stage_batch_update'),
          part.map((r) => ({ source_key: r.sourceKey, load_id: loadId })),
          { autoCommit: false, batchErrors: true, bindDefs: keyDefs },
        );
        refusedUpdates.push(...refusalsOf('stage batch (update)', part, updated.batchErrors ?? []));
      }
      if (refusedUpdates.length === 0) break;
      // the counts included the refused keys: undo the updates, take those keys out, count again
      await connection.execute(oracleQuery('stage_batch_rollback'), {}, { autoCommit: false });
      await connection.executeMany(
        oracleQuery('stage_batch_drop_key'),
        refusedUpdates.map((r) => ({ source_key: r.sourceKey })),
        { autoCommit: false, bindDefs: { source_key: binds.varchar(MAX_BYTES.sourceKey) } },
      );
      result.refused.push(...refusedUpdates);
      const out = new Set(refusedUpdates.map((r) => r.lineNo));
      staged = staged.filter((r) => !out.has(r.lineNo));
    }
    const updated = int(row.UPDATED, 'updated');
    const unchanged = int(row.UNCHANGED, 'unchanged');
    const repeatedInLoad = int(row.REPEATED_IN_LOAD, 'repeated_in_load');
    result.updated += updated;
    result.unchanged += unchanged;
    result.unchangedError += int(row.UNCHANGED_ERROR, 'unchanged_error');
    result.repeatedInLoad += repeatedInLoad;
    const existing = updated + unchanged + repeatedInLoad;
    // every other line of `staged` has a new key, which the insert must insert (or refuse)
    if (existing < staged.length) {
      let taken = 0;
      for (const part of slices(staged, ORACLE_MAX_CHUNK)) {
        // a new key another session inserted and has not committed is waited for: within the bound
        const done = await withinLockBudget(connection, lockWaits?.get(connection), () =>
          connection.executeMany(
            oracleQuery('stage_batch_new'),
            part.map((r) => ({ source_key: r.sourceKey, load_id: loadId })),
            { autoCommit: false, batchErrors: true, bindDefs: keyDefs },
          ),
        );
        const refusals = refusalsOf('stage batch (new keys)', part, done.batchErrors ?? []);
        result.refused.push(...refusals);
        result.inserted += done.rowsAffected ?? 0;
        taken += (done.rowsAffected ?? 0) + refusals.length;
      }
      if (taken < staged.length - existing) concurrentlyStaged(taken, staged.length - existing);
    }
    return { existing, staged: staged.length };
  }

  return {
    async stageBatch(loadId: number, rows: StageInput[]): Promise<StageBatchResult> {
      const result = emptyResult();
      if (rows.length === 0) return result;
      const values = rows.map(stageBind);
      if (calls++ > 0) await connection.execute(oracleQuery('stage_batch_clear'), {}, { autoCommit: false });
      let rest: readonly StageInput[] = rows;
      let restValues: readonly OraBinds[] = values;
      if (direct?.tryDirect() === true) {
        const outcome = await insertDirect(
          connection,
          rows,
          attributeRuns(
            values.map((v) => ({ ...v, load_id: loadId })),
            binds,
          ),
          (part) => ({ ...stageDefs, load_id: binds.number(), attributes: binds.longText(part.map(attributesOf)) }),
          lockWaits?.get(connection),
        );
        result.by = 'direct';
        result.inserted += outcome.inserted;
        result.fellBack = outcome.rest.length;
        direct.observe(outcome.existing, rows.length - (outcome.rest.length - outcome.existing));
        rest = outcome.rest.map((i) => rows[i] as StageInput);
        restValues = outcome.rest.map((i) => values[i] as OraBinds);
      } else {
        result.by = 'batch-table';
      }
      if (rest.length > 0) {
        const seen = await throughBatchTable(loadId, rest, restValues, result);
        if (result.by === 'batch-table') direct?.observe(seen.existing, seen.staged);
      }
      result.refused.sort((a, b) => a.lineNo - b.lineNo);
      return result;
    },

    async logErrors(rows: ErrorLogInput[]): Promise<void> {
      if (rows.length === 0) return;
      const values = rows.map((r) => ({
        stage_id: r.stageId,
        // The error log's source_key is VARCHAR2(100 CHAR); a longer key (the reason the line
        // was rejected) is cut here, its full text stays in raw_record.
        source_key: r.sourceKey === null ? null : cutChars(r.sourceKey, LIMITS.sourceKey),
        // the stage row is looked up by the full key only (a cut key could match another row)
        // (nor a rejected line's own key: keyOnly, it has no stage row)
        lookup_key: r.sourceKey !== null && r.keyOnly !== true && Array.from(r.sourceKey).length <= LIMITS.sourceKey ? r.sourceKey : null,
        load_id: r.loadId,
        line_no: r.lineNo,
        batch_id: r.batchId === null ? null : cutChars(r.batchId, LIMITS.batchId),
        attempt_no: r.attemptNo,
        phase: r.phase,
        error_code: cutChars(nonEmpty(r.code, 'UNKNOWN'), LIMITS.code),
        error_message: cutChars(nonEmpty(r.message, '(no message)'), LIMITS.message),
        raw_record: r.rawRecord,
      }));
      for (const part of slices(values, ORACLE_MAX_CHUNK).flatMap((slice) => binds.textRuns(slice, (v) => [v.raw_record]))) {
        await connection.executeMany(oracleQuery('log_errors'), part, {
          autoCommit: false,
          bindDefs: {
            ...binds.errorLogDefs(),
            lookup_key: binds.varchar(MAX_BYTES.sourceKey),
            raw_record: binds.longText(part.map((b) => b.raw_record)),
          },
        });
      }
    },

    /** queries/hold_rows.sql, one iteration per key. */
    async holdRows(loadId: number, sourceKeys: string[]): Promise<void> {
      for (const part of slices(sourceKeys, ORACLE_MAX_CHUNK)) {
        await connection.executeMany(
          oracleQuery('hold_rows'),
          part.map((key) => ({ source_key: key, load_id: loadId })),
          { autoCommit: false, bindDefs: { source_key: binds.varchar(MAX_BYTES.sourceKey), load_id: binds.number() } },
        );
      }
    },

    /** queries/release_held.sql, once per load. */
    async releaseHeld(loadIds: number[]): Promise<number> {
      let released = 0;
      for (const loadId of new Set(loadIds)) {
        const result = await connection.execute(oracleQuery('release_held'), { load_id: binds.num(loadId) }, { autoCommit: false });
        released += result.rowsAffected ?? 0;
      }
      return released;
    },

    /** queries/hold_load.sql. */
    async holdLoad(loadId: number): Promise<number> {
      const result = await connection.execute(oracleQuery('hold_load'), { load_id: binds.num(loadId) }, { autoCommit: false });
      return result.rowsAffected ?? 0;
    },

    /** later-loads.ts: queries/later_load_keys.sql, one iteration per key. */
    laterLoadKeys: (loadId, sourceKeys, except = []) => oracleLaterLoadKeys(connection, kit, loadId, sourceKeys, except),

    holdsFileClaim: (fence) => oracleHoldsFileClaim(connection, kit, fence),
  };
}
