/**
 * How much of the input the reader hands to csv-parse when it splits quote-free input itself
 * (src/input/order-file.ts, splitOrParse): csv-parse's Parser is replaced by one that counts the
 * bytes its parse() is given, everything else as is. A line the split leaves to csv-parse must be
 * read by it once: a line over maxRecordSize that csv-parse takes (its limit counts the fields'
 * characters, not the delimiters: a line of commas) was given to a fresh parser from its start at
 * every read, quadratic in its length (an 8 MB line of commas: 0.9 s of CPU with csv-parse alone,
 * 10.8 s with the split).
 *
 * In `fast-isolated` (vi.mock): no global setup, so its files are in a folder of its own.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openOrderFile, type OrderFileOptions } from '../../src/input/order-file.js';

const fed = vi.hoisted(() => ({ bytes: 0 }));

vi.mock('csv-parse', async (importOriginal) => {
  const real = await importOriginal<typeof import('csv-parse')>();
  interface Api {
    parse(buffer: Buffer | undefined, ...rest: unknown[]): unknown;
  }
  class CountingParser extends real.Parser {
    constructor(options: ConstructorParameters<typeof real.Parser>[0]) {
      super(options);
      const api = (this as unknown as { api: Api }).api;
      const parse = api.parse.bind(api);
      api.parse = (buffer, ...rest) => {
        fed.bytes += buffer?.length ?? 0;
        return parse(buffer, ...rest);
      };
    }
  }
  return { ...real, Parser: CountingParser };
});

const dir = mkdtempSync(join(tmpdir(), 'quote-free-split-work-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEADER = 'source_key,customer_id,order_date,amount,currency\n';
const lines = (from: number, count: number): string =>
  Array.from({ length: count }, (_, i) => `K-${from + i},${from + i},2026-01-01,1.00,JPY\n`).join('');

/** The items of the file, and the bytes csv-parse was given to read them. */
async function read(path: string, options: OrderFileOptions): Promise<{ items: unknown[]; fed: number }> {
  fed.bytes = 0;
  const file = await openOrderFile(path, options);
  const items: unknown[] = [];
  for await (const item of file.items) items.push(item.kind === 'record' ? JSON.parse(JSON.stringify(item)) : item);
  return { items, fed: fed.bytes };
}

describe('a line the split leaves to csv-parse is read by it once', () => {
  const chunk = 4096;
  const options: OrderFileOptions = { encoding: 'utf-8', delimiter: ',', readChunkSize: chunk, maxRecordSize: 1000 };

  it('a line of commas 512 KiB long (over maxRecordSize, taken by csv-parse), quote-free lines around it', async () => {
    const long = ','.repeat(512 * 1024);
    const path = join(dir, 'commas.csv');
    writeFileSync(path, `${HEADER}${lines(1, 200)}${long}\n${lines(201, 2000)}`);
    const csv = await read(path, { ...options, csvParseOnly: true });
    const split = await read(path, options);
    expect(split.items).toEqual(csv.items);
    expect(csv.items).toHaveLength(2201);
    expect(csv.items[200]).toMatchObject({ kind: 'reject', code: 'PARSE_FIELD_COUNT', lineNo: 202 });
    // csv-parse reads the long line (and what is left of the read it ends in) once; the lines
    // after it are split again
    expect(split.fed).toBeGreaterThan(long.length);
    expect(split.fed).toBeLessThan(long.length + 3 * chunk);
  });

  it('the same line last in the file, without its line end', async () => {
    const long = ','.repeat(256 * 1024);
    const path = join(dir, 'commas-last.csv');
    writeFileSync(path, `${HEADER}${lines(1, 50)}${long}`);
    const csv = await read(path, { ...options, csvParseOnly: true });
    const split = await read(path, options);
    expect(split.items).toEqual(csv.items);
    expect(csv.items).toHaveLength(51);
    expect(split.fed).toBeLessThan(long.length + 3 * chunk);
  });
});
