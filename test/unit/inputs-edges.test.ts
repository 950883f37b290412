/**
 * The edges of what a run reads (src/input/inputs.ts), beside inputs.test.ts: bounds of the quiet
 * period, the ready marker of a file named on the command line, paths that cannot be read, the
 * folder an argument locks, a file that changed since it was listed.
 */
import { once } from 'node:events';
import { mkdirSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import {
  changedSinceListed,
  checkInputsExist,
  expandInput,
  expandInputs,
  inputFolder,
  lastLineUnfinished,
  patternRegExp,
} from '../../src/input/inputs.js';
import { tempDir } from '../support/files.js';

const NOW = Date.now();
/** Set a file's modification time `ms` before NOW. */
const age = (path: string, ms: number) => {
  const t = new Date(NOW - ms);
  utimesSync(path, t, t);
};

describe('patterns', () => {
  it('* takes any characters, a line break too; ? one character, also one outside the BMP', () => {
    expect(patternRegExp('a*.csv').test('a\nb.csv')).toBe(true);
    expect(patternRegExp('a?.csv').test('a😀.csv')).toBe(true);
    expect(patternRegExp('a?.csv').test('ab.csv')).toBe(true);
    expect(patternRegExp('a?.csv').test('a.csv')).toBe(false);
    expect(patternRegExp('a.csv').test('xa.csv')).toBe(false);
  });
});

describe('the quiet period (--settle): its bounds', () => {
  it('a file of a directory modified exactly settle ago is read; a moment later than that, not; just now: "0 s ago"', () => {
    const dir = tempDir();
    for (const name of ['edge.csv', 'inside.csv', 'now.csv']) writeFileSync(join(dir, name), 'x\n');
    age(join(dir, 'edge.csv'), 30_000);
    age(join(dir, 'inside.csv'), 29_000);
    age(join(dir, 'now.csv'), 0);
    const { files, notReady } = expandInput(dir, { settleMs: 30_000, now: NOW });
    expect(files.map((f) => f.path)).toEqual([join(dir, 'edge.csv')]);
    expect(notReady.map((n) => n.reason)).toEqual([
      `${join(dir, 'inside.csv')}: modified 29 s ago, within the quiet period (--settle 30 s): left for the next run`,
      `${join(dir, 'now.csv')}: modified 0 s ago, within the quiet period (--settle 30 s): left for the next run`,
    ]);
  });

  it('a file named on the command line: left only while its last line is unfinished and it is within the period', () => {
    const dir = tempDir();
    const cut = join(dir, 'cut.csv');
    writeFileSync(cut, 'source_key\nK-1');
    age(cut, 30_000);
    expect(expandInput(cut, { settleMs: 30_000, now: NOW }).files.map((f) => f.path)).toEqual([cut]);
    age(cut, 29_000);
    expect(expandInput(cut, { settleMs: 30_000, now: NOW }).notReady.map((n) => n.file)).toEqual([cut]);
    // a complete file within its period is read
    const complete = join(dir, 'complete.csv');
    writeFileSync(complete, 'source_key\nK-1\r');
    age(complete, 1000);
    expect(expandInput(complete, { settleMs: 30_000, now: NOW }).files.map((f) => f.path)).toEqual([complete]);
    // no quiet period: read
    expect(expandInput(cut, { settleMs: 0, now: NOW }).files.map((f) => f.path)).toEqual([cut]);
  });

  it('a file named on the command line with its ready marker is read at once, and keeps its marker; without, the quiet period decides', () => {
    const dir = tempDir();
    const cut = join(dir, 'cut.csv');
    writeFileSync(cut, 'source_key\nK-1');
    age(cut, 1000);
    const rules = { settleMs: 30_000, readySuffix: '.done', now: NOW };
    expect(expandInput(cut, rules).notReady.map((n) => n.file)).toEqual([cut]);
    // a folder of the marker's name is no marker
    mkdirSync(`${cut}.done`);
    expect(expandInput(cut, rules).notReady.map((n) => n.file)).toEqual([cut]);
    const other = join(dir, 'other.csv');
    writeFileSync(other, 'source_key\nK-1');
    writeFileSync(`${other}.done`, '');
    age(other, 1000);
    expect(expandInput(other, rules).files).toEqual([expect.objectContaining({ path: other, marker: `${other}.done` })]);
    // no marker asked for: none kept, even when such a file exists
    expect(expandInput(other, { settleMs: 0, now: NOW }).files[0]?.marker).toBeUndefined();
  });
});

describe('lastLineUnfinished', () => {
  it('an empty file is finished; a line end (LF or CR) is; a gzip file is never looked at; a single byte is read right', () => {
    const dir = tempDir();
    const file = (name: string, content: string | Buffer) => {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    };
    expect(lastLineUnfinished(file('empty.csv', ''))).toBe(false);
    expect(lastLineUnfinished(file('lf.csv', 'a\n'))).toBe(false);
    expect(lastLineUnfinished(file('cr.csv', 'a\r'))).toBe(false);
    expect(lastLineUnfinished(file('one.csv', 'a'))).toBe(true);
    expect(lastLineUnfinished(file('nl.csv', '\n'))).toBe(false);
    expect(lastLineUnfinished(file('cut.csv.gz', gzipSync('a\nb').subarray(0, 12)))).toBe(false);
    // only the gzip magic counts, both bytes of it
    expect(lastLineUnfinished(file('x1f.csv', Buffer.from([0x1f, 0x41, 0x42])))).toBe(true);
    expect(lastLineUnfinished(file('x8b.csv', Buffer.from([0x41, 0x8b, 0x42])))).toBe(true);
  });

  it('a UTF-16 file (byte-order mark) ends its line with two bytes: LE and BE, LF and CR, cut in a line or in a unit', () => {
    const dir = tempDir();
    const utf16 = (name: string, text: string, order: 'le' | 'be', cut = 0) => {
      const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
      const bytes = order === 'le' ? le : Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
      const path = join(dir, name);
      writeFileSync(path, bytes.subarray(0, bytes.length - cut));
      return path;
    };
    for (const order of ['le', 'be'] as const) {
      expect(lastLineUnfinished(utf16(`crlf-${order}.csv`, 'a,b\r\nc,d\r\n', order)), order).toBe(false);
      expect(lastLineUnfinished(utf16(`lf-${order}.csv`, 'a,b\nc,d\n', order)), order).toBe(false);
      expect(lastLineUnfinished(utf16(`cut-${order}.csv`, 'a,b\nc,d', order)), order).toBe(true);
      // half a code unit: the writer is inside it
      expect(lastLineUnfinished(utf16(`half-${order}.csv`, 'a,b\nc,d\n', order, 1)), order).toBe(true);
      expect(lastLineUnfinished(utf16(`bom-${order}.csv`, '', order)), order).toBe(false);
    }
  });
});

describe('paths that cannot be read', () => {
  it('a path through a file is no such file; a symlink loop cannot be read (its code said)', () => {
    const dir = tempDir();
    const file = join(dir, 'a.csv');
    writeFileSync(file, 'x\n');
    expect(() => expandInput(join(file, 'x.csv'))).toThrow(new UserError(`${join(file, 'x.csv')}: no such file`));
    const loop = join(dir, 'loop.csv');
    symlinkSync(loop, loop);
    expect(() => expandInput(loop)).toThrow(new UserError(`${loop}: cannot read (ELOOP)`));
    try {
      expandInput(loop);
    } catch (error) {
      expect((error as Error).cause).toMatchObject({ code: 'ELOOP' });
    }
  });

  it('a pattern in a folder that is missing, or that is a file: said, with the cause', () => {
    const dir = tempDir();
    expect(() => expandInput(join(dir, 'none', '*.csv'))).toThrow(new UserError(`${join(dir, 'none')}: no such directory`));
    const file = join(dir, 'f.csv');
    writeFileSync(file, 'x\n');
    expect(() => expandInput(join(file, '*.csv'))).toThrow(new UserError(`${file}: cannot list (ENOTDIR)`));
    try {
      expandInput(join(file, '*.csv'));
    } catch (error) {
      expect((error as Error).cause).toMatchObject({ code: 'ENOTDIR' });
    }
    expect(() => checkInputsExist([join(file, '*.csv')])).toThrow(new UserError(`${file}: not a directory`));
    expect(() => checkInputsExist([file])).not.toThrow();
  });

  it('a socket in an inbox is said and not read; a named socket or FIFO is not a file', async () => {
    const dir = tempDir();
    const path = join(dir, 's.csv');
    const server = createServer();
    server.listen(path);
    await once(server, 'listening');
    try {
      expect(expandInput(dir).ignored).toEqual([{ file: path, reason: `${path}: a socket: not read` }]);
      expect(() => expandInput(path)).toThrow(new UserError(`${path}: not a file`));
    } finally {
      server.close();
    }
  });

  it('a symlink to a file of the inbox is read as that file', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.csv'), 'x\n');
    symlinkSync(join(dir, 'a.csv'), join(dir, 'b.csv'));
    expect(expandInput(dir).files.map((f) => f.path)).toEqual([join(dir, 'a.csv'), join(dir, 'b.csv')]);
  });
});

describe('expandInputs: each entry once', () => {
  it('a file not ready by one argument is listed once however many name it; one another argument reads is not listed as left', () => {
    const dir = tempDir();
    const fresh = join(dir, 'fresh.csv');
    writeFileSync(fresh, 'x\n');
    age(fresh, 1000);
    const rules = { settleMs: 30_000, now: NOW };
    const twice = expandInputs([dir, join(dir, '*.csv')], rules);
    expect(twice.notReady.map((n) => n.file)).toEqual([fresh]);
    expect(twice.files).toEqual([]);
    // named on the command line, it is read (its last line is finished): not also left
    const read = expandInputs([fresh, dir], rules);
    expect(read.files.map((f) => f.path)).toEqual([fresh]);
    expect(read.notReady).toEqual([]);
    // ignored entries once too
    symlinkSync(join(dir, 'gone'), join(dir, 'dangling.csv'));
    expect(expandInputs([dir, join(dir, '*.csv')], rules).ignored.map((i) => i.file)).toEqual([join(dir, 'dangling.csv')]);
  });
});

describe('inputFolder: the folder an argument locks', () => {
  it('a pattern: its directory; a directory: itself; a file, or a path that cannot be read: the folder it is in', () => {
    const dir = tempDir();
    const file = join(dir, 'a.csv');
    writeFileSync(file, 'x\n');
    expect(inputFolder(join(dir, '*.csv'))).toEqual({ kind: 'pattern', dir });
    expect(inputFolder(dir)).toEqual({ kind: 'directory', dir });
    expect(inputFolder(file)).toEqual({ kind: 'file', dir });
    expect(inputFolder(join(dir, 'missing.csv'))).toEqual({ kind: 'file', dir });
  });
});

describe('changedSinceListed', () => {
  it('a file gone, grown, shrunk or touched since it was listed; as listed: null', () => {
    const dir = tempDir();
    const path = join(dir, 'a.csv');
    writeFileSync(path, 'abc\n');
    age(path, 60_000);
    const [listed] = expandInput(dir).files;
    expect(changedSinceListed(listed!)).toBeNull();
    // the same size, another modification time
    age(path, 50_000);
    expect(changedSinceListed(listed!)).toBe(`${path}: still being written (modified since it was listed): skipped this time`);
    age(path, 60_000);
    expect(changedSinceListed(listed!)).toBeNull();
    // another size, the same modification time
    truncateSync(path, 2);
    age(path, 60_000);
    expect(changedSinceListed(listed!)).toBe(`${path}: still being written (size 4 → 2 bytes since it was listed): skipped this time`);
    const gone = { ...listed!, path: join(dir, 'gone.csv') };
    expect(changedSinceListed(gone)).toBe(`${gone.path}: gone since it was listed (another run took it?): not read`);
  });
});
