/**
 * The release rule of a run's holds (src/pipeline/load-holds.ts): a run whose staging ended
 * releases a load's HELD rows only if it staged every file of every set that holds the load, by
 * base name; and what a run says of the rows it may not release.
 */
import { describe, expect, it } from 'vitest';
import type { HoldSetFile } from '../../src/engine/types.js';
import { decideRelease, finishedSets, foreignHold, strandedMessage } from '../../src/pipeline/load-holds.js';

/** The files of set `setId`: [name, load it holds through that file or null]. */
function set(setId: number, files: Array<[string, number | null]>, restage = false): HoldSetFile[] {
  return files.map(([fileName, loadId], fileNo) => ({ setId, fileNo, fileName, loadId, restage }));
}

describe('decideRelease', () => {
  it('no set holds the loads: every load is released', () => {
    expect(decideRelease([1, 2, 2], [], ['a.csv', 'b.csv'])).toEqual({ release: [1, 2], blocked: new Map(), covered: [] });
  });

  it('a killed run of a, b and c: the same three files again (in any order) release its loads', () => {
    const killed = set(10, [
      ['a.csv', 10],
      ['b.csv', 11],
      ['c.csv', null],
    ]);
    expect(decideRelease([10, 11, 20], killed, ['c.csv', 'a.csv', 'b.csv']).release).toEqual([10, 11, 20]);
  });

  it('a.csv alone after that killed run: its load stays held, with the files of the set it did not stage', () => {
    const killed = set(10, [
      ['a.csv', 10],
      ['b.csv', 11],
      ['c.csv', null],
    ]);
    const decision = decideRelease([10], killed, ['a.csv']);
    expect(decision.release).toEqual([]);
    expect(decision.blocked).toEqual(new Map([[10, ['b.csv', 'c.csv']]]));
  });

  it('a load the partial set does not hold is released; one it holds is not', () => {
    const killed = set(10, [
      ['a.csv', 10],
      ['b.csv', null],
    ]);
    const decision = decideRelease([10, 30], killed, ['a.csv', 'd.csv']);
    expect(decision.release).toEqual([30]);
    expect([...decision.blocked.keys()]).toEqual([10]);
  });

  it('a name the set has twice (two folders) must be staged twice', () => {
    const killed = set(10, [
      ['a.csv', 10],
      ['a.csv', 11],
    ]);
    expect(decideRelease([10], killed, ['a.csv']).blocked).toEqual(new Map([[10, ['a.csv']]]));
    expect(decideRelease([10, 11], killed, ['a.csv', 'a.csv']).release).toEqual([10, 11]);
  });

  it('every set that holds a load counts: the missing files of each, once each', () => {
    const first = set(10, [
      ['a.csv', 10],
      ['b.csv', 11],
      ['c.csv', null],
    ]);
    const second = set(20, [
      ['a.csv', 10],
      ['c.csv', null],
      ['d.csv', null],
    ]);
    const decision = decideRelease([10, 11], [...first, ...second], ['a.csv', 'b.csv']);
    expect(decision.blocked).toEqual(
      new Map([
        [10, ['c.csv', 'd.csv']],
        [11, ['c.csv']],
      ]),
    );
  });

  it("the run's own set: covered when it staged each file of it; a file it left keeps the set's holds", () => {
    const own = set(40, [
      ['a.csv', 40],
      ['b.csv', 41],
    ]);
    expect(decideRelease([40, 41], own, ['a.csv', 'b.csv'])).toEqual({ release: [40, 41], blocked: new Map(), covered: [40] });
    const left = decideRelease([40], own.slice(0, 1).concat({ ...own[1]!, loadId: null }), ['a.csv']);
    expect(left).toEqual({ release: [], blocked: new Map([[40, ['b.csv']]]), covered: [] });
  });
});

describe('foreignHold', () => {
  const killed = set(10, [
    ['a.csv', 10],
    ['b.csv', 11],
    ['c.csv', null],
  ]);

  it('a run of part of a killed set: a load the set holds, and a file it had not begun, are held whole', () => {
    expect(foreignHold(killed, ['a.csv'], 'in/a.csv', 10)).toEqual({ wholeHold: true, join: [], restage: false });
    expect(foreignHold(killed, ['c.csv'], 'in/c.csv', 30)).toEqual({ wholeHold: true, join: [{ setId: 10, fileNo: 2 }], restage: false });
    // staged whole before (skipped): its lines are in, it takes no place the set's run had not begun
    expect(foreignHold(killed, ['c.csv'], 'in/c.csv', 30, { stagedWhole: true })).toEqual({ wholeHold: false, join: [], restage: false });
  });

  it('a file whose load in the set committed nothing (killed before its first batch): its new load takes that place', () => {
    expect(foreignHold(killed, ['a.csv'], 'in/a.csv', 30, { emptied: new Set([10]) })).toEqual({
      wholeHold: true,
      join: [{ setId: 10, fileNo: 0 }],
      restage: false,
    });
    // another file's emptied load, or the file's in a set the run stages whole: no place taken
    expect(foreignHold(killed, ['b.csv'], 'in/b.csv', 30, { emptied: new Set([10]) })).toEqual({
      wholeHold: false,
      join: [],
      restage: false,
    });
    expect(foreignHold(killed, ['a.csv', 'b.csv', 'c.csv'], 'in/a.csv', 30, { emptied: new Set([10]) })).toEqual({
      wholeHold: false,
      join: [],
      restage: false,
    });
  });

  it('another file, or another load of a begun file (a changed a.csv), is not held by the set', () => {
    expect(foreignHold(killed, ['a.csv', 'd.csv'], 'in/d.csv', 30)).toEqual({ wholeHold: false, join: [], restage: false });
    expect(foreignHold(killed, ['a.csv'], 'in/a.csv', 30)).toEqual({ wholeHold: false, join: [], restage: false });
  });

  it('a set whose loads were all given up (recover) holds nothing, but is still staged again in order once marked', () => {
    const givenUp = set(
      10,
      [
        ['a.csv', null],
        ['b.csv', null],
        ['c.csv', null],
      ],
      true,
    );
    expect(foreignHold(givenUp, ['c.csv'], 'in/c.csv', 30)).toEqual({ wholeHold: false, join: [], restage: false });
    expect(foreignHold(givenUp, ['a.csv', 'b.csv', 'c.csv'], 'in/c.csv', 30).restage).toBe(true);
  });

  it('a run of the whole set: nothing held whole; its files staged again only once a part staged the set out of order', () => {
    expect(foreignHold(killed, ['a.csv', 'b.csv', 'c.csv'], 'in/b.csv', 11)).toEqual({ wholeHold: false, join: [], restage: false });
    const touched = set(
      10,
      [
        ['a.csv', 10],
        ['b.csv', 11],
        ['c.csv', 30],
      ],
      true,
    );
    expect(foreignHold(touched, ['a.csv', 'b.csv', 'c.csv', 'd.csv'], 'in/a.csv', 10)).toEqual({
      wholeHold: false,
      join: [],
      restage: true,
    });
    expect(foreignHold(touched, ['a.csv', 'b.csv', 'c.csv', 'd.csv'], 'in/d.csv', 40).restage).toBe(false);
  });
});

describe('finishedSets', () => {
  it('a set staged whole whose every load the run released; not one that still holds a load it did not release', () => {
    const sets = [
      ...set(10, [
        ['a.csv', 10],
        ['b.csv', null],
      ]),
      ...set(20, [
        ['a.csv', 21],
        ['c.csv', 22],
      ]),
    ];
    expect(finishedSets(sets, ['a.csv', 'b.csv', 'c.csv'], [10, 22])).toEqual([10]);
    expect(finishedSets(sets, ['a.csv', 'b.csv', 'c.csv'], [10, 21, 22])).toEqual([10, 20]);
    expect(finishedSets(sets, ['a.csv'], [10, 21, 22])).toEqual([]);
  });

  it('a set read twice counts once, as read last', () => {
    const before = set(10, [
      ['a.csv', 10],
      ['b.csv', null],
    ]);
    const after = set(10, [
      ['a.csv', 10],
      ['b.csv', 11],
    ]);
    expect(finishedSets([...before, ...after], ['a.csv', 'b.csv'], [10])).toEqual([]);
    expect(finishedSets([...before, ...after], ['a.csv', 'b.csv'], [10, 11])).toEqual([10]);
  });
});

describe('strandedMessage', () => {
  const since = new Date('2026-12-01T00:00:00Z');

  it('a load of the run that a set it did not stage whole holds: which files, and what releases the rows', () => {
    expect(
      strandedMessage({ file: 'in/a.csv', loadId: 7, rows: 1, heldSince: since, heldFile: 'in/a.csv', missing: ['b.csv', 'c.csv'] }),
    ).toBe(
      'in/a.csv: 1 row of load 7 is still HELD, out of processing: a run that staged this file with other files was stopped before it staged them all, and this run did not stage b.csv, c.csv of that set. Loading the whole set again releases them; `order-loader recover --older-than <less than their age>` gives them up (audited) and hands them to processing',
    );
  });

  it('a long list of missing files is cut to its first five', () => {
    const missing = ['1.csv', '2.csv', '3.csv', '4.csv', '5.csv', '6.csv', '7.csv'];
    expect(strandedMessage({ file: 'a.csv', loadId: 7, rows: 3, heldSince: since, heldFile: 'a.csv', missing })).toMatch(
      /^a\.csv: 3 rows of load 7 are still HELD, .* did not stage 1\.csv, 2\.csv, 3\.csv, 4\.csv, 5\.csv and 2 more of that set\./,
    );
  });
});
