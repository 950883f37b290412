/**
 * The reader splits input without a quote itself and leaves the rest to csv-parse
 * (src/input/order-file.ts, splitLines). Both must make the same items of every file: each file
 * here is read twice, with the split and with csv-parse alone (`csvParseOnly`), and every item
 * compared (kind, line numbers, byte offsets, raw text, fields, codes and messages), also when
 * resumed at record ends. Small reads put hundreds of chunk boundaries in each file.
 */
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/bench/synthetic-orders.js';
import { openOrderFile, type FileItem, type OrderFileOptions } from '../../src/input/order-file.js';
import { parseProfileText } from '../../src/input/profile/load-profile.js';
import { HEADER, writeTestFile } from '../support/files.js';

interface Shape {
  delimiter: string;
  /** Chance that a line holds something only csv-parse reads (quotes, a lone CR). */
  oddLines: number;
}

/** A file of `lines` data lines with every kind of line the split and csv-parse must agree on. */
function generate(seed: number, lines: number, shape: Shape): Buffer {
  const next = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
  const d = shape.delimiter;
  const parts: Buffer[] = [Buffer.from(next() < 0.3 ? `\ufeff${HEADER.replaceAll(',', d)}\n` : `${HEADER.replaceAll(',', d)}\r\n`)];
  let odd = false;
  for (let i = 0; i < lines; i++) {
    // odd lines come in runs, so that some reads have a quote and others none
    if (next() < 0.05) odd = next() < shape.oddLines * 10;
    const field = (): string => {
      const r = next();
      if (odd && r < 0.15) return pick([`"q${d}uoted"`, '"a\nb"', '"a\r\nb"', 'st"ray', '"x"y', '""', '"open']);
      if (odd && r < 0.2) return pick(['a\rb', '\r']);
      if (r < 0.3) return `K-${i}`;
      if (r < 0.4) return '';
      if (r < 0.5) return pick(['注文', 'Straße', '𠮷', '\ufeffbom', ' blank ', '\t']);
      if (r < 0.55) return pick(['\u0000', 'x\u0000y']);
      if (r < 0.6) return 'Z'.repeat(Math.floor(next() * 120));
      return String(Math.floor(next() * 100000));
    };
    const count = next() < 0.9 ? 5 : pick([1, 4, 6, 9]);
    const fields = Array.from({ length: count }, field);
    const ending = pick(['\n', '\n', '\r\n', '\r\n', odd ? '\r' : '\n']);
    let line = Buffer.from(fields.join(d) + ending);
    // bytes that are not UTF-8
    if (next() < 0.01) line = Buffer.concat([Buffer.from([0xff, 0xc3]), line]);
    parts.push(line);
    if (next() < 0.03) parts.push(Buffer.from(pick(['\n', '\r\n', '\n\n', ' \n', d + '\n'])));
  }
  // the last line with or without its line end
  if (next() < 0.5) parts.push(Buffer.from(`last${d}1${d}2026-01-01${d}1${d}JPY`));
  return Buffer.concat(parts);
}

async function items(path: string, options: OrderFileOptions): Promise<Array<Record<string, unknown>>> {
  const file = await openOrderFile(path, options);
  const out: Array<Record<string, unknown>> = [];
  for await (const item of file.items) out.push(shown(item));
  return out;
}

function shown(item: FileItem): Record<string, unknown> {
  return item.kind === 'record'
    ? { kind: item.kind, lineNo: item.lineNo, endLine: item.endLine, endByte: item.endByte, raw: item.raw, fields: item.fields }
    : { ...item };
}

async function compare(path: string, options: OrderFileOptions): Promise<number> {
  const split = await items(path, options);
  const csv = await items(path, { ...options, csvParseOnly: true });
  expect(split).toEqual(csv);
  // resumed at a few record ends (byte offsets are known in UTF-8 only)
  if (options.profile === undefined) {
    const ends = split.filter((i) => i.kind === 'record').filter((_, k) => k % 97 === 3);
    for (const at of ends.slice(0, 4)) {
      const resumeAt = { byte: at.endByte as number, line: at.endLine as number };
      const a = await items(path, { ...options, resumeAt });
      const b = await items(path, { ...options, resumeAt, csvParseOnly: true });
      expect(a).toEqual(b);
      expect(a).toEqual(split.slice(split.indexOf(at) + 1));
    }
  }
  return split.length;
}

describe('the quote-free split reads every file as csv-parse does', () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`seed ${seed}: quotes, CR, CRLF, blank lines, BOM, NUL, bytes that are not UTF-8, long lines, small reads`, async () => {
      const bytes = generate(seed, 3000, { delimiter: ',', oddLines: seed % 2 === 0 ? 0.002 : 0.02 });
      const path = writeTestFile(bytes);
      const options: OrderFileOptions = { encoding: 'utf-8', delimiter: ',', readChunkSize: 257 + seed * 100, maxRecordSize: 150 };
      expect(await compare(path, options)).toBeGreaterThan(2900);
    });
  }

  it('a profile: ";" between fields, windows-1252, banner lines before the header, `when` and `extra: keep`', async () => {
    const profile = parseProfileText(
      [
        'version: 1',
        'format: csv',
        'encoding: windows-1252',
        'delimiter: ";"',
        'skip_lines: 2',
        'extra: keep',
        'columns:',
        '  source_key: { column: source_key }',
        '  customer_id: { column: customer_id }',
        '  order_date: { column: order_date }',
        '  amount: { column: amount }',
        '  currency: { column: currency }',
      ].join('\n'),
      'test.yaml',
      'test',
    );
    for (const seed of [11, 12, 13]) {
      const text = generate(seed, 2000, { delimiter: ';', oddLines: 0.01 })
        .toString('utf8')
        .replace(/^\ufeff/, '')
        .replace(/[^\u0000-\u00ff]/g, '?');
      const path = writeTestFile(Buffer.concat([Buffer.from('banner one\nbanner; two\n'), Buffer.from(text, 'latin1')]));
      const options: OrderFileOptions = { encoding: 'utf-8', delimiter: ';', profile, readChunkSize: 333 };
      expect(await compare(path, options)).toBeGreaterThan(1800);
    }
  });

  it('reads of 64 KiB and 256 KiB (the default): the split stops after 128 records and goes on from there, a quote or a lone CR further on', async () => {
    for (const [seed, readChunkSize] of [
      [21, 64 * 1024],
      [22, undefined],
    ] as const) {
      const path = writeTestFile(generate(seed, 12_000, { delimiter: ',', oddLines: 0.004 }));
      expect(await compare(path, { encoding: 'utf-8', delimiter: ',', readChunkSize, maxRecordSize: 150 })).toBeGreaterThan(11_500);
    }
  });

  it('a BOM, then more blank lines than the reader holds (256 KiB, dropped and counted), then the header', async () => {
    // the blank lines dropped, the BOM is kept first and the last record's end is no longer 0:
    // the split read the BOM as a line of its own, the file's header ("missing required columns")
    for (const blank of ['\r\n', '\n'])
      for (const readChunkSize of [4096, 65537, undefined]) {
        const text = `\ufeff${blank.repeat(150_000)}${HEADER}\n${'K1,1,2026-01-01,1,JPY\n'.repeat(3)}`;
        const path = writeTestFile(text);
        const options: OrderFileOptions = { encoding: 'utf-8', delimiter: ',', readChunkSize };
        expect(await compare(path, options)).toBe(3);
        expect((await items(path, options))[0]).toMatchObject({ kind: 'record', lineNo: 150_002, endByte: Buffer.byteLength(text) - 44 });
      }
  });

  it('a read of one byte at a time', async () => {
    const path = writeTestFile(generate(7, 200, { delimiter: ',', oddLines: 0.05 }));
    expect(await compare(path, { encoding: 'utf-8', delimiter: ',', readChunkSize: 1 })).toBeGreaterThan(190);
  });

  it('a tab as delimiter, and a delimiter that is not ASCII (csv-parse alone)', async () => {
    for (const delimiter of ['\t', '¦']) {
      const path = writeTestFile(generate(8, 1500, { delimiter, oddLines: 0.01 }));
      expect(await compare(path, { encoding: 'utf-8', delimiter, readChunkSize: 500 })).toBeGreaterThan(1400);
    }
  });
});
