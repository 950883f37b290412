/**
 * The dry run's table of distinct keys (src/pipeline/key-table.ts) against the Map it replaced:
 * the same answers for every key, also when hashes collide (a hash that is always 0, one that
 * pairs keys up) and across the growth of every one of its arrays.
 */
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/bench/synthetic-orders.js';
import { KeyTable, keyHash32 } from '../../src/pipeline/key-table.js';

/** Keys with repeats: short and long, ASCII and not, one a prefix of another. */
function keys(seed: number, n: number): string[] {
  const next = mulberry32(seed);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = next();
    if (r < 0.2 && out.length > 0) out.push(out[Math.floor(next() * out.length)] as string);
    else if (r < 0.3) out.push(`K-${Math.floor(next() * 50)}`);
    else if (r < 0.35) out.push(`注文-${Math.floor(next() * 1000)}-𠮷`);
    else if (r < 0.4) out.push('X'.repeat(Math.floor(next() * 300)));
    else out.push(`SRC-${String(Math.floor(next() * 1e9)).padStart(9, '0')}`);
  }
  return out;
}

function compareWithMap(table: KeyTable, list: readonly string[], seed: number): void {
  const map = new Map<string, number>();
  const next = mulberry32(seed);
  for (const key of list) {
    const value = Math.floor(next() * 3);
    const had = map.has(key);
    map.set(key, value);
    expect(table.set(key, value), key).toBe(had);
  }
  expect(table.size).toBe(map.size);
  const counts = new Array<number>(256).fill(0);
  for (const v of map.values()) counts[v] = (counts[v] ?? 0) + 1;
  expect(table.numberCounts()).toEqual(counts);
}

describe('KeyTable', () => {
  it('answers as a Map for 200,000 keys with repeats (every array grows many times)', () => {
    compareWithMap(new KeyTable(), keys(1, 200_000), 2);
  });

  it('answers as a Map when every hash is the same: keys are told apart by their characters', () => {
    compareWithMap(new KeyTable(() => 0), keys(3, 3_000), 4);
  });

  it('answers as a Map when hashes pair keys up, and for keys one of which begins the other', () => {
    compareWithMap(new KeyTable((k) => k.length), ['ab', 'a', 'ab', 'abc', 'ba', 'a', '', '', 'b', 'abc'], 5);
    compareWithMap(new KeyTable((k) => keyHash32(k) & 0xf), keys(6, 5_000), 7);
  });

  it('keyHash32 spreads consecutive keys over the low bits (the slot is hash & mask)', () => {
    const slots = new Set<number>();
    for (let i = 0; i < 4096; i++) slots.add(keyHash32(`SRC-${String(i).padStart(9, '0')}`) & 8191);
    // 4,096 keys into 8,192 slots at random fill about 3,200 distinct ones; a poor hash fills far fewer
    expect(slots.size).toBeGreaterThan(2_900);
  });
});
