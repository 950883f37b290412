import { createHash, type Hash } from 'node:crypto';
import { RunAbortedError } from '../errors.js';
import { GzipDataError, isGzipFile, openByteSource, type ContentTap } from './gzip.js';
import type { OpenedFile } from './opened-file.js';

/**
 * The sha256 of a file's content, fed as the content is read (a ContentTap: by the pre-read of
 * repeated keys, whose pass is then also the identity's, or by sha256File). The identity of a
 * file for resume and skip (docs/ARCHITECTURE.md, section 2, step 2). A gzip file's content is its
 * decompressed bytes: the same orders compressed again (another gzip header time or level) are
 * the same file, and resume offsets, which are offsets into the content, stay valid. A gzip file
 * that cannot be decompressed to its end hashes the content read plus a marker: never the same
 * identity as a complete file holding that content.
 */
export class ContentDigest implements ContentTap {
  private readonly hash: Hash = createHash('sha256');
  private ended = false;

  update(chunk: Buffer): void {
    this.hash.update(chunk);
  }

  end(error?: GzipDataError): void {
    if (error !== undefined) this.hash.update(`\u0000order-loader:${error.code}`);
    this.ended = true;
  }

  /** The content was read to its end (or to where its gzip data breaks off): the digest is the file's. */
  get complete(): boolean {
    return this.ended;
  }

  hex(): string {
    return this.hash.digest('hex');
  }
}

/**
 * For the rename race test only (test/survival/bytes-read.test.ts): ORDER_LOADER_TEST_IDENTITY_DELAY_MS
 * waits that long before a file's identity is read, once it has been opened, after logging
 * "reading the identity of <path>" on stderr. Unset (always, outside that test): nothing.
 */
export async function identityDelay(path: string): Promise<void> {
  const ms = Number(process.env.ORDER_LOADER_TEST_IDENTITY_DELAY_MS ?? '0');
  if (!(ms > 0)) return;
  process.stderr.write(`reading the identity of ${path} in ${ms} ms (ORDER_LOADER_TEST_IDENTITY_DELAY_MS)\n`);
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * sha256 of a file's content (ContentDigest), streamed: of the file as the run opened it (its
 * first `size` bytes, the ones staging reads), or of a path. Once `signal` is aborted, throws
 * RunAbortedError.
 */
export async function sha256File(file: string | OpenedFile, signal?: AbortSignal, maxInflate?: number): Promise<string> {
  const path = typeof file === 'string' ? file : file.path;
  await identityDelay(path);
  const digest = new ContentDigest();
  const source = openByteSource(file, { gzip: await isGzipFile(file), highWaterMark: 1 << 20, tap: digest, maxInflate });
  try {
    for (;;) {
      const chunk = await source.chunks.next();
      if (chunk.done === true) break;
      if (signal?.aborted === true) throw new RunAbortedError(`interrupted while reading ${path} (before staging it)`, 'interrupted');
    }
  } catch (error) {
    if (!(error instanceof GzipDataError)) throw error;
  } finally {
    source.close();
  }
  return digest.hex();
}

/**
 * The identity of a file as the run opened it, once a first pass read it (`read`: the digest that
 * pass fed, null when none did): that pass's digest when it read the whole content (the bytes
 * every later reading of the run reads), else a pass of its own.
 */
export async function fileIdentity(
  file: OpenedFile,
  read: ContentDigest | null,
  signal?: AbortSignal,
  maxInflate?: number,
): Promise<string> {
  return read?.complete === true ? read.hex() : sha256File(file, signal, maxInflate);
}
