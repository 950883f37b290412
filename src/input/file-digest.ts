import { createHash } from 'node:crypto';
import { RunAbortedError } from '../errors.js';
import { GzipDataError, isGzipFile, openByteSource } from './gzip.js';

/**
 * sha256 of a file's content, streamed (the identity of a file for resume and skip,
 * docs/ARCHITECTURE.md, section 2, step 2). A gzip file's content is its decompressed bytes:
 * the same orders compressed again (another gzip header time or level) are the same file, and
 * resume offsets, which are offsets into the content, stay valid. A gzip file that cannot be
 * decompressed to its end hashes the content read plus a marker: never the same identity as a
 * complete file holding that content. Once `signal` is aborted, throws RunAbortedError.
 */
export async function sha256File(path: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  const source = openByteSource(path, { gzip: await isGzipFile(path), highWaterMark: 1 << 20 });
  try {
    for (;;) {
      const chunk = await source.chunks.next();
      if (chunk.done === true) break;
      hash.update(chunk.value);
      if (signal?.aborted === true) throw new RunAbortedError(`interrupted while reading ${path} (before staging it)`, 'interrupted');
    }
  } catch (error) {
    if (!(error instanceof GzipDataError)) throw error;
    hash.update(`\u0000order-loader:${error.code}`);
  } finally {
    source.close();
  }
  return hash.digest('hex');
}
