import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changedSinceListed, expandInputs, isOrderFileName } from '../../src/input/inputs.js';
import { UserError } from '../../src/errors.js';
import { tempDir } from '../support/files.js';

function inbox(names: string[]): string {
  const dir = tempDir();
  for (const name of names) writeFileSync(join(dir, name), 'x');
  return dir;
}

describe('inputs: files, directories and patterns', () => {
  it('a directory: its order files in name order (code points), hidden files, partial uploads and subdirectories left alone', () => {
    const dir = inbox(['b.csv', 'a.csv.gz', 'B.csv', '.hidden.csv', 'c.csv.part', 'd.csv.tmp', 'e.csv~', 'f.partial', 'notes.txt']);
    mkdirSync(join(dir, 'archive'));
    writeFileSync(join(dir, 'archive', 'old.csv'), 'x');
    const { files } = expandInputs([dir]);
    expect(files.map((f) => f.path)).toEqual(['B.csv', 'a.csv.gz', 'b.csv', 'notes.txt'].map((n) => join(dir, n)));
    expect(files[0]).toMatchObject({ size: 1, mtimeMs: expect.any(Number) as unknown });
  });

  it('a pattern: * and ? in the file name, the same names left alone; a file named twice is read once', () => {
    const dir = inbox(['orders-1.csv', 'orders-22.csv', 'orders-3.csv.part', '.orders-4.csv', 'other.csv', 'orders-x.txt', 'orders-.csv']);
    expect(expandInputs([join(dir, 'orders-*.csv')]).files.map((f) => f.path)).toEqual(
      ['orders-.csv', 'orders-1.csv', 'orders-22.csv'].map((n) => join(dir, n)),
    );
    expect(expandInputs([join(dir, 'orders-?.csv')]).files.map((f) => f.path)).toEqual([join(dir, 'orders-1.csv')]);
    expect(expandInputs([join(dir, 'orders-1.csv'), join(dir, 'orders-?.csv')]).files).toHaveLength(1);
    // regular-expression characters in a pattern are themselves
    expect(expandInputs([join(dir, 'orders-[12]*.csv')]).files).toEqual([]);
    expect(expandInputs([join(dir, 'orders-?+.csv')]).files).toEqual([]);
  });

  it('an empty directory or a pattern matching nothing names no file; a missing file or a pattern in a directory part is refused', () => {
    const dir = inbox([]);
    expect(expandInputs([dir]).files).toEqual([]);
    expect(expandInputs([join(dir, '*.csv')]).files).toEqual([]);
    expect(() => expandInputs([join(dir, 'missing.csv')])).toThrow(new UserError(`${join(dir, 'missing.csv')}: no such file`));
    expect(() => expandInputs([join(dir, '*', 'x.csv')])).toThrow(/only the file name may hold \* or \?/);
  });

  it('the names taken', () => {
    expect(['a.csv', 'a.csv.gz', 'x'].every(isOrderFileName)).toBe(true);
    expect(['.a.csv', 'a.part', 'a.tmp', 'a.partial', 'a.crdownload', 'a~', '.order-loader-inbox.lock'].some(isOrderFileName)).toBe(false);
  });

  it('a file whose size or modification time changed since it was listed is being written', () => {
    const dir = inbox(['a.csv']);
    const [listed] = expandInputs([dir]).files;
    expect(changedSinceListed(listed!)).toBeNull();
    writeFileSync(join(dir, 'a.csv'), 'xy');
    expect(changedSinceListed(listed!)).toMatch(/a\.csv: still being written \(size 1 → 2 bytes since it was listed\): skipped this time$/);
  });
});
