/**
 * The bytes of an order file as a stream: the file itself, or, when it starts with the gzip magic
 * bytes (1f 8b) whatever its name, its decompressed content. Offsets (resume points, a skipped
 * line's end) are always offsets into that content: resuming a gzip file decompresses it from
 * the start and passes over the bytes before the offset.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';

/** Whether the file starts with the gzip magic bytes 1f 8b. */
export async function isGzipFile(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const magic = Buffer.alloc(2);
    const { bytesRead } = await handle.read(magic, 0, 2, 0);
    return bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/** Decompression failed: the gzip data ends early or is damaged. The content before it was read. */
export class GzipDataError extends Error {
  constructor(
    readonly code: 'GZIP_TRUNCATED' | 'GZIP_CORRUPT',
    options: { cause: unknown },
  ) {
    super(
      code === 'GZIP_TRUNCATED'
        ? 'the gzip data ends early (the file is truncated)'
        : `the gzip data is damaged (${(options.cause as Error).message})`,
      options,
    );
    this.name = 'GzipDataError';
  }
}

export interface ByteSource {
  /** Chunks of content from the offset asked for. A gzip error is thrown as GzipDataError. */
  chunks: AsyncIterator<Buffer>;
  /** Bytes of the file itself read so far (for progress against the file's size). */
  fileBytesRead(): number;
  close(): void;
}

/** Open the content of `path` at content offset `from`. */
export function openByteSource(path: string, options: { gzip: boolean; from?: number; highWaterMark?: number }): ByteSource {
  const from = options.from ?? 0;
  const highWaterMark = options.highWaterMark ?? 256 * 1024;
  if (!options.gzip) {
    const file = createReadStream(path, { highWaterMark, start: from });
    return {
      chunks: file[Symbol.asyncIterator]() as AsyncIterator<Buffer>,
      fileBytesRead: () => from + file.bytesRead,
      close: () => file.destroy(),
    };
  }
  const file = createReadStream(path, { highWaterMark });
  const gunzip = createGunzip({ chunkSize: 64 * 1024 });
  // a read error of the file ends the decompressed stream with that error
  file.on('error', (error) => gunzip.destroy(error));
  file.pipe(gunzip);
  async function* content(): AsyncGenerator<Buffer> {
    let toSkip = from;
    try {
      for await (const chunk of gunzip as AsyncIterable<Buffer>) {
        if (toSkip >= chunk.length) {
          toSkip -= chunk.length;
          continue;
        }
        yield toSkip > 0 ? chunk.subarray(toSkip) : chunk;
        toSkip = 0;
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'Z_BUF_ERROR') throw new GzipDataError('GZIP_TRUNCATED', { cause: error });
      if (code === 'Z_DATA_ERROR' || code === 'Z_NEED_DICT') throw new GzipDataError('GZIP_CORRUPT', { cause: error });
      throw error;
    }
  }
  return {
    chunks: content(),
    fileBytesRead: () => file.bytesRead,
    close() {
      file.destroy();
      gunzip.destroy();
    },
  };
}
