import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { changedSinceListed, checkInputsExist, expandInputs, isOrderFileName, lastLineUnfinished } from '../../src/input/inputs.js';
import { UserError } from '../../src/errors.js';
import { HEADER, tempDir } from '../support/files.js';

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

describe('inputs: files still being uploaded, and entries that are not files', () => {
  const NOW = Date.now();
  /** Set a file's modification time `secondsAgo` before NOW. */
  const age = (path: string, secondsAgo: number) => {
    const t = new Date(NOW - secondsAgo * 1000);
    utimesSync(path, t, t);
  };

  it('--settle: a file of a directory or pattern modified within the quiet period (or in the future) is left, with its reason', () => {
    const dir = inbox(['old.csv', 'fresh.csv', 'future.csv']);
    age(join(dir, 'old.csv'), 31);
    age(join(dir, 'fresh.csv'), 1);
    age(join(dir, 'future.csv'), -120);
    const rules = { settleMs: 30_000, now: NOW };
    for (const arg of [dir, join(dir, '*.csv')]) {
      const { files, notReady } = expandInputs([arg], rules);
      expect(files.map((f) => f.path)).toEqual([join(dir, 'old.csv')]);
      expect(notReady).toEqual([
        {
          file: join(dir, 'fresh.csv'),
          reason: `${join(dir, 'fresh.csv')}: modified 1 s ago, within the quiet period (--settle 30 s): left for the next run`,
        },
        {
          file: join(dir, 'future.csv'),
          reason: `${join(dir, 'future.csv')}: modified 120 s in the future (another clock?), within the quiet period (--settle 30 s): left for the next run`,
        },
      ]);
    }
    // --settle 0: every file is read
    expect(expandInputs([dir], { settleMs: 0, now: NOW }).files).toHaveLength(3);
  });

  it('a file named on the command line is read at once, unless its last line has no line end within the quiet period', () => {
    const dir = tempDir();
    const complete = join(dir, 'complete.csv');
    const cut = join(dir, 'cut.csv');
    const gz = join(dir, 'cut.csv.gz');
    writeFileSync(complete, `${HEADER}\nK-1,1,2026-01-01,12.34,EUR\n`);
    writeFileSync(cut, `${HEADER}\nK-1,1,2026-01-01,12`);
    writeFileSync(gz, gzipSync(`${HEADER}\nK-1,1,2026-01-01,12`));
    const rules = { settleMs: 30_000, now: NOW };
    for (const path of [complete, cut, gz]) age(path, 1);
    const { files, notReady } = expandInputs([complete, cut, gz], rules);
    expect(files.map((f) => f.path)).toEqual([complete, gz]);
    expect(notReady).toEqual([
      {
        file: cut,
        reason: `${cut}: its last line has no line end and it was modified 1 s ago (--settle 30 s): still being written? left for the next run (--settle 0 reads it now)`,
        named: { quietEndsAt: statSync(cut).mtimeMs + 30_000 },
      },
    ]);
    expect(lastLineUnfinished(cut)).toBe(true);
    expect(lastLineUnfinished(complete)).toBe(false);
    // out of its quiet period, or with --settle 0, it is read as it is
    age(cut, 31);
    expect(expandInputs([cut], rules).files).toHaveLength(1);
    age(cut, 1);
    expect(expandInputs([cut], { settleMs: 0, now: NOW }).files).toHaveLength(1);
  });

  it('--ready-suffix: a file of a directory is read once its marker exists, whatever its age; markers are never order files', () => {
    const dir = inbox(['a.csv', 'b.csv', 'b.csv.done', 'orphan.csv.done']);
    for (const name of ['a.csv', 'b.csv']) age(join(dir, name), 1);
    const { files, notReady } = expandInputs([dir], { settleMs: 30_000, readySuffix: '.done', now: NOW });
    expect(files).toEqual([expect.objectContaining({ path: join(dir, 'b.csv'), marker: join(dir, 'b.csv.done') })]);
    expect(notReady).toEqual([
      { file: join(dir, 'a.csv'), reason: `${join(dir, 'a.csv')}: no marker a.csv.done yet (--ready-suffix): left for the next run` },
    ]);
    // the pattern `*` does not take the markers either
    expect(expandInputs([join(dir, '*')], { settleMs: 0, readySuffix: '.done', now: NOW }).files.map((f) => f.path)).toEqual([
      join(dir, 'b.csv'),
    ]);
  });

  it('a FIFO, a dangling symlink, a symlink to a device and a directory named like a file are not read and are said; other subdirectories are left alone silently', () => {
    const dir = inbox(['a.csv']);
    age(join(dir, 'a.csv'), 60);
    expect(spawnSync('mkfifo', [join(dir, 'pipe.csv')]).status).toBe(0);
    symlinkSync(join(dir, 'gone.csv'), join(dir, 'dangling.csv'));
    symlinkSync('/dev/null', join(dir, 'null.csv'));
    mkdirSync(join(dir, 'x.csv'));
    mkdirSync(join(dir, 'archive'));
    const { files, ignored } = expandInputs([dir], { settleMs: 30_000, now: NOW });
    expect(files.map((f) => f.path)).toEqual([join(dir, 'a.csv')]);
    expect(ignored).toEqual([
      {
        file: join(dir, 'dangling.csv'),
        reason: `${join(dir, 'dangling.csv')}: a symlink to nothing (its target does not exist): not read`,
      },
      { file: join(dir, 'null.csv'), reason: `${join(dir, 'null.csv')}: a symlink to a device: not read` },
      {
        file: join(dir, 'pipe.csv'),
        reason: `${join(dir, 'pipe.csv')}: a FIFO (never opened: reading it would wait for a writer): not read`,
      },
      { file: join(dir, 'x.csv'), reason: `${join(dir, 'x.csv')}: a directory, not a file: not read` },
    ]);
  });

  it('an input that does not exist is refused before anything is made; a pattern needs its directory', () => {
    const dir = tempDir();
    expect(() => checkInputsExist([join(dir, 'inbox')])).toThrow(
      new UserError(`${join(dir, 'inbox')}: no such file or directory (an input folder is never created: is it mounted?)`),
    );
    expect(() => checkInputsExist([join(dir, 'inbox', '*.csv')])).toThrow(/inbox: no such file or directory/);
    expect(() => checkInputsExist([dir, join(dir, '*.csv')])).not.toThrow();
  });
});
