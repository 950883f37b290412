/**
 * The reader whatever the content: blank lines cost no memory (they were kept, and copied again
 * at every chunk, until the next record), nor does a fixed-width file without line ends, a signal ends reading while only blank lines come,
 * and a gzip file with trailing garbage gives every complete line of its members, then stops
 * with GZIP_CORRUPT where the garbage starts.
 */
import { createWriteStream } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createGzip, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { openOrderFile, type FileItem } from '../../src/input/order-file.js';
import { parseProfileText } from '../../src/input/profile/load-profile.js';
import { HEADER, tempDir, writeTestFile } from '../support/files.js';

setFlagsFromString('--expose-gc');
/** A full garbage collection (V8's gc, exposed for this test's measure of what stays referenced). */
const gc = runInNewContext('gc') as () => void;

// blank lines inflate about 1,000 times: past the default --max-inflate, which these tests are not about
const options = { encoding: 'utf-8' as const, delimiter: ',', read: { maxInflate: 2000 } };
const MB = 1024 * 1024;

/** A gzip file: the header, line A, `blankMb` MiB of LF blank lines, line B. */
async function blankLinesGzip(blankMb: number): Promise<string> {
  const path = `${tempDir()}/blank.csv.gz`;
  const gzip = createGzip({ level: 1 });
  const done = new Promise<void>((resolve, reject) => {
    const out = createWriteStream(path);
    out.on('finish', resolve).on('error', reject);
    gzip.pipe(out);
  });
  gzip.write(`${HEADER}\nA,1,2026-01-01,1,JPY\n`);
  const blank = Buffer.alloc(MB, 0x0a);
  for (let i = 0; i < blankMb; i++) if (!gzip.write(blank)) await new Promise((resolve) => gzip.once('drain', resolve));
  gzip.end('B,2,2026-01-01,2,JPY\n');
  await done;
  return path;
}

/**
 * Reads every item of `path`, sampling the buffers still referenced (after a full collection)
 * above what was referenced before. On an idle machine the whole file can be read before a coarse
 * timer fires once: sample often, and once more after the first item, when the reader is between
 * two records with its window full.
 */
async function readSampled(path: string, open: Parameters<typeof openOrderFile>[1]) {
  const held = () => {
    gc();
    return process.memoryUsage().arrayBuffers;
  };
  const baseline = held();
  let peak = 0;
  let samples = 0;
  const sample = () => {
    samples++;
    peak = Math.max(peak, held() - baseline);
  };
  const timer = setInterval(sample, 10);
  const items: FileItem[] = [];
  try {
    const file = await openOrderFile(path, open);
    for await (const item of file.items) {
      items.push(item);
      if (items.length === 1) sample();
    }
  } finally {
    clearInterval(timer);
  }
  return { items, peak, samples };
}

const brief = (items: FileItem[]) =>
  items.map((i) => [i.kind, i.lineNo, i.kind === 'record' ? i.fields.source_key : i.code, i.endLine, i.endByte]);

describe('the reader, whatever the content', () => {
  it('blank lines are not held: 64 MiB of them between two lines hold less than 40 MiB of buffers, and lines are counted', async () => {
    const path = await blankLinesGzip(64);
    const { items, peak, samples } = await readSampled(path, options);
    const end = Buffer.byteLength(`${HEADER}\nA,1,2026-01-01,1,JPY\n`) + 64 * MB + Buffer.byteLength('B,2,2026-01-01,2,JPY\n');
    expect(brief(items)).toEqual([
      ['record', 2, 'A', 2, Buffer.byteLength(`${HEADER}\nA,1,2026-01-01,1,JPY\n`)],
      ['record', 3 + 64 * MB, 'B', 3 + 64 * MB, end],
    ]);
    expect(samples).toBeGreaterThan(1);
    // Kept, the blank lines alone are 64 MiB (and were copied again at every chunk). What is held
    // besides the reader's window is the byte source's read-ahead, which grows when the process
    // gets little CPU: 29 MB was seen with the machine's load at 20 (under 16 MB when idle).
    expect(peak).toBeLessThan(40 * MB);
  }, 240_000);

  it('line numbers, offsets and raw text stay exact when long runs of LF, CR and CRLF blank lines are dropped (BOM before them)', async () => {
    const run = (unit: string, bytes: number) => unit.repeat(Math.ceil(bytes / unit.length));
    const parts = [
      '\uFEFF',
      run('\r\n', 300_000),
      `${HEADER}\r\n`,
      'A,1,2026-01-01,1,JPY\n',
      run('\n', 400_000),
      'B,x,2026-01-01,2,JPY\r',
      run('\r', 300_001),
      'C,3,2026-01-01,3,JPY\r\n',
      run('\r\n\r\r\n\n', 600_000),
      'D,4,2026-01-01,4,JPY',
    ];
    const text = parts.join('');
    // the expected positions, counted line by line: every CRLF, LF or lone CR ends one line
    const expected: Array<[string, number, number, number]> = [];
    let line = 0;
    let offset = 0;
    for (const m of text.matchAll(/([^\r\n]*)(\r\n|\n|\r|$)/g)) {
      if (m[0] === '') break;
      line++;
      offset += Buffer.byteLength(m[0]);
      const content = (m[1] ?? '').replace(/^\uFEFF/, '');
      if (/^[A-D],/.test(content)) expected.push([content.slice(0, 1), line, line, offset]);
    }
    expect(expected.map((e) => e[0])).toEqual(['A', 'B', 'C', 'D']);
    const path = writeTestFile(text, 'blank-runs.csv');
    const items: FileItem[] = [];
    for await (const item of (await openOrderFile(path, options)).items) items.push(item);
    expect(items.map((i) => [i.kind === 'record' ? i.fields.source_key : i.raw.slice(0, 1), i.lineNo, i.endLine, i.endByte])).toEqual(
      expected,
    );
    expect(items[1]).toMatchObject({ kind: 'record', raw: 'B,x,2026-01-01,2,JPY' });
  }, 240_000);

  it('a signal ends the reading while only blank lines come: the items end within a second', async () => {
    const path = await blankLinesGzip(400);
    const controller = new AbortController();
    const file = await openOrderFile(path, { ...options, signal: controller.signal });
    const items: FileItem[] = [];
    setTimeout(() => controller.abort(), 300);
    let abortedAt = 0;
    controller.signal.addEventListener('abort', () => (abortedAt = performance.now()));
    const reading = (async () => {
      for await (const item of file.items) items.push(item);
    })();
    const outcome = await Promise.race([
      reading.then(() => 'ended'),
      new Promise((resolve) => setTimeout(() => resolve('still reading 10 s after the signal'), 10_300)),
    ]);
    file.close();
    expect(outcome).toBe('ended');
    expect(performance.now() - abortedAt).toBeLessThan(1000);
    expect(items.map((i) => (i.kind === 'record' ? i.fields.source_key : i.code))).toEqual(['A']);
  }, 240_000);

  it('gzip with trailing garbage: every complete line of its members is read, then GZIP_CORRUPT at the garbage', async () => {
    const rows = Array.from({ length: 6000 }, (_, i) => `K-${String(i).padStart(5, '0')},1,2026-01-01,1,JPY`);
    const first = gzipSync(Buffer.from(`${HEADER}\n${rows.slice(0, 3000).join('\n')}\n`));
    const second = gzipSync(Buffer.from(`${rows.slice(3000).join('\n')}\n`));
    const garbage = Buffer.from('trailing garbage, not gzip\n');
    const path = writeTestFile(Buffer.concat([first, second, garbage]), 'garbage.csv.gz');
    const items: FileItem[] = [];
    for await (const item of (await openOrderFile(path, options)).items) items.push(item);
    const records = items.filter((i) => i.kind === 'record');
    expect(records.map((r) => r.fields.source_key)).toEqual(rows.map((r) => r.split(',')[0]));
    const last = items.at(-1);
    expect(last).toMatchObject({ kind: 'reject', code: 'GZIP_CORRUPT', lineNo: 6002, stopsFile: true, endLine: 6002 });
    expect(last?.endByte).toBe(Buffer.byteLength(`${HEADER}\n${rows.join('\n')}\n`));
    expect(last?.kind === 'reject' ? last.message : '').toContain(
      `trailing data that is not gzip at byte ${first.length + second.length} of the file`,
    );
    expect(last?.kind === 'reject' ? last.message : '').toContain('could not be read past line 6001');
    // zero bytes after the last member are padding, not garbage
    const padded = writeTestFile(Buffer.concat([first, second, Buffer.alloc(512)]), 'padded.csv.gz');
    const read: FileItem[] = [];
    for await (const item of (await openOrderFile(padded, options)).items) read.push(item);
    expect(read.every((i) => i.kind === 'record')).toBe(true);
    expect(read).toHaveLength(6000);
  });

  it('a fixed-width file without line ends is not held: 64 MiB in one line hold less than 40 MiB of buffers, one CSV_MAX_RECORD_SIZE rejection', async () => {
    const path = `${tempDir()}/noeol.dat.gz`;
    const gzip = createGzip({ level: 1 });
    const done = new Promise<void>((resolve, reject) => {
      const out = createWriteStream(path);
      out.on('finish', resolve).on('error', reject);
      gzip.pipe(out);
    });
    gzip.write('D0001     5\n');
    const run = Buffer.alloc(MB, 0x41);
    for (let i = 0; i < 64; i++) if (!gzip.write(run)) await new Promise((resolve) => gzip.once('drain', resolve));
    gzip.end('\nD0003     7\n');
    await done;
    const profile = parseProfileText(
      'version: 1\nformat: fixed\ncolumns:\n  source_key: { at: [1, 5] }\n  customer_id: { at: [6, 6] }\n' +
        '  order_date: { const: "2026-12-01" }\n  amount: { const: "1" }\n  currency: { const: "JPY" }\n',
      'p.yaml',
      'p',
    );
    const { items, peak, samples } = await readSampled(path, { ...options, profile });
    expect(brief(items)).toEqual([
      ['record', 1, 'D0001', 1, 12],
      ['reject', 2, 'CSV_MAX_RECORD_SIZE', 2, 12 + 64 * MB + 1],
      ['record', 3, 'D0003', 3, 12 + 64 * MB + 1 + 12],
    ]);
    expect(samples).toBeGreaterThan(1);
    expect(peak).toBeLessThan(40 * MB); // as the blank lines above: the byte source's read-ahead, not the line
  }, 240_000);

  it('gzip whose member fails its CRC: its lines are read, then GZIP_CORRUPT', async () => {
    const rows = Array.from({ length: 500 }, (_, i) => `K-${i},1,2026-01-01,1,JPY`);
    const gz = gzipSync(Buffer.from(`${HEADER}\n${rows.join('\n')}\n`));
    gz[gz.length - 8] = (gz[gz.length - 8] ?? 0) ^ 0xff; // the trailer's CRC32
    const items: FileItem[] = [];
    for await (const item of (await openOrderFile(writeTestFile(gz, 'crc.csv.gz'), options)).items) items.push(item);
    expect(items.at(-1)).toMatchObject({ kind: 'reject', code: 'GZIP_CORRUPT', lineNo: 502 });
    expect(items.filter((i) => i.kind === 'record')).toHaveLength(500);
  });
});
