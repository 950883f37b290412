/**
 * An inbox whose lock file cannot be written, beside inbox-lock.test.ts (which makes such a
 * folder with mode 555 as a user and with the immutable flag as root, EACCES or EPERM): here a
 * folder no process can create a file in, whoever it runs as, so that the EACCES answer is seen
 * as root too. Linux's sysfs (`/sys`) has no way to create a file: the kernel answers EACCES to
 * every process, root included. The folder is read unlocked and said once; the others are locked.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INBOX_LOCK_NAME, lockInboxes } from '../../src/input/inbox-lock.js';
import { tempDir } from '../support/files.js';

const SYSFS = '/sys';
const hasSysfs = process.platform === 'linux' && existsSync(SYSFS) && statSync(SYSFS).isDirectory();

describe('lockInboxes: a folder nobody may create a file in (EACCES)', () => {
  it.skipIf(!hasSysfs)('is read unlocked and said once, with its code; the writable folder beside it is locked and released', async () => {
    const inbox = join(tempDir(), 'inbox');
    mkdirSync(inbox);
    const said: string[] = [];
    const lock = await lockInboxes([inbox, SYSFS], { command: 'load', timeoutMs: 0, onUnlockable: (m) => said.push(m) });
    expect(said).toEqual([`inbox ${SYSFS}: cannot write its lock file (EACCES): a run started meanwhile could stage its files too`]);
    expect(existsSync(join(inbox, INBOX_LOCK_NAME))).toBe(true);
    expect(existsSync(join(SYSFS, INBOX_LOCK_NAME))).toBe(false);
    lock.release();
    expect(existsSync(join(inbox, INBOX_LOCK_NAME))).toBe(false);
  });

  it.skipIf(!hasSysfs)('named alone and twice: said once, nothing to release', async () => {
    const said: string[] = [];
    const lock = await lockInboxes([SYSFS, `${SYSFS}/`], { command: 'process', timeoutMs: 0, onUnlockable: (m) => said.push(m) });
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('(EACCES)');
    lock.release();
  });
});
