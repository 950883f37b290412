/**
 * guess's layout detectors (src/input/guess/layout.ts) on the cases the reader group's tests did
 * not reach: fixed-width fields apart by blank columns, the record type column, units of width,
 * comment marks, ties between field counts and the blank lines around a trailer.
 */
import { describe, expect, it } from 'vitest';
import {
  delimiterCandidates,
  fixedLayout,
  framing,
  hashComments,
  isConsistent,
  sliceUnits,
  splitLines,
  unitWidth,
} from '../../src/input/guess/layout.js';

describe('fixed width', () => {
  it('fields apart by blank columns: each blank run is a boundary, a field reaching to the next one', () => {
    const lines = ['JP-1  501 令和8年12月1日   1,200円', 'JP-22 502 令和8年12月2日     980円', 'JP-3  503 令和8年12月3日  12,000円'];
    expect(fixedLayout(lines, 'utf-8')).toEqual({
      units: 'chars',
      fields: [
        [1, 6],
        [7, 4],
        [11, 11],
        [22, 7],
      ],
      recordType: null,
      records: lines,
      widths: [28, 28],
    });
  });

  it('a record type column: its own field, the header and trailer lines left out of the records', () => {
    const f = fixedLayout(['H HEADER', 'D0001  1200 ABC', '', 'D0002   980 XYZ', 'T 2'], 'utf-8');
    expect(f).toEqual({
      units: 'chars',
      fields: [
        [1, 1],
        [2, 6],
        [8, 5],
        [13, 3],
      ],
      recordType: { equals: 'D', others: ['H', 'T'] },
      records: ['D0001  1200 ABC', 'D0002   980 XYZ'],
      widths: [15, 15],
    });
  });

  it('records of different lengths: the widths are the shortest and the longest', () => {
    const f = fixedLayout(['A1  10  X', 'A2  20  XY', 'A3  300 XYZ'], 'utf-8');
    expect(f?.widths).toEqual([9, 11]);
  });

  it('no record type when the first characters are not one letter or digit most lines share, or are too many', () => {
    expect(fixedLayout(['-0001  1200 ABC', '-0002   980 XYZ', '+ 2'], 'utf-8')?.recordType).toBeNull();
    const five = ['A0001  1200 ABC', 'B0002   980 XYZ', 'C0003   970 XYZ', 'D0004   960 XYZ', 'E0005   950 XYZ'];
    expect(fixedLayout(five, 'utf-8')?.recordType).toBeNull();
    // one first character on every line: no other record kind to tell apart
    expect(fixedLayout(['D0001  1200 ABC', 'D0002   980 XYZ'], 'utf-8')?.recordType).toBeNull();
  });

  it('no layout from blank lines, nor from lines of one kind of character', () => {
    expect(fixedLayout(['', '   '], 'utf-8')).toBeNull();
    expect(fixedLayout(['aaaa', 'bbbb'], 'utf-8')).toBeNull();
  });

  it('boundaries where the kind of character changes: digits, letters, other ASCII, non-ASCII', () => {
    expect(fixedLayout(['1234abcd', '5678efgh'], 'utf-8')?.fields).toEqual([
      [1, 4],
      [5, 4],
    ]);
    expect(fixedLayout(['ab__cd', 'ef__gh'], 'utf-8')?.fields).toEqual([
      [1, 2],
      [3, 2],
      [5, 2],
    ]);
    expect(fixedLayout(['ab注文', 'cdé文'], 'utf-8')?.fields).toEqual([
      [1, 2],
      [3, 2],
    ]);
    // a full-width space is blank as an ASCII one
    expect(fixedLayout(['ab\u3000\u300012', 'cd\u3000\u300034'], 'utf-8')?.fields).toEqual([
      [1, 4],
      [5, 2],
    ]);
  });

  it('a field some records leave blank after one every record fills', () => {
    const pairs = (...n: number[]) => n.map((start, i) => [start, (n[i + 1] ?? 6) - start]);
    // digits, then letters some records leave blank
    expect(fixedLayout(['X12ab', 'X34  ', 'X56cd'], 'utf-8')?.fields).toEqual(pairs(1, 2, 4));
    // letters, then digits some records leave blank
    expect(fixedLayout(['Xxy12', 'Xzw  ', 'Xuv34'], 'utf-8')?.fields).toEqual(pairs(1, 4));
    // digits, then digits some records leave blank (an amount's width differs)
    expect(fixedLayout(['X1234', 'X12  ', 'X5678'], 'utf-8')?.fields).toEqual(pairs(1, 2, 4));
    // letters, then letters some records leave blank: one text field, padded
    expect(fixedLayout(['Xxyab', 'Xzw  ', 'Xuvcd'], 'utf-8')).toBeNull();
  });

  it('counts width in bytes for Shift_JIS (half-width kana one byte) and EUC-JP, in characters otherwise', () => {
    expect(unitWidth('a', 'shift_jis', 'bytes')).toBe(1);
    expect(unitWidth('\u007f', 'shift_jis', 'bytes')).toBe(1);
    expect(unitWidth('\u0080', 'shift_jis', 'bytes')).toBe(2);
    expect(unitWidth('ｱ', 'shift_jis', 'bytes')).toBe(1);
    expect(unitWidth('ﾟ', 'shift_jis', 'bytes')).toBe(1);
    expect(unitWidth('｠', 'shift_jis', 'bytes')).toBe(2);
    expect(unitWidth('注', 'euc-jp', 'bytes')).toBe(2);
    expect(unitWidth('é', 'windows-1252', 'bytes')).toBe(1);
    expect(unitWidth('é', 'utf-8', 'bytes')).toBe(2);
    expect(unitWidth('注', 'utf-8', 'chars')).toBe(1);
  });

  it('slices a field by units, trimmed', () => {
    expect(sliceUnits('ab注文cd', 3, 4, 'shift_jis', 'bytes')).toBe('注文');
    expect(sliceUnits('ab注文cd', 3, 2, 'shift_jis', 'bytes')).toBe('注');
    expect(sliceUnits('ab注文cd', 3, 2, 'utf-8', 'chars')).toBe('注文');
    expect(sliceUnits('  12  xy', 1, 6, 'utf-8', 'chars')).toBe('12');
    expect(sliceUnits('abcdef', 2, 3, 'utf-8', 'chars')).toBe('bcd');
  });
});

describe('delimited lines', () => {
  it('lines starting with # are comments when fewer than half of the filled lines', () => {
    expect(hashComments(['# exported', 'a,b', '1,2'])).toBe(true);
    // blank lines are not counted: one comment beside one record is not a minority
    expect(hashComments(['# exported', 'a,b', '', '  ', ''])).toBe(false);
    expect(hashComments(['#1001,a', '#1002,b', 'x,y'])).toBe(false);
    expect(hashComments(['a,b', '1,2'])).toBe(false);
  });

  it('comment lines are not counted by the delimiter candidates', () => {
    expect(delimiterCandidates(['# a;b;c;d', 'x;y', '1;2', '3;4'])).toEqual([{ delimiter: ';', fields: 2, lines: 3, of: 3 }]);
  });

  it('a tie between two field counts: the larger, whichever comes first', () => {
    expect(delimiterCandidates(['a,b', 'a,b,c'])[0]).toMatchObject({ fields: 3, lines: 1, of: 2 });
    expect(delimiterCandidates(['a,b,c', 'a,b'])[0]).toMatchObject({ fields: 3, lines: 1, of: 2 });
  });

  it('consistent: 60% of the lines and at least two of them, or the only line', () => {
    expect(isConsistent({ delimiter: ',', fields: 2, lines: 2, of: 3 })).toBe(true);
    expect(isConsistent({ delimiter: ',', fields: 2, lines: 2, of: 4 })).toBe(false);
    expect(isConsistent({ delimiter: ',', fields: 2, lines: 1, of: 1 })).toBe(true);
    expect(isConsistent({ delimiter: ',', fields: 2, lines: 1, of: 2 })).toBe(false);
  });

  it('the trailer skips blank lines after it and around it; the records skip blank and comment lines', () => {
    expect(framing(['a,b', '1,2', '3,4', '', 'END', ' '], ',', 2)).toEqual({
      banner: 0,
      trailer: ['END'],
      comment: false,
      records: ['a,b', '1,2', '3,4'],
    });
    expect(framing(['# c', 'a,b', '', '# d', '1,2', '3,4', '', ''], ',', 2)).toEqual({
      banner: 1,
      trailer: [],
      comment: true,
      records: ['a,b', '1,2', '3,4'],
    });
    // one record: no trailer is taken from the lines before it
    expect(framing(['a,b'], ',', 2)).toMatchObject({ banner: 0, trailer: [], records: ['a,b'] });
  });

  it('splits CR, LF and CRLF line ends, a last line without an end kept', () => {
    expect(splitLines('a\rb\r\nc\nd')).toEqual({ lines: ['a', 'b', 'c', 'd'], endings: { crlf: 1, lf: 1, cr: 1 } });
  });
});
