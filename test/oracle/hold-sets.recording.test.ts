/**
 * The file sets of the runs that may hold rows, on the Oracle engine against a RECORDING database
 * (test/oracle/recording-connection.ts): the statements of src/engine/oracle/hold-sets.ts and
 * their binds, in step with PostgreSQL's (one row per file, the starting file's load bound on its
 * row only; the sets read once per load, each set's files once; released loads leave their sets,
 * then the sets waiting on nothing go). Nothing here runs on an Oracle Database.
 */
import { describe, expect, it } from 'vitest';
import { createOracleEngineWith } from '../../src/engine/oracle/index.js';
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import { constants, RecordingDatabase, type Call } from './recording-connection.js';

type ExecuteCall = Extract<Call, { kind: 'execute' }>;

/** A set 41 of a.csv (load 41) and b.csv (load 42), and a set 50 of a.csv alone (load 41). */
const SETS = [
  { SET_ID: '41', FILE_NO: '0', FILE_NAME: 'a.csv', LOAD_ID: '41', RESTAGE: '0' },
  { SET_ID: '41', FILE_NO: '1', FILE_NAME: 'b.csv', LOAD_ID: '42', RESTAGE: '0' },
  { SET_ID: '50', FILE_NO: '0', FILE_NAME: 'a.csv', LOAD_ID: '41', RESTAGE: '1' },
];

function values(binds: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(binds).map(([k, v]) => [k, (v as { val: unknown }).val]));
}

describe('Oracle engine (recording database): the file sets of the runs that hold rows', () => {
  it('records a set one row per file, joins a load, reads each set once, ends released loads and forgets', async () => {
    const db = new RecordingDatabase({
      execute: (sql, binds) => {
        if (sql === oracleQuery('hold_sets_all')) return { rows: SETS };
        if (sql !== oracleQuery('hold_sets')) return { rows: [] };
        const loadId = String((binds.load_id as { val: unknown }).val);
        return { rows: SETS.filter((r) => SETS.some((h) => h.SET_ID === r.SET_ID && h.LOAD_ID === loadId)) };
      },
    });
    const engine = createOracleEngineWith(db, constants);
    await engine.transaction((tx) => tx.recordHoldSet(41, ['a.csv', 'b.csv', 'c.csv'], { fileNo: 0, loadId: 41 }));
    const record = db.executeManyCalls().find((c) => c.sql === oracleQuery('hold_set_record'));
    expect(record?.binds).toEqual([
      { set_id: 41, file_no: 0, file_name: 'a.csv', load_id: 41 },
      { set_id: 41, file_no: 1, file_name: 'b.csv', load_id: null },
      { set_id: 41, file_no: 2, file_name: 'c.csv', load_id: null },
    ]);

    await engine.transaction((tx) => tx.joinHoldSet(41, 1, 42));
    const join = db.calls.find((c): c is ExecuteCall => c.kind === 'execute' && c.sql === oracleQuery('hold_set_join'));
    expect(values(join?.binds ?? {})).toEqual({ set_id: 41, file_no: 1, load_id: 42 });

    const sets = await engine.transaction((tx) => tx.holdSets([41, 42, 41]));
    expect(sets).toEqual([
      { setId: 41, fileNo: 0, fileName: 'a.csv', loadId: 41, restage: false },
      { setId: 41, fileNo: 1, fileName: 'b.csv', loadId: 42, restage: false },
      { setId: 50, fileNo: 0, fileName: 'a.csv', loadId: 41, restage: true },
    ]);
    expect(await engine.transaction((tx) => tx.allHoldSets())).toEqual(sets);
    await engine.transaction((tx) => tx.restageHoldSet(50));
    const marked = db.calls.find((c): c is ExecuteCall => c.kind === 'execute' && c.sql === oracleQuery('hold_set_restage'));
    expect(values(marked?.binds ?? {})).toEqual({ set_id: 50 });
    const reads = db.calls.filter((c): c is ExecuteCall => c.kind === 'execute' && c.sql === oracleQuery('hold_sets'));
    expect(reads.map((c) => values(c.binds))).toEqual([{ load_id: 41 }, { load_id: 42 }]);

    await engine.transaction((tx) => tx.endHoldSets([41, 42], [41, 50]));
    const ends = db.calls.filter(
      (c): c is ExecuteCall =>
        c.kind === 'execute' && (c.sql === oracleQuery('hold_set_release') || c.sql === oracleQuery('hold_set_forget')),
    );
    expect(ends.map((c) => [c.sql === oracleQuery('hold_set_forget') ? 'forget' : 'release', values(c.binds)])).toEqual([
      ['release', { load_id: 41 }],
      ['release', { load_id: 42 }],
      ['forget', { set_id: 41 }],
      ['forget', { set_id: 50 }],
    ]);
    // each in the caller's transaction, committed with it
    expect(db.calls.filter((c) => c.kind === 'commit')).toHaveLength(6);
  });
});
