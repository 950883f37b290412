/**
 * The bytes of an order file as a stream: the file itself, or, when it starts with the gzip magic
 * bytes (1f 8b) whatever its name, its decompressed content. Offsets (resume points, a skipped
 * line's end) are always offsets into that content: resuming a gzip file decompresses it from
 * the start and passes over the bytes before the offset.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { InflateRaw } from 'node:zlib';
import { GzipDataError, gzipMembers } from './gzip-members.js';
import { OpenedFile } from './opened-file.js';
import { inflateCap } from './inflate-cap.js';

/** Whether the file starts with the gzip magic bytes 1f 8b. */
export async function isGzipFile(path: string | OpenedFile): Promise<boolean> {
  if (path instanceof OpenedFile) return path.gzip;
  const handle = await open(path, 'r');
  try {
    const magic = Buffer.alloc(2);
    const { bytesRead } = await handle.read(magic, 0, 2, 0);
    return bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

export { GzipDataError };

export interface ByteSource {
  /** Chunks of content from the offset asked for. A gzip error is thrown as GzipDataError. */
  chunks: AsyncIterator<Buffer>;
  /** Bytes of the file itself read so far (for progress against the file's size). */
  fileBytesRead(): number;
  close(): void;
}

/** Told the content as it is read from its start (the identity read in the same pass, src/input/file-digest.ts). */
export interface ContentTap {
  update(chunk: Buffer): void;
  /** The content ended: at its end, or where the gzip data breaks off (`error`). */
  end(error?: GzipDataError): void;
}

export interface ByteSourceOptions {
  gzip: boolean;
  from?: number;
  highWaterMark?: number;
  /** Told every chunk of content (only for a source read from offset 0). */
  tap?: ContentTap | undefined;
  /** The most content a gzip file may inflate to per compressed byte (--max-inflate); absent: the default. */
  maxInflate?: number | undefined;
}

/** Chunks told to `tap` as they are read. */
function tapped(chunks: AsyncIterator<Buffer>, tap: ContentTap): AsyncIterator<Buffer> {
  return {
    async next() {
      try {
        const chunk = await chunks.next();
        if (chunk.done === true) tap.end();
        else tap.update(chunk.value);
        return chunk;
      } catch (error) {
        if (error instanceof GzipDataError) tap.end(error);
        throw error;
      }
    },
  };
}

/** Open the content of `path` (a path, or the file as the run opened it) at content offset `from`. */
export function openByteSource(path: string | OpenedFile, options: ByteSourceOptions): ByteSource {
  const source = openUntapped(path, options);
  if (options.tap === undefined || (options.from ?? 0) > 0) return source;
  return { ...source, chunks: tapped(source.chunks, options.tap) };
}

function openUntapped(path: string | OpenedFile, options: ByteSourceOptions): ByteSource {
  const from = options.from ?? 0;
  const highWaterMark = options.highWaterMark ?? 256 * 1024;
  const read = (start: number) =>
    path instanceof OpenedFile ? path.stream({ start, highWaterMark }) : createReadStream(path, { highWaterMark, start });
  if (!options.gzip) {
    const file = read(from);
    return {
      chunks: file[Symbol.asyncIterator]() as AsyncIterator<Buffer>,
      fileBytesRead: () => from + file.bytesRead,
      close: () => file.destroy(),
    };
  }
  const file = read(0);
  const cap = inflateCap(options.maxInflate);
  let inflater: InflateRaw | null = null;
  async function* content(): AsyncGenerator<Buffer> {
    let toSkip = from;
    for await (const chunk of gzipMembers(file, (i) => (inflater = i), cap)) {
      if (toSkip >= chunk.length) {
        toSkip -= chunk.length;
        continue;
      }
      yield toSkip > 0 ? chunk.subarray(toSkip) : chunk;
      toSkip = 0;
    }
  }
  return {
    chunks: content(),
    fileBytesRead: () => file.bytesRead,
    close() {
      file.destroy();
      inflater?.destroy();
    },
  };
}
