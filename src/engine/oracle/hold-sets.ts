import type { HoldSetsTx } from '../contract.js';
import type { HoldSetFile } from '../types.js';
import { LIMITS, MAX_BYTES, ORACLE_MAX_CHUNK, slices } from './binds.js';
import type { OraConnection } from './oracledb-types.js';
import { int, intOrNull, queryRows, text, type OracleKit } from './rows.js';
import { cutChars, oracleQuery } from './sql-text.js';

/** The file sets of the runs that may hold rows (load_hold_set, migration 011), in the caller's transaction. */
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
          const file: HoldSetFile = {
            setId: int(r.SET_ID, 'set_id'),
            fileNo: int(r.FILE_NO, 'file_no'),
            fileName: text(r.FILE_NAME) ?? '',
            loadId: intOrNull(r.LOAD_ID, 'load_id'),
          };
          found.set(`${file.setId}:${file.fileNo}`, file);
        }
      }
      return [...found.values()].sort((a, b) => a.setId - b.setId || a.fileNo - b.fileNo);
    },

    /** queries/hold_set_release.sql once per load, then queries/hold_set_forget.sql. */
    async endHoldSets(loadIds, coveredSet): Promise<void> {
      for (const loadId of new Set(loadIds))
        await connection.execute(oracleQuery('hold_set_release'), { load_id: binds.num(loadId) }, { autoCommit: false });
      await connection.execute(oracleQuery('hold_set_forget'), { set_id: binds.num(coveredSet) }, { autoCommit: false });
    },
  };
}
