/**
 * The sets a run stages again and where their loads stand in load order
 * (src/pipeline/restaged-sets.ts): a file of such a set counts as begun at its set's load of it,
 * and yields to the loads begun after that one, except its set's own and this run's begun no later.
 */
import { describe, expect, it } from 'vitest';
import type { HoldSetFile } from '../../src/engine/types.js';
import { notLaterLoads, restagedBegan, restagingSets } from '../../src/pipeline/restaged-sets.js';

function set(setId: number, files: Array<[string, number | null]>, restage = true): HoldSetFile[] {
  return files.map(([fileName, loadId], fileNo) => ({ setId, fileNo, fileName, loadId, restage: restage && fileNo === files.length - 1 }));
}

// a killed `load inbox/` of m0, m1, m2 (load 1 on m0), then `load inbox/m2.csv` (load 3, joined: restage)
const killed = set(1, [
  ['m0.csv', 1],
  ['m1.csv', null],
  ['m2.csv', 3],
]);

describe('restagingSets', () => {
  it('a set marked restage that the run stages whole: its names in order, its loads, the first of them', () => {
    const [found, ...rest] = restagingSets(killed, ['a.csv', 'm0.csv', 'm1.csv', 'm2.csv']);
    expect(rest).toEqual([]);
    expect(found).toMatchObject({ setId: 1, names: ['m0.csv', 'm1.csv', 'm2.csv'], loads: [1, 3], began: 1 });
    expect([...(found?.loadOf ?? [])]).toEqual([
      ['m0.csv', 1],
      ['m2.csv', 3],
    ]);
  });

  it('not a set the run stages only part of, nor one not marked, nor one that holds no load any more', () => {
    expect(restagingSets(killed, ['m0.csv', 'm2.csv'])).toEqual([]);
    const names = ['m0.csv', 'm1.csv', 'm2.csv'];
    expect(
      restagingSets(
        set(
          1,
          [
            ['m0.csv', 1],
            ['m1.csv', null],
            ['m2.csv', 3],
          ],
          false,
        ),
        names,
      ),
    ).toEqual([]);
    expect(
      restagingSets(
        set(1, [
          ['m0.csv', null],
          ['m1.csv', null],
          ['m2.csv', null],
        ]),
        names,
      ),
    ).toEqual([]);
  });

  it('two sets: in the order their first loads began', () => {
    const later = set(9, [
      ['x.csv', 4],
      ['y.csv', 9],
    ]);
    expect(restagingSets([...later, ...killed], ['m0.csv', 'm1.csv', 'm2.csv', 'x.csv', 'y.csv']).map((s) => s.setId)).toEqual([1, 9]);
  });
});

describe('restagedBegan', () => {
  it("at the set's load of the file, not at the load its history names (a killed rerun's restage of it)", () => {
    const sets = restagingSets(killed, ['m0.csv', 'm1.csv', 'm2.csv']);
    expect(restagedBegan('m0.csv', 7, sets)).toEqual({ began: 1, setIds: [1] });
    expect(restagedBegan('m2.csv', 3, sets)).toEqual({ began: 3, setIds: [1] });
  });

  it('a file whose place in the set began no load: at the load its history names', () => {
    const sets = restagingSets(killed, ['m0.csv', 'm1.csv', 'm2.csv']);
    expect(restagedBegan('m1.csv', 8, sets)).toEqual({ began: 8, setIds: [1] });
    expect(restagedBegan('other.csv', 5, sets)).toEqual({ began: 5, setIds: [] });
  });
});

describe('notLaterLoads', () => {
  const sets = restagingSets(killed, ['m0.csv', 'm1.csv', 'm2.csv']);

  it("a file of the set: not its set's loads (earlier, and this run's of it), but every other later load", () => {
    // this run staged m0 again as load 20 and m1 as the new load 21; a.csv (load 2) is no load of it
    const runLoads = [
      { loadId: 20, began: 1, setIds: [1] },
      { loadId: 21, began: null, setIds: [1] },
    ];
    expect(notLaterLoads(3, [1], sets, runLoads)).toEqual([20, 21]);
    expect(notLaterLoads(1, [1], sets, [])).toEqual([3]);
  });

  it("a resumed load: this run's loads that stand no later than it, and none of a set it is not of", () => {
    const runLoads = [
      { loadId: 20, began: 1, setIds: [1] },
      { loadId: 21, began: null, setIds: [1] },
      { loadId: 22, began: 3, setIds: [1] },
    ];
    // resumed load 2: m0 (staged again at load 1) is earlier; m1 (new) and m2 (at load 3) are later
    expect(notLaterLoads(2, [], sets, runLoads)).toEqual([20]);
    expect(notLaterLoads(2, [], sets, [])).toEqual([]);
  });
});
