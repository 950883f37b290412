import type { HoldSetsTx } from '../contract.js';
import type { HoldSetFile, LoadPlace } from '../types.js';
import { sqlQuery } from './rows.js';
import type { PgSession } from './session.js';

interface HoldSetRow {
  set_id: number | string;
  file_no: number;
  file_name: string;
  load_id: number | string | null;
  restage: boolean;
}

function holdSetFile(r: HoldSetRow): HoldSetFile {
  return {
    setId: Number(r.set_id),
    fileNo: r.file_no,
    fileName: r.file_name,
    loadId: r.load_id === null ? null : Number(r.load_id),
    restage: r.restage,
  };
}

/** The file sets of the runs that may hold rows (load_hold_set, migrations 017 and 018), and where loads stand in load order (load_place, 021), in the caller's transaction. */
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
      const { rows } = await session.query<HoldSetRow>(sqlQuery('hold_sets'), [loadIds]);
      return rows.map(holdSetFile);
    },

    async allHoldSets(): Promise<HoldSetFile[]> {
      const { rows } = await session.query<HoldSetRow>(sqlQuery('hold_sets_all'), []);
      return rows.map(holdSetFile);
    },

    async restageHoldSet(setId): Promise<void> {
      await session.query(sqlQuery('hold_set_restage'), [setId]);
    },

    async recordLoadPlaces(places): Promise<void> {
      if (places.length === 0) return;
      await session.query(sqlQuery('load_place_record'), [
        places.map((p) => p.loadId),
        places.map((p) => p.began),
        places.map((p) => p.place),
      ]);
    },

    async loadPlaces(fromLoad): Promise<LoadPlace[]> {
      const { rows } = await session.query<{ load_id: number | string; began_at: number | string; place: number }>(
        sqlQuery('load_places'),
        [fromLoad],
      );
      return rows.map((r) => ({ loadId: Number(r.load_id), began: Number(r.began_at), place: r.place }));
    },

    async endHoldSets(loadIds, coveredSets): Promise<void> {
      if (loadIds.length > 0) await session.query(sqlQuery('hold_set_release'), [loadIds]);
      // each covered set deleted; every statement also forgets the sets that wait on nothing
      for (const setId of coveredSets.length === 0 ? [null] : new Set(coveredSets))
        await session.query(sqlQuery('hold_set_forget'), [setId]);
    },
  };
}
