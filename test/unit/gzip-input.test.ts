import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { sha256File } from '../../src/input/file-digest.js';
import { openOrderFile, type FileItem } from '../../src/input/order-file.js';
import { UserError } from '../../src/errors.js';
import { HEADER, writeTestFile } from '../support/files.js';

// a record over 48 characters (the header has 45) is rejected alone (the one line-local CSV error: a stray quote is data)
const options = { encoding: 'utf-8' as const, delimiter: ',', maxRecordSize: 48 };

async function readAll(path: string, resumeAt?: { byte: number; line: number }): Promise<FileItem[]> {
  const file = await openOrderFile(path, { ...options, resumeAt });
  const items: FileItem[] = [];
  for await (const item of file.items) items.push(item);
  return items;
}

const brief = (items: FileItem[]) => items.map((i) => [i.kind, i.lineNo, i.kind === 'record' ? i.fields.source_key : i.code, i.endByte]);

// line 4 is a record too large (rejected alone, read on with a fresh parser): the skip path too
const text = `${HEADER}\nA,1,2026-01-01,1,JPY\nB,2,2026-01-01,2,JPY\nC,3,2026-01-01,3,${'X'.repeat(50)}\nD,4,2026-01-01,4,JPY\nE,5,2026-01-01,5,JPY\n`;

describe('gzip order files', () => {
  it('are read by their magic bytes whatever their name, with the same items and content offsets as the plain file', async () => {
    const plain = writeTestFile(text, 'plain.csv');
    const gz = writeTestFile(gzipSync(Buffer.from(text)), 'named-plain.csv');
    const items = await readAll(gz);
    expect(brief(items)).toEqual(brief(await readAll(plain)));
    expect(items.map((i) => (i.kind === 'record' ? i.fields.source_key : i.code))).toEqual(['A', 'B', 'CSV_MAX_RECORD_SIZE', 'D', 'E']);
    expect(items.at(-1)?.endByte).toBe(Buffer.byteLength(text));
  });

  it('resume at a content offset: decompressed and passed over up to it, then the same items as the plain file', async () => {
    const plain = writeTestFile(text, 'plain.csv');
    const gz = writeTestFile(gzipSync(Buffer.from(text)), 'orders.csv.gz');
    const all = await readAll(gz);
    for (const at of all.slice(0, -1)) {
      const resumeAt = { byte: at.endByte!, line: at.endLine };
      expect(brief(await readAll(gz, resumeAt)), `resumed after line ${at.lineNo}`).toEqual(brief(await readAll(plain, resumeAt)));
      expect(brief(await readAll(gz, resumeAt))).toEqual(brief(all.filter((i) => i.lineNo > at.lineNo)));
    }
  });

  it('a truncated gzip stops the file at the last complete line (GZIP_TRUNCATED), the lines before it read', async () => {
    const rows = Array.from({ length: 2000 }, (_, i) => `K-${String(i).padStart(5, '0')},1,2026-01-01,1,JPY`).join('\n');
    const whole = gzipSync(Buffer.from(`${HEADER}\n${rows}\n`));
    const path = writeTestFile(whole.subarray(0, Math.floor(whole.length * 0.6)), 'cut.csv.gz');
    const items = await readAll(path);
    const last = items.at(-1);
    expect(last).toMatchObject({ kind: 'reject', code: 'GZIP_TRUNCATED', stopsFile: true });
    expect(last?.kind === 'reject' ? last.message : '').toContain('the gzip data ends early (the file is truncated)');
    const records = items.filter((i) => i.kind === 'record');
    expect(records.length).toBeGreaterThan(0);
    expect(records.length).toBeLessThan(2000);
    expect(records.every((r, i) => r.fields.source_key === `K-${String(i).padStart(5, '0')}`)).toBe(true);
  });

  it('data after the last member (GZIP_CORRUPT): every complete line before it is read, also with part of a line after it and a quote in the file', async () => {
    const long = `C,3,2026-01-01,3,${'X'.repeat(50)}`; // over maxRecordSize: rejected alone (the skip path)
    for (const first of ['A', '"A"'])
      for (const middle of [[], [long]])
        for (const tail of ['\n', '\nX', '\nXY', '\r\nX', '\rX', 'X', '\n\nX']) {
          const content = [HEADER, `${first},1,2026-01-01,1,JPY`, ...middle, `B,2,2026-01-01,2,JPY${tail}`].join('\n');
          const path = writeTestFile(Buffer.concat([gzipSync(Buffer.from(content)), Buffer.from('not gzip')]), 'garbage.csv.gz');
          const complete = tail !== 'X';
          const want = [
            ['record', 2, 'A'],
            ...middle.map(() => ['reject', 3, 'CSV_MAX_RECORD_SIZE']),
            ...(complete ? [['record', 3 + middle.length, 'B']] : []),
            // the file could not be read past the last line read
            ['reject', (complete ? 4 : 3) + middle.length, 'GZIP_CORRUPT'],
          ];
          for (const csvParseOnly of [false, true]) {
            const file = await openOrderFile(path, { ...options, csvParseOnly });
            const items: FileItem[] = [];
            for await (const item of file.items) items.push(item);
            const what = `${JSON.stringify(first + tail)}${middle.length > 0 ? ' after a long line' : ''}${csvParseOnly ? ', csv-parse alone' : ''}`;
            expect(
              items.map((i) => [i.kind, i.lineNo, i.kind === 'record' ? i.fields.source_key : i.code]),
              what,
            ).toEqual(want);
          }
        }
  });

  it('a gzip cut inside its header line is refused as unreadable', async () => {
    const path = writeTestFile(gzipSync(Buffer.from(text)).subarray(0, 12), 'tiny.csv.gz');
    await expect(openOrderFile(path, options)).rejects.toThrow(UserError);
    await expect(openOrderFile(path, options)).rejects.toThrow(/line 1: cannot read the header: the gzip data/);
  });

  it('identity: the sha256 of the content, so the same orders compressed again (another header time) are the same file', async () => {
    const plain = writeTestFile(text, 'plain.csv');
    const gz = gzipSync(Buffer.from(text));
    const again = Buffer.from(gz);
    again.writeUInt32LE(0x12345678, 4); // the gzip header's MTIME
    const a = writeTestFile(gz, 'a.csv.gz');
    const b = writeTestFile(again, 'b.csv.gz');
    expect(await sha256File(a)).toBe(await sha256File(plain));
    expect(await sha256File(b)).toBe(await sha256File(plain));
    // a truncated one is never the same as a complete file holding the content read
    const cut = writeTestFile(gz.subarray(0, gz.length - 4), 'cut.csv.gz');
    expect(await sha256File(cut)).not.toBe(await sha256File(plain));
  });
});
