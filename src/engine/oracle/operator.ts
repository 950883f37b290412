import type { OperatorTx } from '../contract.js';
import { eventDetail, fileLayoutFromInvoked, heldRowsOf } from '../run-events.js';
import type {
  ControlHold,
  ControlHeldRows,
  ErrorPhase,
  FileLayout,
  KeysetWindow,
  LatestRawRecord,
  ManualChange,
  RowSelector,
  StageRowSnapshot,
} from '../types.js';
import {
  checkValueSizes,
  ID_SLOTS,
  idList,
  LIMITS,
  matchesNothing,
  MAX_BYTES,
  ORACLE_MAX_CHUNK,
  type SlotList,
  slices,
  textList,
} from './binds.js';
import type { OraBinds, OraConnection } from './oracledb-types.js';
import { boundedWait } from './merge.js';
import { byStageId, int, intOrNull, type OracleKit, queryRows, rowsOf, stageSnapshot, text } from './rows.js';
import { nonEmpty, oracleQuery, utcTimestampText } from './sql-text.js';

/** The selector as slot lists; null when a given list has no value that can match (the AND matches no row). */
function errorRowLists(selector: RowSelector): SlotList[] | null {
  const lists: SlotList[] = [
    { name: 'stage_id', values: idList(selector.stageIds, 'stage id') },
    { name: 'source_key', values: textList(selector.sourceKeys, LIMITS.sourceKey), maxSize: MAX_BYTES.sourceKey },
    { name: 'error_code', values: textList(selector.errorCodes, LIMITS.code), maxSize: MAX_BYTES.code },
    { name: 'load_id', values: idList(selector.loadIds, 'load id') },
  ];
  return matchesNothing(lists) ? null : lists;
}

/** An operator's work (retry, recover) on one connection, in the caller's transaction: no commit here. */
export function oracleOperatorTx(connection: OraConnection, kit: OracleKit): OperatorTx {
  const { binds } = kit;

  /**
   * queries/find_error_rows.sql: the rows of a `retry` batch, locking nothing (a dry run, and
   * the end of the range lockErrorRows locks). The lists are slot binds (20 per list, the
   * approach of tally_loads.sql); a longer list runs in slices, each returns at most `limit`
   * rows, and the first `limit` of their union in stage_id order are the answer. Also returns
   * the bind sets that found rows, with the first stage_id each found.
   */
  async function findErrorRowsBySet(
    selector: RowSelector,
    window: KeysetWindow,
  ): Promise<{ rows: StageRowSnapshot[]; found: Array<{ slots: OraBinds; first: number }> }> {
    const limit = Math.min(Math.floor(window.limit), Number.MAX_SAFE_INTEGER);
    const lists = errorRowLists(selector);
    if (!(limit > 0) || lists === null) return { rows: [], found: [] };
    const rows: StageRowSnapshot[] = [];
    const found: Array<{ slots: OraBinds; first: number }> = [];
    for (const slots of binds.slotSets(lists)) {
      const part = (
        await queryRows(connection, kit, 'find_error_rows', {
          ...slots,
          after_stage_id: binds.num(int(window.afterStageId, 'afterStageId')),
          row_limit: binds.num(limit),
        })
      ).map(stageSnapshot);
      rows.push(...part);
      const first = Math.min(...part.map((r) => r.stageId));
      if (part.length > 0) found.push({ slots, first });
    }
    return { rows: byStageId(rows).slice(0, limit), found };
  }

  return {
    findErrorRows: async (selector, window) => (await findErrorRowsBySet(selector, window)).rows,

    /**
     * A `retry` batch, locked: findErrorRows gives the first `window.limit` matching rows, then
     * queries/lock_error_rows.sql (which says why a stage_id range bounds the locks) locks the
     * matching rows of the range they span, FOR UPDATE, every row of the cursor fetched (plain
     * execute: no result set, no maxRows), so every row returned is locked. A row that became
     * ERROR inside the range in between is locked too (the batch is a little larger), when its
     * bind set found a row of the range: a bind set (a combination of slices) whose find
     * returned no row up to the range's end has no matching row in it and is not run again, so
     * the locking pass runs at most as many queries as there are rows in the batch.
     */
    async lockErrorRows(selector: RowSelector, window: KeysetWindow): Promise<StageRowSnapshot[]> {
      const { rows: candidates, found } = await findErrorRowsBySet(selector, window);
      const last = candidates[candidates.length - 1];
      if (last === undefined) return [];
      const range = { after_stage_id: binds.num(int(window.afterStageId, 'afterStageId')), up_to_stage_id: binds.num(last.stageId) };
      const rows: StageRowSnapshot[] = [];
      // what is left of the transaction's row-lock wait (--row-lock-wait) in whole seconds, one
      // bound for all the bind sets' statements (0: NOWAIT); none: no limit
      const budget = kit.lockWaits?.get(connection);
      for (const { slots } of found.filter((f) => f.first <= last.stageId)) {
        const lockSql = boundedWait(oracleQuery('lock_error_rows'), budget?.secondsLeft());
        for (const r of rowsOf(await connection.execute(lockSql, { ...slots, ...range }, kit.queryOptions))) rows.push(stageSnapshot(r));
      }
      return byStageId(rows);
    },

    /**
     * queries/control_held_errors.sql, once per bind set (a combination of slices of the
     * selector's lists): the sets are disjoint, so a load's count is the sum of its counts.
     */
    async controlHeldErrors(selector: RowSelector): Promise<ControlHeldRows[]> {
      const lists = errorRowLists(selector);
      if (lists === null) return [];
      const byLoad = new Map<number, ControlHeldRows>();
      for (const slots of binds.slotSets(lists)) {
        for (const r of await queryRows(connection, kit, 'control_held_errors', slots)) {
          const loadId = int(r.LOAD_ID, 'load_id');
          // a load's holds are the same in every slice; its counts add up
          byLoad.set(loadId, heldRowsOf(loadId, (byLoad.get(loadId)?.rows ?? 0) + int(r.N, 'n'), r.CONTROL, r.BY_SET));
        }
      }
      return [...byLoad.values()].sort((a, b) => a.loadId - b.loadId);
    },

    /**
     * queries/lock_stale_processing.sql: FOR UPDATE SKIP LOCKED with no row limit in the SQL;
     * one plain execute fetches every row of the cursor, and with SKIP LOCKED a row is locked
     * when it is fetched, so all the rows returned are locked by this transaction.
     */
    async lockStaleProcessing(olderThan: Date): Promise<StageRowSnapshot[]> {
      const rows = await queryRows(connection, kit, 'lock_stale_processing', {
        older_than: binds.str(utcTimestampText(olderThan), MAX_BYTES.timestampText),
      });
      return rows.map(stageSnapshot);
    },

    /** queries/lock_abandoned_holds.sql: as lockStaleProcessing, every row of the cursor fetched and so locked. */
    async lockAbandonedHolds(olderThan: Date): Promise<StageRowSnapshot[]> {
      const rows = await queryRows(connection, kit, 'lock_abandoned_holds', {
        older_than: binds.str(utcTimestampText(olderThan), MAX_BYTES.timestampText),
      });
      return rows.map(stageSnapshot);
    },

    /** queries/control_hold.sql: the load's latest control hold, if any. */
    async controlHold(loadId: number): Promise<ControlHold | null> {
      const row = (await queryRows(connection, kit, 'control_hold', { load_id: binds.num(loadId) }))[0];
      return row === undefined ? null : { detail: eventDetail(text(row.DETAIL)), accepted: int(row.ACCEPTED, 'accepted') === 1 };
    },

    /** queries/lock_control_held.sql: every row of the cursor fetched and so locked. */
    async lockControlHeld(loadId: number): Promise<StageRowSnapshot[]> {
      const rows = await queryRows(connection, kit, 'lock_control_held', { load_id: binds.num(loadId) });
      return rows.map(stageSnapshot);
    },

    /** queries/latest_raw_records.sql, per slice of 20 stage ids. */
    async latestRawRecords(stageIds: number[]): Promise<LatestRawRecord[]> {
      const ids = [...new Set(stageIds.map((id) => int(id, 'stage id')))];
      const out: LatestRawRecord[] = [];
      for (const part of slices(ids, ID_SLOTS)) {
        for (const r of await queryRows(connection, kit, 'latest_raw_records', binds.idSlots(part))) {
          out.push({
            stageId: int(r.STAGE_ID, 'stage_id'),
            loadId: intOrNull(r.LOAD_ID, 'load_id'),
            rawRecord: text(r.RAW_RECORD),
            phase: text(r.PHASE) as ErrorPhase | null,
          });
        }
      }
      return byStageId(out);
    },

    /** queries/file_layouts.sql, per slice of 20 load ids. */
    async fileLayouts(loadIds: number[]): Promise<Map<number, FileLayout>> {
      const ids = [...new Set(loadIds.map((id) => int(id, 'load id')))];
      const layouts = new Map<number, FileLayout>();
      for (const part of slices(ids, ID_SLOTS)) {
        for (const r of await queryRows(connection, kit, 'file_layouts', binds.idSlots(part))) {
          const layout = fileLayoutFromInvoked(text(r.DETAIL));
          if (layout !== null) layouts.set(int(r.RUN_ID, 'run_id'), layout);
        }
      }
      return layouts;
    },

    /**
     * Two executeMany calls per slice of at most 65,535 changes: queries/apply_manual_changes.sql
     * (values, status, error fields cleared) then queries/apply_manual_changes_audit.sql (one
     * audit row per change whose stage row exists).
     */
    async applyManualChanges(changes: ManualChange[]): Promise<void> {
      if (changes.length === 0) return;
      const rows = changes.map((ch) => {
        const stageId = int(ch.stageId, 'stage id');
        checkValueSizes('manual change', `stage row ${stageId}`, ch.sourceKey, ch.values);
        // Oracle stores '' as NULL and both columns are NOT NULL: an empty text gets a marker.
        const operator = nonEmpty(ch.operator, '(unknown)');
        const reason = nonEmpty(ch.reason, '(none)');
        if (Array.from(operator).length > LIMITS.operator)
          throw new Error(`manual change: the operator name is longer than ${LIMITS.operator} characters`);
        if (Array.from(reason).length > LIMITS.reason)
          throw new Error(`manual change: the reason is longer than ${LIMITS.reason} characters`);
        return {
          update: {
            stage_id: stageId,
            action: ch.action,
            new_status: ch.newStatus,
            customer_id: ch.values.customerId,
            order_date: ch.values.orderDate,
            amount: ch.values.amount,
            currency: ch.values.currency,
          },
          audit: {
            stage_id: stageId,
            source_key: ch.sourceKey,
            action: ch.action,
            old_status: ch.oldStatus,
            new_status: ch.newStatus,
            old_values: ch.oldValues,
            new_values: ch.newValues,
            operator,
            reason,
          },
        };
      });
      for (const part of slices(rows, ORACLE_MAX_CHUNK)) {
        await connection.executeMany(
          oracleQuery('apply_manual_changes'),
          part.map((r) => r.update),
          {
            autoCommit: false,
            bindDefs: {
              stage_id: binds.number(),
              action: binds.varchar(MAX_BYTES.status),
              new_status: binds.varchar(MAX_BYTES.status),
              customer_id: binds.varchar(MAX_BYTES.numberText),
              order_date: binds.varchar(MAX_BYTES.dateText),
              amount: binds.varchar(MAX_BYTES.numberText),
              currency: binds.varchar(MAX_BYTES.currency),
            },
          },
        );
        for (const audit of binds.textRuns(
          part.map((r) => r.audit),
          (a) => [a.old_values, a.new_values],
        )) {
          await connection.executeMany(oracleQuery('apply_manual_changes_audit'), audit, {
            autoCommit: false,
            bindDefs: {
              stage_id: binds.number(),
              source_key: binds.varchar(MAX_BYTES.sourceKey),
              action: binds.varchar(MAX_BYTES.status),
              old_status: binds.varchar(MAX_BYTES.status),
              new_status: binds.varchar(MAX_BYTES.status),
              old_values: binds.longText(audit.map((a) => a.old_values)),
              new_values: binds.longText(audit.map((a) => a.new_values)),
              operator: binds.varchar(MAX_BYTES.operator),
              reason: binds.varchar(MAX_BYTES.message),
            },
          });
        }
      }
      const withAttributes = changes
        .filter((ch) => ch.attributes !== undefined)
        .map((ch) => ({ stage_id: int(ch.stageId, 'stage id'), attributes: ch.attributes ?? null }));
      for (const run of binds.textRuns(withAttributes, (r) => [r.attributes])) {
        await connection.executeMany(oracleQuery('apply_manual_attributes'), run, {
          autoCommit: false,
          bindDefs: { stage_id: binds.number(), attributes: binds.longText(run.map((r) => r.attributes)) },
        });
      }
    },

    /** queries/row_attributes.sql, per slice of 20 stage ids. */
    async rowAttributes(stageIds: number[]): Promise<Map<number, string | null>> {
      const ids = [...new Set(stageIds.map((id) => int(id, 'stage id')))];
      const out = new Map<number, string | null>();
      for (const part of slices(ids, ID_SLOTS)) {
        for (const r of await queryRows(connection, kit, 'row_attributes', binds.idSlots(part))) {
          out.set(int(r.STAGE_ID, 'stage_id'), text(r.ATTRIBUTES));
        }
      }
      return out;
    },
  };
}
