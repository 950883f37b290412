/**
 * A file's identity (src/input/file-digest.ts): sha256 of its content. Gzip files and damaged
 * gzip files: gzip-input.test.ts.
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RunAbortedError } from '../../src/errors.js';
import { sha256File } from '../../src/input/file-digest.js';
import { writeTestFile } from '../support/files.js';

describe('sha256File', () => {
  it('the sha256 of the bytes, over several chunks read', async () => {
    const content = Buffer.alloc(3 << 20);
    for (let i = 0; i < content.length; i++) content[i] = (i * 7) & 0xff;
    const file = writeTestFile(content);
    expect(await sha256File(file)).toBe(createHash('sha256').update(content).digest('hex'));
    expect(await sha256File(writeTestFile(''))).toBe(createHash('sha256').digest('hex'));
  });

  it('once the run is aborted: RunAbortedError naming the file, and the file closed', async () => {
    const file = writeTestFile(Buffer.alloc(3 << 20, 0x41));
    const controller = new AbortController();
    controller.abort();
    const open = () => readdirSync('/proc/self/fd').length;
    const before = process.platform === 'linux' ? open() : 0;
    await expect(sha256File(file, controller.signal)).rejects.toThrow(
      new RunAbortedError(`interrupted while reading ${file} (before staging it)`, 'interrupted'),
    );
    await expect(sha256File(file, controller.signal)).rejects.toBeInstanceOf(RunAbortedError);
    if (process.platform === 'linux') {
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(open()).toBe(before);
    }
    // not aborted: read to the end
    expect(await sha256File(file, new AbortController().signal)).toBe(
      createHash('sha256')
        .update(Buffer.alloc(3 << 20, 0x41))
        .digest('hex'),
    );
  });
});
