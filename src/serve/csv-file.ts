/**
 * A download written to a private temporary file (0600 in a 0700 folder: partners' data) and
 * then streamed from it, the file removed once sent, abandoned or failed. What it is for: the
 * database work ends at the disk's pace, whatever the pace of the reader.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

export interface SpooledFile {
  stream: ReadableStream<Uint8Array>;
}

export async function csvFile(write: (out: Writable) => Promise<void>): Promise<SpooledFile> {
  const dir = await mkdtemp(join(tmpdir(), 'order-loader-serve-'));
  const path = join(dir, 'download');
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    const out = createWriteStream(path, { mode: 0o600 });
    try {
      await write(out);
    } finally {
      out.end();
      await finished(out).catch(() => undefined);
    }
  } catch (error) {
    await remove();
    throw error;
  }
  const input = createReadStream(path);
  // removed once read to the end, or when the reader went away (the stream is destroyed)
  input.once('close', () => void remove());
  return { stream: Readable.toWeb(input) as ReadableStream<Uint8Array> };
}
