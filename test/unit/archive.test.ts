import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveFile, checkFileFolders, failFile } from '../../src/pipeline/archive.js';
import { UserError } from '../../src/errors.js';
import { tempDir } from '../support/files.js';
import { fullDeviceAvailable, mountFullDevice, type FullDevice } from '../support/full-device.js';

describe('archive and failed folders', () => {
  it('checked at start: a missing folder is made; a file in its place is refused', () => {
    const inbox = tempDir();
    const archiveDir = join(tempDir(), 'a', 'archive');
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
