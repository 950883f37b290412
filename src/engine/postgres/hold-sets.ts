import type { HoldSetsTx } from '../contract.js';
import type { HoldSetFile } from '../types.js';
import { sqlQuery } from './rows.js';
import type { PgSession } from './session.js';

/** The file sets of the runs that may hold rows (load_hold_set, migration 017), in the caller's transaction. */
export function holdSetsSlice(session: PgSession): HoldSetsTx {
  return {
    async recordHoldSet(setId, fileNames, start): Promise<void> {
      await session.query(sqlQuery('hold_set_record'), [setId, fileNames, start.fileNo, start.loadId]);
    },

    async joinHoldSet(setId, fileNo, loadId): Promise<void> {
      await session.query(sqlQuery('hold_set_join'), [setId, fileNo, loadId]);
    },

    async holdSets(loadIds): Promise<HoldSetFile[]> {
      if (loadIds.length === 0) return [];
      const { rows } = await session.query<{
        set_id: number | string;
        file_no: number;
        file_name: string;
        load_id: number | string | null;
      }>(sqlQuery('hold_sets'), [loadIds]);
      return rows.map((r) => ({
        setId: Number(r.set_id),
        fileNo: r.file_no,
        fileName: r.file_name,
        loadId: r.load_id === null ? null : Number(r.load_id),
      }));
    },

    async endHoldSets(loadIds, coveredSet): Promise<void> {
      if (loadIds.length > 0) await session.query(sqlQuery('hold_set_release'), [loadIds]);
      await session.query(sqlQuery('hold_set_forget'), [coveredSet]);
    },
  };
}
