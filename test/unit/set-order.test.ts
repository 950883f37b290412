/**
 * The order a run stages its files in (src/pipeline/set-order.ts): the files of every unfinished
 * set it stages whole in the set's order, the command line's order otherwise.
 */
import { describe, expect, it } from 'vitest';
import type { HoldSetFile } from '../../src/engine/types.js';
import { resumeOrder, setOrder, setOrderMessage } from '../../src/pipeline/set-order.js';

/** The files of set `setId` in its order: [name, load it holds through that file or null]. */
function set(setId: number, files: Array<[string, number | null]>): HoldSetFile[] {
  return files.map(([fileName, loadId], fileNo) => ({ setId, fileNo, fileName, loadId, restage: false }));
}

describe('setOrder', () => {
  it('no set: the command line order', () => {
    expect(setOrder(['in/b.csv', 'in/a.csv'], [])).toEqual({ paths: ['in/b.csv', 'in/a.csv'], sets: [] });
  });

  it('the whole set of a killed `load a.csv b.csv` named as b.csv a.csv: staged a.csv, b.csv', () => {
    const killed = set(7, [
      ['a.csv', 7],
      ['b.csv', null],
    ]);
    expect(setOrder(['in/b.csv', 'in/a.csv'], killed)).toEqual({ paths: ['in/a.csv', 'in/b.csv'], sets: [7] });
  });

  it('named in the set order: nothing moves and no set is named', () => {
    const killed = set(7, [
      ['a.csv', 7],
      ['b.csv', null],
    ]);
    expect(setOrder(['x/a.csv', 'y/b.csv', 'c.csv'], killed)).toEqual({ paths: ['x/a.csv', 'y/b.csv', 'c.csv'], sets: [] });
  });

  it('part of the set (b.csv and a new c.csv): not reordered, the part is held instead', () => {
    const killed = set(7, [
      ['a.csv', 7],
      ['b.csv', null],
      ['z.csv', null],
    ]);
    expect(setOrder(['b.csv', 'a.csv', 'c.csv'], killed).paths).toEqual(['b.csv', 'a.csv', 'c.csv']);
  });

  it('the set with new files: the set in its order, the new files where the command line put them as far as it allows', () => {
    const killed = set(7, [
      ['a.csv', 7],
      ['b.csv', null],
    ]);
    expect(setOrder(['n1.csv', 'b.csv', 'n2.csv', 'a.csv', 'n3.csv'], killed).paths).toEqual([
      'n1.csv',
      'n2.csv',
      'a.csv',
      'b.csv',
      'n3.csv',
    ]);
  });

  it('two files of one name (two folders): the k-th of the set is the run k-th of that name', () => {
    const killed = set(3, [
      ['a.csv', 3],
      ['b.csv', null],
      ['a.csv', null],
    ]);
    expect(setOrder(['x/b.csv', 'x/a.csv', 'y/a.csv'], killed).paths).toEqual(['x/a.csv', 'x/b.csv', 'y/a.csv']);
  });

  it('two sets that agree are both kept; two that disagree: the earlier set wins', () => {
    const first = set(2, [
      ['a.csv', 2],
      ['b.csv', null],
    ]);
    const second = set(5, [
      ['b.csv', 6],
      ['c.csv', null],
    ]);
    expect(setOrder(['c.csv', 'b.csv', 'a.csv'], [...second, ...first])).toEqual({ paths: ['a.csv', 'b.csv', 'c.csv'], sets: [2, 5] });
    const opposite = set(9, [
      ['b.csv', 9],
      ['a.csv', null],
    ]);
    expect(setOrder(['b.csv', 'a.csv'], [...opposite, ...first]).paths).toEqual(['a.csv', 'b.csv']);
  });

  it('says the order it stages and why', () => {
    expect(setOrderMessage({ paths: ['in/a.csv', 'in/b.csv'], sets: [7] })).toBe(
      'staging the files in the order a.csv, b.csv: the file set of run 7, stopped before its staging ended, lists them so, and its lines count in that order (the command line named them in another order)',
    );
  });
});

describe('resumeOrder: load order is the order in which loads begin', () => {
  it('a file that resumes an earlier load goes before the files new to the run', () => {
    const ordered = { paths: ['in/a.csv', 'in/b.csv', 'in/c.csv'], sets: [] };
    expect(resumeOrder(ordered, new Map([['in/b.csv', 12]]))).toEqual({
      paths: ['in/b.csv', 'in/a.csv', 'in/c.csv'],
      sets: [],
      resumed: [{ path: 'in/b.csv', loadId: 12 }],
    });
  });

  it('two resumed files in the order their loads began, whatever order the run had them in', () => {
    const ordered = { paths: ['a.csv', 'b.csv', 'c.csv', 'd.csv'], sets: [4] };
    expect(
      resumeOrder(
        ordered,
        new Map([
          ['d.csv', 8],
          ['b.csv', 20],
        ]),
      ),
    ).toEqual({
      paths: ['d.csv', 'b.csv', 'a.csv', 'c.csv'],
      sets: [4],
      resumed: [
        { path: 'd.csv', loadId: 8 },
        { path: 'b.csv', loadId: 20 },
      ],
    });
  });

  it('nothing resumed, or the resumed files first already: the same order, nothing said', () => {
    const ordered = { paths: ['b.csv', 'a.csv'], sets: [] };
    expect(resumeOrder(ordered, new Map())).toBe(ordered);
    expect(resumeOrder(ordered, new Map([['b.csv', 3]]))).toBe(ordered);
  });

  it("the files of a set staged again go first, in the order they have, at the set's first load", () => {
    const ordered = { paths: ['in/a.csv', 'in/m0.csv', 'in/m1.csv', 'in/m2.csv', 'in/z.csv'], sets: [] };
    const restaged = [{ setId: 1, loadId: 4, paths: ['in/m0.csv', 'in/m1.csv', 'in/m2.csv'] }];
    expect(resumeOrder(ordered, new Map([['in/z.csv', 9]]), restaged)).toEqual({
      paths: ['in/m0.csv', 'in/m1.csv', 'in/m2.csv', 'in/z.csv', 'in/a.csv'],
      sets: [],
      resumed: [{ path: 'in/z.csv', loadId: 9 }],
      restaged,
    });
    // a resumed load begun before the set's first load goes before the set
    expect(resumeOrder(ordered, new Map([['in/z.csv', 2]]), restaged).paths).toEqual([
      'in/z.csv',
      'in/m0.csv',
      'in/m1.csv',
      'in/m2.csv',
      'in/a.csv',
    ]);
    // a file of two sets goes with the first; a set already first is not said
    const first = { paths: ['in/m0.csv', 'in/m1.csv', 'in/a.csv'], sets: [] };
    expect(resumeOrder(first, new Map(), [{ setId: 1, loadId: 4, paths: ['in/m0.csv', 'in/m1.csv'] }])).toBe(first);
    expect(
      resumeOrder(ordered, new Map(), [
        { setId: 1, loadId: 4, paths: ['in/m1.csv'] },
        { setId: 5, loadId: 6, paths: ['in/m1.csv', 'in/m2.csv'] },
      ]).restaged,
    ).toEqual([
      { setId: 1, loadId: 4, paths: ['in/m1.csv'] },
      { setId: 5, loadId: 6, paths: ['in/m2.csv'] },
    ]);
  });

  it('says which sets are staged again, and at which load', () => {
    expect(
      setOrderMessage({
        paths: ['in/b.csv', 'in/m0.csv', 'in/m1.csv', 'in/a.csv'],
        sets: [],
        resumed: [{ path: 'in/b.csv', loadId: 2 }],
        restaged: [{ setId: 1, loadId: 4, paths: ['in/m0.csv', 'in/m1.csv'] }],
      }),
    ).toBe(
      'staging the files in the order b.csv, m0.csv, m1.csv, a.csv: b.csv resumes load 2, the file set of run 1 (m0.csv, m1.csv) is staged again in its order at its load 4, begun by a run stopped before its staging ended: load order is the order loads begin, so a set staged again, as a resumed load, is staged before the loads this run begins (the command line named them in another order)',
    );
  });

  it('says which files resume which loads', () => {
    expect(setOrderMessage({ paths: ['in/b.csv', 'in/a.csv'], sets: [], resumed: [{ path: 'in/b.csv', loadId: 12 }] })).toBe(
      'staging the files in the order b.csv, a.csv: b.csv resumes load 12, begun by a run stopped before its staging ended: load order is the order loads begin, so a resumed load is staged before the loads this run begins (the command line named them in another order)',
    );
  });
});
