import { describe, expect, it } from 'vitest';
import { KeyHashTable, reserve } from '../../src/input/key-hashes.js';

/**
 * The pre-read's table of key hashes (src/input/key-hashes.ts): which hashes were added more than
 * once, in buffers that grow in place, let go once the answer is read.
 */
const BUCKET = 2 ** 45; // any spacing: hashes far apart among the 53 bits
const TOP = 2 ** 53 - 1;

function tableOf(hashes: readonly number[], segmentBytes?: number): KeyHashTable {
  const table = new KeyHashTable(segmentBytes);
  for (const h of hashes) table.add(h);
  return table;
}

describe('KeyHashTable: the hashes added more than once', () => {
  it('repeats before and after the buffer grows, at the bounds of the hash; a hash three times is one', () => {
    const hashes: number[] = [];
    // 100,000 hashes: past the first length of the buffer (65,536 hashes)
    for (let i = 0; i < 100_000; i++) hashes.push(3 * BUCKET + i * 7);
    hashes.push(3 * BUCKET + 0, 3 * BUCKET + 99_999 * 7, 3 * BUCKET + 99_999 * 7);
    // the bounds of the hash, and hashes far from the others, repeated and not
    hashes.push(0, TOP, 0, TOP, 200 * BUCKET + 5, 9 * BUCKET, 200 * BUCKET + 5);
    const table = tableOf(hashes);
    expect(table.lines).toBe(hashes.length);
    const repeated = table.repeated();
    expect(repeated.count).toBe(5);
    expect(repeated.bytes).toBe(5 * 8);
    const wanted = [0, 3 * BUCKET, 3 * BUCKET + 99_999 * 7, 200 * BUCKET + 5, TOP];
    expect(wanted.every((h) => repeated.has(h))).toBe(true);
    expect([1, 3 * BUCKET + 7, 9 * BUCKET, TOP - 1, 200 * BUCKET + 4].some((h) => repeated.has(h))).toBe(false);
  });

  it('nothing added, or nothing twice: no repeated hash, whatever is asked', () => {
    expect(new KeyHashTable().repeated()).toMatchObject({ count: 0, bytes: 0 });
    const once = tableOf([1, 2, 3 * BUCKET, TOP]).repeated();
    expect(once.count).toBe(0);
    expect([1, 2, 3 * BUCKET, TOP, 0].some((h) => once.has(h))).toBe(false);
  });

  it('the answer is found by its sorted hashes: each of thousands of repeated hashes, none of their neighbours', () => {
    const hashes: number[] = [];
    let x = 12345;
    for (let i = 0; i < 5_000; i++) {
      // spread over every bucket; even values only, so h + 1 is never one of them
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      hashes.push(Math.floor((x / 2 ** 32) * 2 ** 52) * 2);
    }
    const table = tableOf([...hashes, ...hashes.slice(0, 2_500)]);
    const repeated = table.repeated();
    expect(repeated.count).toBe(new Set(hashes.slice(0, 2_500)).size);
    expect(hashes.slice(0, 2_500).every((h) => repeated.has(h))).toBe(true);
    expect(hashes.slice(2_500).some((h) => repeated.has(h))).toBe(false);
    expect(hashes.some((h) => repeated.has(h + 1))).toBe(false);
  });
});

describe('KeyHashTable: buffers that grow in place, more than one past a reservation', () => {
  it('past its reservation the table goes on in another buffer: repeats within each, across them, three times, in any order', () => {
    // 1 KB reservations: 128 hashes each
    const distinct = Array.from({ length: 1_000 }, (_, i) => (i * 7919) % 1_000_003);
    const thrice = 2 ** 52 + 1;
    const hashes = [...distinct];
    // 5 twice within the first buffer; distinct[3] in the first and in the last; `thrice` across the last two
    hashes.splice(10, 0, 5);
    hashes.splice(20, 0, 5);
    hashes.splice(900, 0, thrice);
    hashes.push(distinct[3] as number, thrice, thrice);
    const table = tableOf(hashes, 1024);
    expect(table.segmentCount).toBe(Math.ceil(hashes.length / 128));
    const repeated = table.repeated();
    expect(repeated.count).toBe(3);
    expect([5, distinct[3] as number, thrice].every((h) => repeated.has(h))).toBe(true);
    expect([0, distinct[4] as number, distinct[999] as number, thrice - 1].some((h) => repeated.has(h))).toBe(false);
  });

  it('one buffer for a run of ordinary size; the same answer in one buffer as in many', () => {
    const hashes = Array.from({ length: 100_000 }, (_, i) => (i * 104_729) % 80_000);
    const one = tableOf(hashes);
    expect(one.segmentCount).toBe(1);
    const many = tableOf(hashes, 8 * 4096);
    expect(many.segmentCount).toBe(25);
    const [a, b] = [one.repeated(), many.repeated()];
    expect(a.count).toBe(20_000);
    expect(b.count).toBe(a.count);
    for (let h = 0; h < 80_000; h += 331) expect(b.has(h)).toBe(a.has(h));
  });

  it('reading the answer lets go of every buffer; the count of lines stays, and a second reading finds nothing', () => {
    const table = tableOf([7, 7, 3 * BUCKET, 3 * BUCKET, 8]);
    expect(table.bytes).toBeGreaterThan(0);
    expect(table.repeated().count).toBe(2);
    expect(table.bytes).toBe(0);
    expect(table.segmentCount).toBe(0);
    expect(table.lines).toBe(5);
    expect(table.repeated().count).toBe(0);
  });
});

describe('reserve: the address space a buffer may grow into', () => {
  it('4 GB when it can be had; less, halved, when the system refuses it; a refusal of even 512 KB is said', () => {
    expect(reserve(2 ** 32).maxByteLength).toBe(2 ** 32);
    const asked: number[] = [];
    const short = (length: number, options: { maxByteLength: number }) => {
      asked.push(options.maxByteLength);
      if (options.maxByteLength > 2 ** 30) throw new RangeError('Array buffer allocation failed');
      return reserve(options.maxByteLength);
    };
    expect(reserve(2 ** 32, short).maxByteLength).toBe(2 ** 30);
    expect(asked).toEqual([2 ** 32, 2 ** 31, 2 ** 30]);
    const none = () => {
      throw new RangeError('Array buffer allocation failed');
    };
    expect(() => reserve(2 ** 32, none)).toThrow(RangeError);
    // not a shortage of address space: said at once
    let calls = 0;
    const broken = () => {
      calls++;
      throw new TypeError('not a constructor');
    };
    expect(() => reserve(2 ** 32, broken)).toThrow(TypeError);
    expect(calls).toBe(1);
  });
});
