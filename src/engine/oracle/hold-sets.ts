import type { HoldSetsTx } from '../contract.js';
import type { HoldSetFile, LoadPlace } from '../types.js';
import { primaryOracleCode } from './classify.js';
import { LIMITS, MAX_BYTES, ORACLE_MAX_CHUNK, slices } from './binds.js';
import type { OraConnection } from './oracledb-types.js';
import { int, intOrNull, queryRows, text, type OracleKit } from './rows.js';
import { cutChars, oracleQuery } from './sql-text.js';

/** A MERGE's insert of a load another session inserted meanwhile (recordLoadPlaces). */
const UNIQUE_VIOLATED = 'ORA-00001';

/** One file of a set as read (queries/hold_sets.sql, hold_sets_all.sql): restage is a NUMBER(1). */
function holdSetFile(r: Record<string, unknown>): HoldSetFile {
  return {
    setId: int(r.SET_ID, 'set_id'),
    fileNo: int(r.FILE_NO, 'file_no'),
    fileName: text(r.FILE_NAME) ?? '',
    loadId: intOrNull(r.LOAD_ID, 'load_id'),
    restage: int(r.RESTAGE, 'restage') === 1,
  };
}

/** The file sets of the runs that may hold rows (load_hold_set, migrations 011 and 013), in the caller's transaction. */
export function oracleHoldSetsTx(connection: OraConnection, kit: OracleKit): HoldSetsTx {
  const { binds } = kit;
  return {
    /** queries/hold_set_record.sql, one iteration per file. */
    async recordHoldSet(setId, fileNames, start): Promise<void> {
      const rows = fileNames.map((name, fileNo) => ({
        set_id: setId,
        file_no: fileNo,
        file_name: cutChars(name, LIMITS.fileName),
        load_id: fileNo === start.fileNo ? start.loadId : null,
      }));
      for (const part of slices(rows, ORACLE_MAX_CHUNK)) {
        await connection.executeMany(oracleQuery('hold_set_record'), part, {
          autoCommit: false,
          bindDefs: {
            set_id: binds.number(),
            file_no: binds.number(),
            file_name: binds.varchar(MAX_BYTES.varchar),
            load_id: binds.number(),
          },
        });
      }
    },

    /** queries/hold_set_join.sql. */
    async joinHoldSet(setId, fileNo, loadId): Promise<void> {
      await connection.execute(
        oracleQuery('hold_set_join'),
        { set_id: binds.num(setId), file_no: binds.num(fileNo), load_id: binds.num(loadId) },
        { autoCommit: false },
      );
    },

    /** queries/hold_sets.sql, once per load; a set that holds several of them is read once. */
    async holdSets(loadIds): Promise<HoldSetFile[]> {
      const found = new Map<string, HoldSetFile>();
      for (const loadId of new Set(loadIds)) {
        for (const r of await queryRows(connection, kit, 'hold_sets', { load_id: binds.num(loadId) })) {
          const file = holdSetFile(r);
          found.set(`${file.setId}:${file.fileNo}`, file);
        }
      }
      return [...found.values()].sort((a, b) => a.setId - b.setId || a.fileNo - b.fileNo);
    },

    /** queries/hold_sets_all.sql. */
    async allHoldSets(): Promise<HoldSetFile[]> {
      return (await queryRows(connection, kit, 'hold_sets_all', {})).map(holdSetFile);
    },

    /** queries/hold_set_restage.sql. */
    async restageHoldSet(setId): Promise<void> {
      await connection.execute(oracleQuery('hold_set_restage'), { set_id: binds.num(setId) }, { autoCommit: false });
    },

    /**
     * queries/load_place_record.sql, one iteration per load in load id order (PostgreSQL's insert
     * orders its rows the same way): a MERGE that inserts only a load without a place, so a place
     * once recorded is kept. Without batchErrors: a place the CHECK refuses fails the call (and the
     * caller's transaction), as on PostgreSQL. A load another session inserted meanwhile: the
     * MERGE's insert waits for that session's commit, then fails with ORA-00001 where PostgreSQL's
     * ON CONFLICT DO NOTHING inserts nothing. Sent again, the MERGE finds that row and keeps it (a
     * row this call inserted before is found too); at most once per row.
     */
    async recordLoadPlaces(places): Promise<void> {
      const rows = [...places].sort((a, b) => a.loadId - b.loadId).map((p) => ({ load_id: p.loadId, began_at: p.began, place: p.place }));
      for (const part of slices(rows, ORACLE_MAX_CHUNK)) {
        for (let again = part.length; ; again--) {
          try {
            await connection.executeMany(oracleQuery('load_place_record'), part, {
              autoCommit: false,
              bindDefs: { load_id: binds.number(), began_at: binds.number(), place: binds.number() },
            });
            break;
          } catch (error) {
            if (again === 0 || primaryOracleCode(error) !== UNIQUE_VIOLATED) throw error;
          }
        }
      }
    },

    /** queries/load_places.sql. */
    async loadPlaces(fromLoad): Promise<LoadPlace[]> {
      return (await queryRows(connection, kit, 'load_places', { from_load: binds.num(fromLoad) })).map((r) => ({
        loadId: int(r.LOAD_ID, 'load_id'),
        began: int(r.BEGAN_AT, 'began_at'),
        place: int(r.PLACE, 'place'),
      }));
    },

    /** queries/hold_set_release.sql once per load, then queries/hold_set_forget.sql once per covered set (or once with none). */
    async endHoldSets(loadIds, coveredSets): Promise<void> {
      for (const loadId of new Set(loadIds))
        await connection.execute(oracleQuery('hold_set_release'), { load_id: binds.num(loadId) }, { autoCommit: false });
      for (const setId of coveredSets.length === 0 ? [null] : new Set(coveredSets))
        await connection.execute(oracleQuery('hold_set_forget'), { set_id: binds.num(setId) }, { autoCommit: false });
    },
  };
}
