/**
 * The content of a gzip file (src/input/gzip.ts), read directly: member after member (RFC 1952),
 * the header's optional fields, padding, and every way the data can be damaged, each said with
 * its code and where. Through the reader: gzip-input.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GzipDataError, isGzipFile, openByteSource } from '../../src/input/gzip.js';
import { writeTestFile } from '../support/files.js';

/** All the content, or the content before the error and the error. */
async function content(
  path: string,
  from = 0,
  highWaterMark?: number,
  maxInflate?: number,
): Promise<{ data: Buffer; error: GzipDataError | null; fileBytes: number }> {
  const source = openByteSource(path, { gzip: true, from, maxInflate, ...(highWaterMark === undefined ? {} : { highWaterMark }) });
  const parts: Buffer[] = [];
  let error: GzipDataError | null = null;
  try {
    for (;;) {
      const next = await source.chunks.next();
      if (next.done === true) break;
      parts.push(next.value);
    }
  } catch (e) {
    if (!(e instanceof GzipDataError)) throw e;
    error = e;
  } finally {
    source.close();
  }
  return { data: Buffer.concat(parts), error, fileBytes: source.fileBytesRead() };
}

const gz = (data: string | Buffer, level?: number) => gzipSync(data, level === undefined ? {} : { level });
const causeOf = (error: GzipDataError | null) => (error?.cause as Error | undefined)?.message;

/** A member with header flags set and their fields written (FEXTRA, FNAME, FCOMMENT, FHCRC). */
function withHeaderFields(body: Buffer, fields: { extra?: Buffer; name?: string; comment?: string; hcrc?: boolean }): Buffer {
  const plain = gz(body);
  const header = Buffer.from(plain.subarray(0, 10));
  let flags = 0;
  const parts: Buffer[] = [];
  if (fields.extra !== undefined) {
    flags |= 0x04;
    const len = Buffer.alloc(2);
    len.writeUInt16LE(fields.extra.length);
    parts.push(len, fields.extra);
  }
  if (fields.name !== undefined) {
    flags |= 0x08;
    parts.push(Buffer.from(`${fields.name}\0`, 'latin1'));
  }
  if (fields.comment !== undefined) {
    flags |= 0x10;
    parts.push(Buffer.from(`${fields.comment}\0`, 'latin1'));
  }
  if (fields.hcrc === true) {
    flags |= 0x02;
    parts.push(Buffer.from([0xab, 0xcd]));
  }
  header[3] = flags;
  return Buffer.concat([header, ...parts, plain.subarray(10)]);
}

describe('isGzipFile: the two magic bytes', () => {
  it('both bytes, in a file of at least two', async () => {
    const check = (bytes: number[]) => isGzipFile(writeTestFile(Buffer.from(bytes)));
    expect(await check([0x1f, 0x8b])).toBe(true);
    expect(await check([0x1f, 0x8b, 0x08])).toBe(true);
    expect(await check([0x1f])).toBe(false);
    expect(await check([])).toBe(false);
    expect(await check([0x1f, 0x8c])).toBe(false);
    expect(await check([0x1e, 0x8b])).toBe(false);
    expect(await check([0x8b, 0x1f])).toBe(false);
  });
});

describe('openByteSource over gzip: the content', () => {
  it('several members one after the other, zero bytes of padding between and after them', async () => {
    const file = writeTestFile(Buffer.concat([gz('one\n'), gz('two\n'), Buffer.alloc(5), gz('three\n'), Buffer.alloc(3)]));
    const { data, error, fileBytes } = await content(file);
    expect(error).toBeNull();
    expect(data.toString()).toBe('one\ntwo\nthree\n');
    expect(fileBytes).toBeGreaterThan(0);
  });

  it('a large member (many 8 KiB pieces) followed by another: the first ends where it ends, the second read whole', async () => {
    const big = randomBytes(300_000);
    const small = Buffer.from('after\n');
    const file = writeTestFile(Buffer.concat([gz(big, 1), gz(small)]));
    for (const highWaterMark of [undefined, 1000, 64 * 1024]) {
      const { data, error } = await content(file, 0, highWaterMark);
      expect(error).toBeNull();
      expect(data.equals(Buffer.concat([big, small]))).toBe(true);
    }
    // a highly compressible member: its output far larger than its input (about 1,000 times:
    // past the default --max-inflate, which the next test is about)
    const blank = Buffer.alloc(3_000_000, 0x0a);
    const dense = writeTestFile(Buffer.concat([gz(blank), gz(small)]));
    const read = await content(dense, 0, undefined, 2000);
    expect(read.error).toBeNull();
    expect(read.data.length).toBe(blank.length + small.length);
    expect(read.data.subarray(-6).toString()).toBe('after\n');
  });

  it('past --max-inflate times the compressed bytes read (after the first MiB): GZIP_INFLATE_LIMIT, the content before it read', async () => {
    const blank = Buffer.alloc(3_000_000, 0x0a);
    const dense = writeTestFile(gz(blank));
    const capped = await content(dense);
    expect(capped.error?.code).toBe('GZIP_INFLATE_LIMIT');
    expect(capped.error?.message).toMatch(
      /^the gzip data inflates to more than 200 times its size \(\d+ bytes of content from \d+ compressed\)/,
    );
    expect(capped.data.length).toBeGreaterThanOrEqual(1024 * 1024);
    expect(capped.data.length).toBeLessThan(blank.length);
    // a ratio of 2 on content that compresses about 1.0 times (random bytes): read whole
    const random = randomBytes(2_000_000);
    const read = await content(writeTestFile(gz(random, 1)), 0, undefined, 2);
    expect(read.error).toBeNull();
    expect(read.data.equals(random)).toBe(true);
  });

  it('resumed at a content offset: the content from there, across chunks and members', async () => {
    const a = Buffer.from('a'.repeat(70_000));
    const b = Buffer.from('b'.repeat(100));
    const file = writeTestFile(Buffer.concat([gz(a), gz(b)]));
    for (const from of [1, 65_536, 69_999, 70_000, 70_050, 70_100]) {
      const { data } = await content(file, from);
      expect(data.equals(Buffer.concat([a, b]).subarray(from)), `from ${from}`).toBe(true);
    }
    // a plain file: from the offset, and the bytes read counted from it
    const plain = writeTestFile('0123456789');
    const source = openByteSource(plain, { gzip: false, from: 4 });
    const first = await source.chunks.next();
    expect((first.value as Buffer).toString()).toBe('456789');
    await source.chunks.next();
    expect(source.fileBytesRead()).toBe(10);
    source.close();
  });

  it('the optional header fields (extra, name, comment, header CRC) are passed over', async () => {
    const body = Buffer.from('orders\n');
    const all = writeTestFile(withHeaderFields(body, { extra: Buffer.from('xyzw'), name: 'orders.csv', comment: 'nightly', hcrc: true }));
    expect((await content(all)).data.toString()).toBe('orders\n');
    for (const fields of [{ extra: Buffer.alloc(0) }, { name: '' }, { comment: 'c' }, { hcrc: true }, { name: 'n'.repeat(70_000) }]) {
      const { data, error } = await content(writeTestFile(Buffer.concat([withHeaderFields(body, fields), gz('2\n')])));
      expect([data.toString(), error]).toEqual(['orders\n2\n', null]);
    }
  });
});

describe('openByteSource over gzip: what spans the chunks read', () => {
  it('a header name longer than a chunk, padding across several chunks, at the end too', async () => {
    const named = writeTestFile(
      Buffer.concat([withHeaderFields(Buffer.from('orders\n'), { name: 'n'.repeat(5000), comment: 'c'.repeat(3000) }), gz('2\n')]),
    );
    expect(await content(named, 0, 1000)).toMatchObject({ error: null, data: Buffer.from('orders\n2\n') });
    const padded = writeTestFile(Buffer.concat([gz('one\n'), Buffer.alloc(3000), gz('two\n'), Buffer.alloc(2500)]));
    for (const highWaterMark of [7, 1000, 4096]) {
      const { data, error } = await content(padded, 0, highWaterMark);
      expect([data.toString(), error], `chunks of ${highWaterMark}`).toEqual(['one\ntwo\n', null]);
    }
  });

  it('bytes after a member that start like a member but for the first magic byte: trailing data, said at their offset', async () => {
    const first = gz('one\n');
    const lookalike = Buffer.from([0x1e, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03, 0x01, 0x02]);
    for (const highWaterMark of [undefined, 5]) {
      const { data, error } = await content(writeTestFile(Buffer.concat([first, lookalike])), 0, highWaterMark);
      expect([data.toString(), causeOf(error)]).toEqual([
        'one\n',
        `trailing data that is not gzip at byte ${first.length} of the file, after the last complete gzip member`,
      ]);
    }
  });
});

describe('openByteSource over gzip: damage, said with its code and where', () => {
  it('trailing bytes that are not gzip after a complete member: its content, then GZIP_CORRUPT at their offset', async () => {
    const first = gz('one\n');
    const file = writeTestFile(Buffer.concat([first, Buffer.from('garbage')]));
    const { data, error } = await content(file);
    expect(data.toString()).toBe('one\n');
    expect(error?.code).toBe('GZIP_CORRUPT');
    expect(error?.name).toBe('GzipDataError');
    expect(error?.message).toBe(
      `the gzip data is damaged (trailing data that is not gzip at byte ${first.length} of the file, after the last complete gzip member)`,
    );
    // after padding: the offset past it
    const padded = await content(writeTestFile(Buffer.concat([first, Buffer.alloc(4), Buffer.from([0x1f, 0x00])])));
    expect(causeOf(padded.error)).toBe(
      `trailing data that is not gzip at byte ${first.length + 4} of the file, after the last complete gzip member`,
    );
    // one magic byte right is not a member
    const half = await content(writeTestFile(Buffer.concat([first, Buffer.from([0x00, 0x8b, 0x08])])));
    expect(padded.data.toString()).toBe('one\n');
    expect(half.error?.code).toBe('GZIP_CORRUPT');
  });

  it('a member of another compression method, or with reserved flags: GZIP_CORRUPT naming the member', async () => {
    const first = gz('one\n');
    const method = Buffer.from(gz('two\n'));
    method[2] = 7;
    const a = await content(writeTestFile(Buffer.concat([first, method])));
    expect([a.data.toString(), causeOf(a.error)]).toEqual([
      'one\n',
      `unknown compression method in the gzip member at byte ${first.length} of the file`,
    ]);
    const reserved = Buffer.from(gz('two\n'));
    reserved[3] = 0x20;
    const b = await content(writeTestFile(reserved));
    expect([b.data.toString(), b.error?.code, causeOf(b.error)]).toEqual([
      '',
      'GZIP_CORRUPT',
      'reserved header flags set in the gzip member at byte 0 of the file',
    ]);
  });

  it('a member whose CRC or length does not match its content: GZIP_CORRUPT after the content', async () => {
    const member = gz('checked\n');
    for (const at of [member.length - 8, member.length - 4]) {
      const bad = Buffer.from(member);
      bad[at] = (bad[at] ?? 0) ^ 0xff;
      const { data, error } = await content(writeTestFile(Buffer.concat([gz('first\n'), bad])));
      expect(data.toString()).toBe('first\nchecked\n');
      expect(causeOf(error)).toBe(`the gzip member at byte ${gz('first\n').length} of the file fails its check (CRC or length)`);
      expect(error?.message).toMatch(/^the gzip data is damaged \(the gzip member at byte \d+ of the file fails its check/);
    }
  });

  it('deflate data that is not deflate: GZIP_CORRUPT', async () => {
    const bad = Buffer.from(gz('x'.repeat(1000)));
    bad.fill(0xff, 10, 20);
    const { error } = await content(writeTestFile(bad));
    expect(error?.code).toBe('GZIP_CORRUPT');
  });

  it('cut anywhere: GZIP_TRUNCATED, with the content before the cut', async () => {
    const body = Buffer.from(Array.from({ length: 3000 }, (_, i) => `line ${i}\n`).join(''));
    const whole = withHeaderFields(body, { extra: Buffer.from('xy'), name: 'n.csv', comment: 'c', hcrc: true });
    const cases: Array<[number, string | undefined]> = [
      [5, 'the gzip data ends inside a member header'], // in the fixed header
      [11, 'the gzip data ends inside a member header'], // in the extra field's length
      [16, 'the gzip data ends inside a member header'], // in the name
      [21, 'the gzip data ends inside a member header'], // in the comment
      [23, 'the gzip data ends inside a member header'], // in the header CRC
      [whole.length - 4, 'the gzip data ends inside a member trailer'],
    ];
    for (const [length, cause] of cases) {
      const { data, error } = await content(writeTestFile(whole.subarray(0, length)));
      expect([error?.code, causeOf(error)], `cut at ${length}`).toEqual(['GZIP_TRUNCATED', cause]);
      expect(error?.message).toBe('the gzip data ends early (the file is truncated)');
      expect(body.subarray(0, data.length).equals(data)).toBe(true);
    }
    // inside the deflate data: zlib's own error, or the member's end not reached
    const mid = await content(writeTestFile(whole.subarray(0, Math.floor(whole.length / 2))));
    expect(mid.error?.code).toBe('GZIP_TRUNCATED');
    expect(mid.data.length).toBeGreaterThan(0);
    expect(body.subarray(0, mid.data.length).equals(mid.data)).toBe(true);
    // a second member cut in its header
    const two = await content(writeTestFile(Buffer.concat([gz('one\n'), gz('two\n').subarray(0, 6)])));
    expect([two.data.toString(), causeOf(two.error)]).toEqual(['one\n', 'the gzip data ends inside a member header']);
  });

  it.runIf(process.platform === 'linux')('closed before its end: the file let go', async () => {
    const file = writeTestFile(gz(randomBytes(500_000), 1));
    const open = () => readdirSync('/proc/self/fd').length;
    const before = open();
    for (let i = 0; i < 3; i++) {
      const source = openByteSource(file, { gzip: true, highWaterMark: 1024 });
      expect((await source.chunks.next()).done).toBe(false);
      source.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(open()).toBe(before);
  });
});
