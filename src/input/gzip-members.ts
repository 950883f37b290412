/**
 * The members of a gzip file read one after the other (RFC 1952): each member's header read
 * here, its deflate data inflated raw in small pieces, its trailer checked (src/input/gzip.ts
 * opens a file's content through it).
 */
import * as zlib from 'node:zlib';
import { createInflateRaw, type InflateRaw } from 'node:zlib';
import type { InflateCap } from './inflate-cap.js';

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

/** The file's compressed bytes: those read and not yet consumed (`pending`), the rest read as needed. */
class GzipInput {
  pending: Buffer = EMPTY;
  /** The file offset of pending[0]. */
  offset = 0;
  eof = false;
  constructor(readonly file: AsyncIterator<Buffer>) {}

  async more(): Promise<boolean> {
    if (this.eof) return false;
    const next = await this.file.next();
    if (next.done === true) {
      this.eof = true;
      return false;
    }
    this.pending = this.pending.length === 0 ? next.value : Buffer.concat([this.pending, next.value]);
    return true;
  }

  async need(n: number): Promise<boolean> {
    while (this.pending.length < n) if (!(await this.more())) return false;
    return true;
  }

  consume(n: number): void {
    this.pending = this.pending.subarray(n);
    this.offset += n;
  }

  /** The position of the zero byte that ends a header string starting at `at`. */
  async stringEnd(at: number): Promise<number> {
    for (let from = at; ;) {
      const zero = this.pending.indexOf(0, from);
      if (zero !== -1) return zero;
      from = this.pending.length;
      if (!(await this.more())) throw truncated('the gzip data ends inside a member header');
    }
  }

  /** After a member: whether another follows (zero bytes after a member are padding, as gzip and zlib take them). */
  async anotherMember(): Promise<boolean> {
    for (;;) {
      let zeros = 0;
      while (zeros < this.pending.length && this.pending[zeros] === 0) zeros++;
      this.consume(zeros);
      if (this.pending.length > 0 || !(await this.more())) break;
    }
    if (this.pending.length === 0) return false;
    await this.need(2);
    if (this.pending[0] !== 0x1f || this.pending[1] !== 0x8b)
      throw damaged(`trailing data that is not gzip at byte ${this.offset} of the file, after the last complete gzip member`);
    return true;
  }

  /** A member's header, read and consumed. */
  async header(): Promise<void> {
    if (!(await this.need(10))) throw truncated('the gzip data ends inside a member header');
    if (this.pending[2] !== 8) throw damaged(`unknown compression method in the gzip member at byte ${this.offset} of the file`);
    const flags = this.pending[3] ?? 0;
    if ((flags & 0xe0) !== 0) throw damaged(`reserved header flags set in the gzip member at byte ${this.offset} of the file`);
    let at = 10;
    if ((flags & FEXTRA) !== 0) {
      if (!(await this.need(at + 2))) throw truncated('the gzip data ends inside a member header');
      at += 2 + this.pending.readUInt16LE(at);
    }
    if ((flags & FNAME) !== 0) at = (await this.stringEnd(at)) + 1;
    if ((flags & FCOMMENT) !== 0) at = (await this.stringEnd(at)) + 1;
    if ((flags & FHCRC) !== 0) at += 2;
    if (!(await this.need(at))) throw truncated('the gzip data ends inside a member header');
    this.consume(at);
  }

  /** A member's trailer, checked against its content's CRC and length, and consumed. */
  async trailer(memberStart: number, crc: number, size: number): Promise<void> {
    if (!(await this.need(8))) throw truncated('the gzip data ends inside a member trailer');
    if ((crc32 !== undefined && this.pending.readUInt32LE(0) !== crc >>> 0) || this.pending.readUInt32LE(4) !== size % 2 ** 32)
      throw damaged(`the gzip member at byte ${memberStart} of the file fails its check (CRC or length)`);
    this.consume(8);
  }
}

/** A member's deflate data as written to its inflater, and what was read past the data's end. */
class MemberFeed {
  /** The member's deflate data ended (the inflater ended, or took less than it was given). */
  ended = false;
  /** Written to the inflater: the pieces since the one holding the first byte not yet consumed. */
  readonly fed: Buffer[] = [];
  /** Bytes of the member's data before fed[0]. */
  fedStart = 0;
  /** Bytes of the member's data written. */
  fedEnd = 0;
  readonly unwritten: Buffer[] = [];

  constructor(readonly inflater: InflateRaw) {
    inflater.once('end', () => (this.ended = true));
  }

  /** Write one piece once the last was inflated (kept unwritten past the data's end); false: the write failed. */
  async write(piece: Buffer): Promise<boolean> {
    const inflater = this.inflater;
    if (this.ended || inflater.destroyed) {
      this.unwritten.push(piece);
      return true;
    }
    this.fed.push(piece);
    this.fedEnd += piece.length;
    const error = await new Promise<Error | null | undefined>((resolve) => inflater.write(piece, resolve));
    if (error != null) return false; // the reader's for-await sees it
    if (inflater.bytesWritten < this.fedEnd) this.ended = true;
    while (this.fed.length > 1 && this.fedStart + (this.fed[0]?.length ?? 0) <= inflater.bytesWritten)
      this.fedStart += this.fed.shift()?.length ?? 0;
    return true;
  }

  /** What the inflater was given past the member's data: its trailer and what follows. */
  rest(): Buffer {
    return Buffer.concat([...this.fed, ...this.unwritten]).subarray(this.inflater.bytesWritten - this.fedStart);
  }
}

/** Feed the member's deflate data from `pending` and the file until its end. */
async function pump(input: GzipInput, feed: MemberFeed): Promise<void> {
  let next: Buffer = input.pending;
  input.pending = EMPTY;
  for (;;) {
    // In small pieces, each written once the last was inflated: the output of one write is
    // pushed whatever the reader's pace, and deflate expands up to 1032 times (a MiB of
    // blank lines is 1 KiB of it). A piece not consumed to its end holds the member's end.
    for (let at = 0; at < next.length; at += INFLATE_PIECE) {
      if (!(await feed.write(next.subarray(at, at + INFLATE_PIECE)))) return;
    }
    if (feed.ended || feed.inflater.destroyed) return;
    const chunk = await input.file.next();
    if (chunk.done === true) {
      input.eof = true;
      feed.inflater.end();
      return;
    }
    next = chunk.value;
  }
}

/** The content of the member whose deflate data starts at `input`; returns its CRC and length, `input` left at its trailer. */
async function* inflateMember(
  input: GzipInput,
  onInflater: (inflater: InflateRaw) => void,
  cap: InflateCap,
): AsyncGenerator<Buffer, { crc: number; size: number }> {
  const inflater = createInflateRaw({ chunkSize: 64 * 1024 });
  onInflater(inflater);
  const feed = new MemberFeed(inflater);
  const dataStart = input.offset;
  const pumping = pump(input, feed);
  pumping.catch(() => undefined);
  let crc = 0;
  let size = 0;
  try {
    for await (const out of inflater as AsyncIterable<Buffer>) {
      if (crc32 !== undefined) crc = crc32(out, crc);
      size += out.length;
      const refused = cap.check(out.length, dataStart + inflater.bytesWritten);
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
  if (!feed.ended) throw truncated('the gzip data ends inside a member');
  input.pending = feed.rest();
  input.offset = dataStart + inflater.bytesWritten;
  return { crc, size };
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
export async function* gzipMembers(
  file: AsyncIterable<Buffer>,
  onInflater: (inflater: InflateRaw) => void,
  cap: InflateCap,
): AsyncGenerator<Buffer> {
  const input = new GzipInput(file[Symbol.asyncIterator]());
  for (let member = 0; ; member++) {
    if (member > 0 && !(await input.anotherMember())) return;
    const memberStart = input.offset;
    await input.header();
    const { crc, size } = yield* inflateMember(input, onInflater, cap);
    await input.trailer(memberStart, crc, size);
  }
}
