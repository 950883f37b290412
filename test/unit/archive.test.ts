import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveFile, checkFileFolders, failFile } from '../../src/pipeline/archive.js';
import { UserError } from '../../src/errors.js';
import { tempDir } from '../support/files.js';
import { fullDeviceAvailable, mountFullDevice, type FullDevice } from '../support/full-device.js';

describe('archive and failed folders', () => {
  it('checked at start: a missing folder is made when its parent exists; a file in its place is refused', () => {
    const inbox = tempDir();
    const archiveDir = join(tempDir(), 'archive');
    checkFileFolders({ archiveDir }, [inbox]);
    expect(statSync(archiveDir).isDirectory()).toBe(true);
    const file = join(tempDir(), 'file');
    writeFileSync(file, '');
    expect(() => checkFileFolders({ failedDir: file }, [inbox])).toThrow(UserError);
    expect(() => checkFileFolders({ failedDir: file }, [inbox])).toThrow(`--failed-dir ${file}: cannot create it (EEXIST)`);
  });

  // /dev/shm is a tmpfs where there is one: another filesystem than the test's temporary folder
  const otherFs = existsSync('/dev/shm') && statSync('/dev/shm').dev !== statSync(tempDir()).dev;
  it.skipIf(!otherFs)('a folder on another filesystem than an inbox is refused (a rename cannot cross it)', () => {
    const elsewhere = mkdtempSync('/dev/shm/order-loader-test-');
    try {
      expect(() => checkFileFolders({ archiveDir: elsewhere }, [tempDir()])).toThrow(
        /is on another filesystem than .*: files are moved with one rename/,
      );
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('a move never overwrites: a taken name gets a number; the failed file has its reason beside it', () => {
    const inbox = tempDir();
    const archiveDir = join(inbox, 'archive');
    const failedDir = join(inbox, 'failed');
    mkdirSync(archiveDir);
    mkdirSync(failedDir);
    for (let i = 1; i <= 3; i++) {
      writeFileSync(join(inbox, 'orders.csv'), `copy ${i}`);
      archiveFile(join(inbox, 'orders.csv'), archiveDir, 7);
    }
    expect(readdirSync(archiveDir).sort()).toEqual(['load7-2-orders.csv', 'load7-3-orders.csv', 'load7-orders.csv']);
    expect(readFileSync(join(archiveDir, 'load7-orders.csv'), 'utf8')).toBe('copy 1');
    expect(readFileSync(join(archiveDir, 'load7-3-orders.csv'), 'utf8')).toBe('copy 3');

    for (let i = 1; i <= 2; i++) {
      writeFileSync(join(inbox, 'bad.csv'), `bad ${i}`);
      failFile(join(inbox, 'bad.csv'), failedDir, `reason ${i}`, i === 1 ? null : 12);
    }
    const names = readdirSync(failedDir).sort();
    expect(names).toHaveLength(4);
    expect(names.filter((n) => n.endsWith('.error.txt')).map((n) => n.replace('.error.txt', ''))).toEqual(
      names.filter((n) => !n.endsWith('.error.txt')),
    );
    const sidecars = names.filter((n) => n.endsWith('.error.txt')).map((n) => readFileSync(join(failedDir, n), 'utf8'));
    expect(sidecars.some((t) => /^file: .*bad\.csv\nmoved: \S+\nreason: reason 1\n$/.test(t))).toBe(true);
    expect(sidecars.some((t) => /^file: .*bad\.csv\nmoved: \S+\nload: 12\nreason: reason 2\n$/.test(t))).toBe(true);
    expect(readdirSync(inbox).sort()).toEqual(['archive', 'failed']);
  });

  it('the note of a failed file escapes a newline in its name and reason: one line each, none forged', () => {
    const inbox = tempDir();
    const failedDir = join(inbox, 'failed');
    mkdirSync(failedDir);
    const name = 'x.csv\nreason: all good';
    writeFileSync(join(inbox, name), 'not orders');
    const moved = failFile(join(inbox, name), failedDir, `${join(inbox, name)}: line 1: bad\rheader`, 3);
    const lines = readFileSync(`${moved}.error.txt`, 'utf8').split('\n');
    expect(lines).toEqual([
      `file: ${inbox}/x.csv\\nreason: all good`,
      expect.stringMatching(/^moved: \S+$/) as unknown,
      'load: 3',
      `reason: ${inbox}/x.csv\\nreason: all good: line 1: bad\\rheader`,
      '',
    ]);
  });

  it('a folder whose parent is missing is not made (an input folder is never made through it)', () => {
    const inbox = join(tempDir(), 'inbox');
    expect(() => checkFileFolders({ archiveDir: join(inbox, 'archive') }, [inbox])).toThrow(
      `--archive-dir ${join(inbox, 'archive')}: its parent folder ${inbox} does not exist (only the last folder is made)`,
    );
    expect(existsSync(inbox)).toBe(false);
  });

  it('a folder that is an input folder is refused (each run would read its own moves again); a subfolder of the inbox is fine', () => {
    const inbox = tempDir();
    for (const folders of [{ archiveDir: inbox }, { failedDir: inbox }, { archiveDir: `${inbox}/` }]) {
      expect(() => checkFileFolders(folders, [inbox])).toThrow(
        /is the folder the files are read from: each run would read its own moved files again/,
      );
    }
    // the same folder by another name
    const alias = join(tempDir(), 'alias');
    symlinkSync(inbox, alias);
    expect(() => checkFileFolders({ failedDir: alias }, [inbox])).toThrow(`--failed-dir ${alias} is the folder the files are read from`);
    checkFileFolders({ archiveDir: join(inbox, 'archive'), failedDir: join(inbox, 'failed') }, [inbox]);
    expect(readdirSync(inbox).sort()).toEqual(['archive', 'failed']);
  });

  it('a marker (--ready-suffix) moves with its file, before it, under the same new name', () => {
    const inbox = tempDir();
    const archiveDir = join(inbox, 'archive');
    const failedDir = join(inbox, 'failed');
    mkdirSync(archiveDir);
    mkdirSync(failedDir);
    // a marker name taken in the archive: the file's name is numbered so the pair stays together
    writeFileSync(join(archiveDir, 'load3-a.csv.done'), '');
    for (const name of ['a.csv', 'a.csv.done', 'b.csv', 'b.csv.done']) writeFileSync(join(inbox, name), name);
    const archived = archiveFile(join(inbox, 'a.csv'), archiveDir, 3, { path: join(inbox, 'a.csv.done'), suffix: '.done' });
    expect(archived).toBe(join(archiveDir, 'load3-2-a.csv'));
    expect(readFileSync(`${archived}.done`, 'utf8')).toBe('a.csv.done');
    const failed = failFile(join(inbox, 'b.csv'), failedDir, 'header', 4, { path: join(inbox, 'b.csv.done'), suffix: '.done' });
    expect(readdirSync(failedDir).sort()).toEqual([basename(failed), `${basename(failed)}.done`, `${basename(failed)}.error.txt`]);
    expect(readdirSync(inbox).sort()).toEqual(['archive', 'failed']);
  });

  describe('on a full device', () => {
    let full: FullDevice | null = null;
    beforeAll(() => {
      full = mountFullDevice();
    });
    afterAll(() => full?.unmount());
    it.skipIf(!fullDeviceAvailable())(
      'a failed folder on a full device: the note cannot be written, and no hidden half-note is left',
      () => {
        const inbox = tempDir();
        writeFileSync(join(inbox, 'x.csv'), 'not orders');
        const failedDir = full!.dir;
        expect(() => failFile(join(inbox, 'x.csv'), failedDir, 'bad header', 3)).toThrow(/ENOSPC/);
        expect(readdirSync(failedDir).filter((n) => !n.startsWith('.fill'))).toEqual([]);
        expect(readdirSync(inbox)).toEqual(['x.csv']);
      },
    );
  });
});
