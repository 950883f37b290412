/**
 * A file as one run reads it: opened once, its size taken once. The identity (sha256), the
 * pre-read of repeated keys, the header check and staging all read this one descriptor, and only
 * its first `size` bytes: a file renamed over the name meanwhile is never read in the place of the
 * one whose identity was taken, and lines appended meanwhile are left for the next run.
 */
import { open, stat, type FileHandle } from 'node:fs/promises';
import { UserError } from '../errors.js';

/** The same file (device and inode): what a rename over the name changes. */
interface FileId {
  dev: number;
  ino: number;
}

/** Chunks of a file's bytes; destroy() stops them (the descriptor stays open: it is the run's). */
export interface FileChunks extends AsyncIterable<Buffer> {
  readonly bytesRead: number;
  destroy(): void;
}

/**
 * The bytes of `handle` from `start` to `limit()`, a chunk read each time one is asked for, the next
 * read started as a chunk is handed out (a stream of the handle would close it when destroyed).
 */
function chunksOf(
  handle: FileHandle,
  start: number,
  /** Where the bytes end (it may move back, once: OpenedFile.endAtLineIfGrowing). */
  limit: () => number,
  highWaterMark: number,
  /** The chunk that ends at `end`, as it is to be read. */
  last: (chunk: Buffer, at: number) => Promise<Buffer>,
): FileChunks {
  let position = start;
  let bytesRead = 0;
  let stopped = false;
  const readAt = async (at: number): Promise<Buffer | null> => {
    const end = limit();
    if (stopped || at >= end) return null;
    const buffer = Buffer.allocUnsafe(Math.min(highWaterMark, end - at));
    const { bytesRead: n } = await handle.read(buffer, 0, buffer.length, at);
    // a file cut shorter meanwhile ends where it ends now
    if (n === 0) return null;
    if (at + n === end) return last(n === buffer.length ? buffer : buffer.subarray(0, n), at);
    return n === buffer.length ? buffer : buffer.subarray(0, n);
  };
  let ahead: Promise<Buffer | null> | null = null;
  return {
    get bytesRead() {
      return bytesRead;
    },
    destroy() {
      stopped = true;
    },
    [Symbol.asyncIterator]: () => ({
      async next(): Promise<IteratorResult<Buffer>> {
        const chunk = await (ahead ?? readAt(position));
        ahead = null;
        if (chunk === null || stopped) {
          stopped = true;
          return { done: true, value: undefined };
        }
        position += chunk.length;
        bytesRead += chunk.length;
        ahead = readAt(position);
        // a read ahead that fails is said when its chunk is asked for
        ahead.catch(() => undefined);
        return { done: false, value: chunk };
      },
    }),
  };
}

/** How the file at the path differs from the one this run read, once it was read. */
export type AfterReading = { kind: 'replaced' } | { kind: 'grown'; size: number } | null;

/** Why a path cannot be opened for reading, as the reader says it. */
function cannotRead(path: string, error: unknown): UserError {
  const code = (error as NodeJS.ErrnoException).code;
  return new UserError(code === 'ENOENT' ? `${path}: no such file` : `${path}: cannot read (${code ?? 'error'})`);
}

/** The bytes a reader reads of `path`: the size the run took of it, else the file's size now. */
export async function sizeToRead(path: string, file: OpenedFile | undefined): Promise<number> {
  if (file !== undefined) return file.size;
  let st;
  try {
    st = await stat(path);
  } catch (error) {
    throw cannotRead(path, error);
  }
  if (!st.isFile()) throw new UserError(`${path}: not a file`);
  return st.size;
}

export class OpenedFile {
  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private readonly id: FileId,
    /** The bytes this run reads: the file's size when it was opened (or the run's first reading of it). */
    private limit: number,
    /** Whether the content is gzip (it starts with 1f 8b): offsets are then into the decompressed content. */
    readonly gzip: boolean,
  ) {}

  get size(): number {
    return this.limit;
  }

  /**
   * Open `path` for the run. `seen`: the file as an earlier reading of this run found it (the
   * pre-read): the same file is read to the same size; another one (renamed over the name since)
   * or a shorter one is not opened: the reason is returned instead.
   */
  static async open(path: string, seen?: { id: FileId; size: number }): Promise<OpenedFile | string> {
    // a FIFO or a folder is not opened (a FIFO's open would wait for a writer)
    await sizeToRead(path, undefined);
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      throw cannotRead(path, error);
    }
    try {
      const st = await handle.stat();
      if (!st.isFile()) throw new UserError(`${path}: not a file`);
      const id = { dev: st.dev, ino: st.ino };
      if (seen !== undefined) {
        if (seen.id.dev !== id.dev || seen.id.ino !== id.ino) {
          await handle.close();
          return `${path}: replaced by another file since this run read it for repeated keys: left for the next run`;
        }
        if (st.size < seen.size) {
          await handle.close();
          return `${path}: shorter (${st.size} bytes) than when this run read it for repeated keys (${seen.size}): left for the next run`;
        }
      }
      const size = seen?.size ?? st.size;
      const magic = Buffer.alloc(2);
      const { bytesRead } = size >= 2 ? await handle.read(magic, 0, 2, 0) : { bytesRead: 0 };
      return new OpenedFile(path, handle, id, size, bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b);
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  /** What a later opening of the run checks against (OpenedFile.open's `seen`). */
  seen(): { id: FileId; size: number } {
    return { id: { ...this.id }, size: this.limit };
  }

  /** The file's bytes from `start` to the size taken. */
  stream(options: { start?: number; highWaterMark?: number }): FileChunks {
    return chunksOf(
      this.handle,
      options.start ?? 0,
      () => this.limit,
      options.highWaterMark ?? 256 * 1024,
      (chunk, at) => this.endAtLineIfGrowing(chunk, at),
    );
  }

  /**
   * The last chunk of the bytes read (at file offset `at`): if its last line has no line end and
   * the file grew meanwhile, the writer was in the middle of that line when the size was taken:
   * the bytes read end at the line end before it (in this chunk; a line longer than the chunk is
   * read as it is), for this reading and every later one of the run. A gzip file is read as it is.
   */
  private async endAtLineIfGrowing(chunk: Buffer, at: number): Promise<Buffer> {
    const lastByte = chunk[chunk.length - 1];
    if (this.gzip || lastByte === 0x0a || lastByte === 0x0d) return chunk;
    if ((await this.handle.stat()).size <= this.limit) return chunk;
    const lineEnd = Math.max(chunk.lastIndexOf(0x0a), chunk.lastIndexOf(0x0d)) + 1;
    if (lineEnd === 0) return chunk;
    this.limit = at + lineEnd;
    return chunk.subarray(0, lineEnd);
  }

  /** The file at the path now, against the one read: another file, or this one grown past the size read. */
  async afterReading(): Promise<AfterReading> {
    let st;
    try {
      st = await stat(this.path);
    } catch {
      return null; // gone: nothing left to load from it
    }
    if (st.dev !== this.id.dev || st.ino !== this.id.ino) return { kind: 'replaced' };
    return st.size > this.limit ? { kind: 'grown', size: st.size } : null;
  }

  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined);
  }
}
