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
import { listOrNull, sqlQuery, toSnapshot, type SnapshotRow } from './rows.js';
import type { PgSession } from './session.js';

/** An operator's changes (retry, recover) on one connection. */
export function operatorSlice(session: PgSession): OperatorTx {
  /** lock_error_rows and find_error_rows take the selector and the keyset window alike. */
  async function errorRows(
    query: 'lock_error_rows' | 'find_error_rows',
    selector: RowSelector,
    window: KeysetWindow,
  ): Promise<StageRowSnapshot[]> {
    const limit = Math.floor(window.limit);
    if (!(limit > 0)) return [];
    const { rows } = await session.query<SnapshotRow>(sqlQuery(query), [
      listOrNull(selector.stageIds),
      listOrNull(selector.sourceKeys),
      listOrNull(selector.errorCodes),
      listOrNull(selector.loadIds),
      window.afterStageId,
      limit,
    ]);
    return rows.map(toSnapshot);
  }

  return {
    lockErrorRows: (selector, window) => errorRows('lock_error_rows', selector, window),
    findErrorRows: (selector, window) => errorRows('find_error_rows', selector, window),

    async controlHeldErrors(selector: RowSelector): Promise<ControlHeldRows[]> {
      const { rows } = await session.query<{ load_id: string | number; n: number; control: boolean; by_set: boolean }>(
        sqlQuery('control_held_errors'),
        [listOrNull(selector.stageIds), listOrNull(selector.sourceKeys), listOrNull(selector.errorCodes), listOrNull(selector.loadIds)],
      );
      return rows.map((r) => heldRowsOf(Number(r.load_id), r.n, r.control, r.by_set));
    },

    async lockStaleProcessing(olderThan: Date): Promise<StageRowSnapshot[]> {
      const { rows } = await session.query<SnapshotRow>(sqlQuery('lock_stale_processing'), [olderThan]);
      return rows.map(toSnapshot);
    },

    async lockAbandonedHolds(olderThan: Date): Promise<StageRowSnapshot[]> {
      const { rows } = await session.query<SnapshotRow>(sqlQuery('lock_abandoned_holds'), [olderThan]);
      return rows.map(toSnapshot);
    },

    async controlHold(loadId: number): Promise<ControlHold | null> {
      const { rows } = await session.query<{ detail: string | null; accepted: boolean }>(sqlQuery('control_hold'), [loadId]);
      const row = rows[0];
      return row === undefined ? null : { detail: eventDetail(row.detail), accepted: row.accepted };
    },

    async lockControlHeld(loadId: number): Promise<StageRowSnapshot[]> {
      const { rows } = await session.query<SnapshotRow>(sqlQuery('lock_control_held'), [loadId]);
      return rows.map(toSnapshot);
    },

    async applyManualChanges(changes: ManualChange[]): Promise<void> {
      if (changes.length === 0) return;
      const c = changes;
      await session.query(sqlQuery('apply_manual_changes'), [
        c.map((x) => x.stageId),
        c.map((x) => x.action),
        c.map((x) => x.oldStatus),
        c.map((x) => x.newStatus),
        c.map((x) => x.sourceKey),
        c.map((x) => x.values.customerId),
        c.map((x) => x.values.orderDate),
        c.map((x) => x.values.amount),
        c.map((x) => x.values.currency),
        c.map((x) => x.oldValues),
        c.map((x) => x.newValues),
        c.map((x) => x.operator),
        c.map((x) => x.reason),
      ]);
      const withAttributes = c.filter((x) => x.attributes !== undefined);
      if (withAttributes.length > 0)
        await session.query(sqlQuery('apply_manual_attributes'), [
          withAttributes.map((x) => x.stageId),
          withAttributes.map((x) => x.attributes ?? null),
        ]);
    },

    async rowAttributes(stageIds: number[]): Promise<Map<number, string | null>> {
      if (stageIds.length === 0) return new Map();
      const { rows } = await session.query<{ stage_id: number; attributes: string | null }>(sqlQuery('row_attributes'), [stageIds]);
      return new Map(rows.map((r) => [r.stage_id, r.attributes]));
    },

    async latestRawRecords(stageIds: number[]): Promise<LatestRawRecord[]> {
      if (stageIds.length === 0) return [];
      const { rows } = await session.query<{
        stage_id: number;
        load_id: number | null;
        raw_record: string | null;
        phase: ErrorPhase | null;
      }>(sqlQuery('latest_raw_records'), [stageIds]);
      return rows.map((r) => ({ stageId: r.stage_id, loadId: r.load_id, rawRecord: r.raw_record, phase: r.phase }));
    },

    async fileLayouts(loadIds: number[]): Promise<Map<number, FileLayout>> {
      const layouts = new Map<number, FileLayout>();
      if (loadIds.length === 0) return layouts;
      const { rows } = await session.query<{ run_id: number; detail: string | null }>(sqlQuery('file_layouts'), [loadIds]);
      for (const r of rows) {
        const layout = fileLayoutFromInvoked(r.detail);
        if (layout !== null) layouts.set(r.run_id, layout);
      }
      return layouts;
    },
  };
}
