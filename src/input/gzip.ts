/**
 * The bytes of an order file as a stream: the file itself, or, when it starts with the gzip magic
 * bytes (1f 8b) whatever its name, its decompressed content. Offsets (resume points, a skipped
 * line's end) are always offsets into that content: resuming a gzip file decompresses it from
 * the start and passes over the bytes before the offset.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import * as zlib from 'node:zlib';
import { createInflateRaw, type InflateRaw } from 'node:zlib';
import { OpenedFile } from './opened-file.js';
import { inflateCap, type InflateCap } from './inflate-cap.js';

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

/** Decompression failed: the gzip data ends early or is damaged. The content before it was read. */
export class GzipDataError extends Error {
  constructor(
    readonly code: 'GZIP_TRUNCATED' | 'GZIP_CORRUPT' | 'GZIP_INFLATE_LIMIT',
    options: { cause: unknown },
  ) {
    super(
      code === 'GZIP_TRUNCATED'
        ? 'the gzip data ends early (the file is truncated)'
        : code === 'GZIP_CORRUPT'
          ? `the gzip data is damaged (${(options.cause as Error).message})`
          : (options.cause as Error).message,
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

const EMPTY = Buffer.alloc(0);
/** Compressed bytes per write to the inflater: at most about 8 MiB of content at once. */
const INFLATE_PIECE = 8 * 1024;
const FHCRC = 0x02;
const FEXTRA = 0x04;
const FNAME = 0x08;
const FCOMMENT = 0x10;

/** zlib.crc32 (Node 20.15+; without it the members' CRC is not checked, their length still is). */
const crc32 = (zlib as { crc32?: (data: Buffer, value?: number) => number }).crc32;

function damaged(message: string): GzipDataError {
  return new GzipDataError('GZIP_CORRUPT', { cause: new Error(message) });
}
function truncated(message: string): GzipDataError {
  return new GzipDataError('GZIP_TRUNCATED', { cause: new Error(message) });
}

/**
 * The decompressed content of a gzip file, member after member (RFC 1952: a file may hold
 * several; zero bytes after the last are padding). Each member's header is read here and its
 * deflate data inflated raw, so that where a member ends is known: zlib's gunzip, given bytes
 * after a member that are not another member ("trailing garbage", which gzip -d ignores with a
 * warning), failed with Z_DATA_ERROR and dropped the content of its last output buffer (about
 * 2,000 complete lines lost, and the damage placed before them). Here every byte of the valid
 * members is delivered, then GZIP_CORRUPT names the file offset where the garbage starts.
 */
async function* gzipMembers(
  file: AsyncIterable<Buffer>,
  onInflater: (inflater: InflateRaw) => void,
  cap: InflateCap,
): AsyncGenerator<Buffer> {
  const input = file[Symbol.asyncIterator]();
  let pending: Buffer = EMPTY;
  let offset = 0; // file offset of pending[0]
  let eof = false;
  const more = async (): Promise<boolean> => {
    if (eof) return false;
    const next = await input.next();
    if (next.done === true) {
      eof = true;
      return false;
    }
    pending = pending.length === 0 ? next.value : Buffer.concat([pending, next.value]);
    return true;
  };
  const need = async (n: number): Promise<boolean> => {
    while (pending.length < n) if (!(await more())) return false;
    return true;
  };
  const consume = (n: number): void => {
    pending = pending.subarray(n);
    offset += n;
  };
  /** The position of the zero byte that ends a header string starting at `at`. */
  const stringEnd = async (at: number): Promise<number> => {
    for (let from = at; ;) {
      const zero = pending.indexOf(0, from);
      if (zero !== -1) return zero;
      from = pending.length;
      if (!(await more())) throw truncated('the gzip data ends inside a member header');
    }
  };
  for (let member = 0; ; member++) {
    if (member > 0) {
      // zero bytes after a member are padding (as gzip and zlib take them)
      for (;;) {
        let zeros = 0;
        while (zeros < pending.length && pending[zeros] === 0) zeros++;
        consume(zeros);
        if (pending.length > 0 || !(await more())) break;
      }
      if (pending.length === 0) return;
      await need(2);
      if (pending[0] !== 0x1f || pending[1] !== 0x8b)
        throw damaged(`trailing data that is not gzip at byte ${offset} of the file, after the last complete gzip member`);
    }
    if (!(await need(10))) throw truncated('the gzip data ends inside a member header');
    if (pending[2] !== 8) throw damaged(`unknown compression method in the gzip member at byte ${offset} of the file`);
    const flags = pending[3] ?? 0;
    if ((flags & 0xe0) !== 0) throw damaged(`reserved header flags set in the gzip member at byte ${offset} of the file`);
    let at = 10;
    if ((flags & FEXTRA) !== 0) {
      if (!(await need(at + 2))) throw truncated('the gzip data ends inside a member header');
      at += 2 + pending.readUInt16LE(at);
    }
    if ((flags & FNAME) !== 0) at = (await stringEnd(at)) + 1;
    if ((flags & FCOMMENT) !== 0) at = (await stringEnd(at)) + 1;
    if ((flags & FHCRC) !== 0) at += 2;
    if (!(await need(at))) throw truncated('the gzip data ends inside a member header');
    const memberStart = offset;
    consume(at);

    // the member's deflate data: fed from `pending` and the file, read until its end
    const inflater = createInflateRaw({ chunkSize: 64 * 1024 });
    onInflater(inflater);
    // the member's deflate data ended (an object: TypeScript's narrowing does not see the pump)
    const state = { ended: false };
    inflater.once('end', () => (state.ended = true));
    // Written to the inflater: the pieces since the one holding the first byte not yet consumed.
    const fed: Buffer[] = [];
    let fedStart = 0; // bytes of the member's data before fed[0]
    let fedEnd = 0; // bytes of the member's data written
    const unwritten: Buffer[] = [];
    const pump = async (): Promise<void> => {
      let next: Buffer = pending;
      pending = EMPTY;
      for (;;) {
        // In small pieces, each written once the last was inflated: the output of one write is
        // pushed whatever the reader's pace, and deflate expands up to 1032 times (a MiB of
        // blank lines is 1 KiB of it). A piece not consumed to its end holds the member's end.
        for (let at = 0; at < next.length; at += INFLATE_PIECE) {
          const piece = next.subarray(at, at + INFLATE_PIECE);
          if (state.ended || inflater.destroyed) {
            unwritten.push(piece);
            continue;
          }
          fed.push(piece);
          fedEnd += piece.length;
          const error = await new Promise<Error | null | undefined>((resolve) => inflater.write(piece, resolve));
          if (error != null) return; // the reader's for-await sees it
          if (inflater.bytesWritten < fedEnd) state.ended = true;
          while (fed.length > 1 && fedStart + (fed[0]?.length ?? 0) <= inflater.bytesWritten) fedStart += fed.shift()?.length ?? 0;
        }
        if (state.ended || inflater.destroyed) return;
        const chunk = await input.next();
        if (chunk.done === true) {
          eof = true;
          inflater.end();
          return;
        }
        next = chunk.value;
      }
    };
    const pumping = pump();
    pumping.catch(() => undefined);
    let crc = 0;
    let size = 0;
    try {
      for await (const out of inflater as AsyncIterable<Buffer>) {
        if (crc32 !== undefined) crc = crc32(out, crc);
        size += out.length;
        const refused = cap.check(out.length, offset + inflater.bytesWritten);
        if (refused !== null) throw new GzipDataError('GZIP_INFLATE_LIMIT', { cause: new Error(refused) });
        yield out;
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'Z_BUF_ERROR') throw new GzipDataError('GZIP_TRUNCATED', { cause: error });
      if (code === 'Z_DATA_ERROR' || code === 'Z_NEED_DICT') throw new GzipDataError('GZIP_CORRUPT', { cause: error });
      throw error;
    }
    await pumping;
    if (!state.ended) throw truncated('the gzip data ends inside a member');
    // what the inflater was given past the member's data: its trailer and what follows
    const consumed = inflater.bytesWritten;
    const rest = Buffer.concat([...fed, ...unwritten]).subarray(consumed - fedStart);
    pending = rest;
    offset = memberStart + at + consumed;
    if (!(await need(8))) throw truncated('the gzip data ends inside a member trailer');
    if ((crc32 !== undefined && pending.readUInt32LE(0) !== crc >>> 0) || pending.readUInt32LE(4) !== size % 2 ** 32)
      throw damaged(`the gzip member at byte ${memberStart} of the file fails its check (CRC or length)`);
    consume(8);
  }
}
