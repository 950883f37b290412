/**
 * The sets a run stages again and where their loads stand in load order
 * (src/pipeline/restaged-sets.ts): a file of such a set counts as begun at the set's first load,
 * at its place in the set, and yields to the loads begun after that one, not to those that stand no later.
 */
import { describe, expect, it } from 'vitest';
import type { HoldSetFile } from '../../src/engine/types.js';
import { derivedPlaces, notAfter, notLaterLoads, partPlace, restagedPlace, restagingSets } from '../../src/pipeline/restaged-sets.js';

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
    expect([...(found?.placesOf ?? [])]).toEqual([
      ['m0.csv', [1]],
      ['m1.csv', [2]],
      ['m2.csv', [3]],
    ]);
    expect([...(found?.loadsAt ?? [])]).toEqual([
      ['m0.csv', [1]],
      ['m1.csv', [null]],
      ['m2.csv', [3]],
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

describe('restagedPlace', () => {
  const sets = restagingSets(killed, ['m0.csv', 'm1.csv', 'm2.csv']);

  it("at the set's first load, at the file's place in the set: also a file the set never began, and one a part loaded alone", () => {
    expect(restagedPlace('m0.csv', 0, sets)?.position).toEqual({ began: 1, place: 1 });
    expect(restagedPlace('m1.csv', 0, sets)?.position).toEqual({ began: 1, place: 2 });
    expect(restagedPlace('m2.csv', 0, sets)?.position).toEqual({ began: 1, place: 3 });
    expect(restagedPlace('other.csv', 0, sets)).toBeUndefined();
  });

  it('the second file of a name the set has twice: at its second place', () => {
    const twice = restagingSets(
      set(4, [
        ['a.csv', 4],
        ['b.csv', 5],
        ['a.csv', null],
      ]),
      ['a.csv', 'b.csv', 'a.csv'],
    );
    expect(restagedPlace('a.csv', 0, twice)?.position).toEqual({ began: 4, place: 1 });
    expect(restagedPlace('a.csv', 1, twice)?.position).toEqual({ began: 4, place: 3 });
  });

  it('a file of two sets: at the first of them to begin', () => {
    const later = set(9, [
      ['m1.csv', 9],
      ['y.csv', 10],
    ]);
    const both = restagingSets([...later, ...killed], ['m0.csv', 'm1.csv', 'm2.csv', 'y.csv']);
    expect(restagedPlace('m1.csv', 0, both)).toMatchObject({ set: { setId: 1 }, position: { began: 1, place: 2 } });
    expect(restagedPlace('y.csv', 0, both)).toMatchObject({ set: { setId: 9 }, position: { began: 9, place: 2 } });
  });

  it("supersedes the loads begun after the set's first at the file's place, of every set staged again that has it", () => {
    expect(restagedPlace('m0.csv', 0, sets)?.supersedes).toEqual([]);
    expect(restagedPlace('m1.csv', 0, sets)?.supersedes).toEqual([]);
    expect(restagedPlace('m2.csv', 0, sets)?.supersedes).toEqual([3]);
    // a killed rerun's set (run 4: m0 resumed load 1, m1 began load 5), joined by the same part
    const rerun = set(4, [
      ['m0.csv', 1],
      ['m1.csv', 5],
      ['m2.csv', 3],
    ]);
    const both = restagingSets([...killed, ...rerun], ['m0.csv', 'm1.csv', 'm2.csv']);
    expect(both.map((s) => s.setId)).toEqual([1, 4]);
    expect(restagedPlace('m1.csv', 0, both)).toMatchObject({ set: { setId: 1 }, position: { began: 1, place: 2 }, supersedes: [5] });
    expect(restagedPlace('m2.csv', 0, both)?.supersedes).toEqual([3]);
  });
});

describe('notLaterLoads', () => {
  // the set of load 1 staged again: m0 as load 20, m1 as 21, m2 as 22; a part's load 3 at itself
  const places = [
    { loadId: 3, began: 3, place: 0 },
    { loadId: 20, began: 1, place: 1 },
    { loadId: 21, began: 1, place: 2 },
    { loadId: 22, began: 1, place: 3 },
  ];

  it("a file of the set: the set's files at or before its place, not the loads begun after the set's first", () => {
    expect(notLaterLoads({ began: 1, place: 2 }, places)).toEqual([20, 21]);
    expect(notLaterLoads({ began: 1, place: 1 }, places)).toEqual([20]);
    expect(notLaterLoads({ began: 1, place: 3 }, places)).toEqual([20, 21, 22]);
  });

  it("a load begun after the set's first (resumed): every file of the set staged again stands before it", () => {
    expect(notLaterLoads({ began: 2, place: 0 }, places)).toEqual([20, 21, 22]);
    expect(notLaterLoads({ began: 3, place: 0 }, places)).toEqual([20, 21, 22]);
    expect(notLaterLoads({ began: 1, place: 0 }, places)).toEqual([]);
    expect(notLaterLoads({ began: 2, place: 0 }, [])).toEqual([]);
  });
});

describe('notAfter', () => {
  it('by the load a position counts as begun at, then by its place', () => {
    expect(notAfter({ began: 1, place: 3 }, { began: 2, place: 0 })).toBe(true);
    expect(notAfter({ began: 2, place: 0 }, { began: 1, place: 3 })).toBe(false);
    expect(notAfter({ began: 1, place: 2 }, { began: 1, place: 2 })).toBe(true);
    expect(notAfter({ began: 1, place: 3 }, { began: 1, place: 2 })).toBe(false);
  });
});

describe('partPlace', () => {
  // a killed `load inbox/` of a, b, c: load 1 on a.csv; a part's load 5 takes b.csv's place
  const joined = [{ setId: 1, fileNo: 1 }];
  const after = (files: Array<[string, number | null]>) => set(1, files);

  it("carries the set on in its order (a.csv's load staged whole): the set's load, at its place", () => {
    const sets = after([
      ['a.csv', 1],
      ['b.csv', 5],
      ['c.csv', null],
    ]);
    expect(partPlace(sets, joined, 5, new Set([1]))).toEqual({ loadId: 5, began: 1, place: 2 });
  });

  it('ahead of an earlier file of the set still unfinished, or never begun: a load of its own, at itself', () => {
    const sets = after([
      ['a.csv', 1],
      ['b.csv', 5],
      ['c.csv', null],
    ]);
    expect(partPlace(sets, joined, 5, new Set())).toEqual({ loadId: 5, began: 5, place: 0 });
    const unbegun = after([
      ['a.csv', null],
      ['b.csv', 1],
      ['c.csv', 5],
    ]);
    expect(partPlace(unbegun, [{ setId: 1, fileNo: 2 }], 5, new Set([1]))).toEqual({ loadId: 5, began: 5, place: 0 });
  });

  it("the set's first file, or the set's first load now: at itself", () => {
    const sets = after([
      ['a.csv', 5],
      ['b.csv', null],
    ]);
    expect(partPlace(sets, [{ setId: 1, fileNo: 0 }], 5, new Set())).toEqual({ loadId: 5, began: 5, place: 0 });
  });

  it('joining two sets: in order in both, at the earlier place; out of order in either, at itself', () => {
    const sets = [
      ...after([
        ['a.csv', 1],
        ['b.csv', 7],
      ]),
      ...set(3, [
        ['a.csv', 3],
        ['b.csv', 7],
      ]),
    ];
    const both = [
      { setId: 3, fileNo: 1 },
      { setId: 1, fileNo: 1 },
    ];
    expect(partPlace(sets, both, 7, new Set([1, 3]))).toEqual({ loadId: 7, began: 1, place: 2 });
    expect(partPlace(sets, both, 7, new Set([1]))).toEqual({ loadId: 7, began: 7, place: 0 });
  });
});

describe('derivedPlaces', () => {
  // the set of load 1 marked restage (`killed`), then a rerun of the inbox killed after it staged
  // m0.csv again as load 4: its own set (4), not a part's, records none of the places
  const rerun = set(
    4,
    [
      ['m0.csv', 4],
      ['m1.csv', null],
      ['m2.csv', null],
    ],
    false,
  );

  it("a killed rerun's load of a set it staged again: at the set's first load, at its file's place", () => {
    expect(derivedPlaces([...killed, ...rerun])).toEqual([{ loadId: 4, began: 1, place: 1 }]);
  });

  it("none from a part's set (marked restage), nor from a set that stages only part of it, nor a second file of a name", () => {
    expect(derivedPlaces(killed)).toEqual([]);
    const part = set(
      5,
      [
        ['m0.csv', 5],
        ['m2.csv', null],
      ],
      false,
    );
    expect(derivedPlaces([...killed, ...part])).toEqual([]);
    const twice = set(
      6,
      [
        ['m0.csv', 6],
        ['m1.csv', 7],
        ['m2.csv', 8],
        ['m2.csv', 9],
      ],
      false,
    );
    expect(derivedPlaces([...killed, ...twice])).toEqual([
      { loadId: 6, began: 1, place: 1 },
      { loadId: 7, began: 1, place: 2 },
      { loadId: 8, began: 1, place: 3 },
    ]);
  });
});
