/**
 * The SHA-256 a control file may state (a profile's `control: sha256`): of the data file as the
 * partner sent it, its bytes on disk — a gzip file's compressed bytes, as `sha256sum` computes it
 * on the sending side —, not the decompressed content the run's identity hashes
 * (src/input/file-digest.ts). Read from the file as the run opened it (its first `size` bytes).
 */
import { createHash } from 'node:crypto';
import { openByteSource } from '../gzip.js';
import type { OpenedFile } from '../opened-file.js';

export async function fileSha256(file: string | OpenedFile): Promise<string> {
  const hash = createHash('sha256');
  const source = openByteSource(file, { gzip: false, highWaterMark: 1 << 20 });
  try {
    for (;;) {
      const chunk = await source.chunks.next();
      if (chunk.done === true) break;
      hash.update(chunk.value);
    }
  } finally {
    source.close();
  }
  return hash.digest('hex');
}
