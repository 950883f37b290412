import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { RunAbortedError } from '../../src/errors.js';
import { parseProfileText } from '../../src/input/profile/load-profile.js';
import { findRepeatedKeys, keyHash53 } from '../../src/input/repeated-keys.js';
import { HEADER, writeTestFile } from '../support/files.js';

/**
 * The pre-scan of `load` with processing beside staging (src/input/repeated-keys.ts): a key on
 * more than one line of the run's files is held until staging ends. A key it misses is merged
 * from an earlier line before its last line is staged (integration: overlap-hold.test.ts); a key
 * it finds wrongly is only held a little longer.
 */
const PLAIN = { encoding: 'utf-8', delimiter: ',' } as const;

/** An order file of the built-in format with these keys, one a line (the other fields do not matter to the scan). */
function keysFile(keys: readonly string[], name?: string): string {
  return writeTestFile(`${HEADER}\n${keys.map((k) => `${k},1,2026-01-05,1,JPY`).join('\n')}\n`, name);
}

describe('findRepeatedKeys: the keys on more than one line of the run', () => {
  it('a key twice in one file is repeated; keys once are not; count and lines', async () => {
    const keys = await findRepeatedKeys([keysFile(['A', 'B', 'A', 'C', 'D', 'C', 'C'])], PLAIN);
    expect(['A', 'C'].map((k) => keys.has(k))).toEqual([true, true]);
    expect(['B', 'D', 'E', ''].map((k) => keys.has(k))).toEqual([false, false, false, false]);
    // C three times is one repeated key
    expect(keys.count).toBe(2);
    expect(keys.lines).toBe(7);
  });

  it('no key repeated: none is held, whatever is asked', async () => {
    const keys = await findRepeatedKeys([keysFile(['A', 'B', 'C'])], PLAIN);
    expect(keys.count).toBe(0);
    expect(keys.lines).toBe(3);
    expect(['A', 'B', 'C', 'X'].some((k) => keys.has(k))).toBe(false);
  });

  it('a key repeated across files counts as much as one repeated within a file, files read one after the other', async () => {
    const keys = await findRepeatedKeys([keysFile(['A', 'B']), keysFile(['C']), keysFile(['B', 'D'])], PLAIN);
    expect(keys.has('B')).toBe(true);
    expect(['A', 'C', 'D'].some((k) => keys.has(k))).toBe(false);
    expect(keys).toMatchObject({ count: 1, lines: 5 });
  });

  it('no file, or files with a header only: nothing read, nothing held', async () => {
    expect(await findRepeatedKeys([], PLAIN)).toMatchObject({ count: 0, lines: 0 });
    const keys = await findRepeatedKeys([writeTestFile(`${HEADER}\n`), writeTestFile(`${HEADER}\n`)], PLAIN);
    expect(keys).toMatchObject({ count: 0, lines: 0 });
    expect(keys.has('')).toBe(false);
  });

  it('the key as staged: trimmed, so " A " and "A" are one key; case and width are not folded', async () => {
    const keys = await findRepeatedKeys([keysFile([' A', 'A ', 'a', 'Ａ', '"B "', 'B'])], PLAIN);
    expect(keys.has('A')).toBe(true);
    expect(keys.has('B')).toBe(true);
    expect(keys.has('a')).toBe(false);
    expect(keys.has('Ａ')).toBe(false);
    expect(keys.count).toBe(2);
  });

  it('an empty key is not a key (it is rejected by staging), however often it is found', async () => {
    const keys = await findRepeatedKeys([keysFile(['', ' ', 'A', ''])], PLAIN);
    expect(keys.has('')).toBe(false);
    expect(keys.count).toBe(0);
    // the lines whose key was read: only A's
    expect(keys.lines).toBe(1);
  });

  it('a line the reader rejects is not staged and holds nothing: a key on one record and one rejected line is not repeated', async () => {
    // the second A has a field too many: rejected, no stage row
    const path = writeTestFile(`${HEADER}\nA,1,2026-01-05,1,JPY\nA,1,2026-01-05,1,JPY,extra\nB,1,2026-01-05,1,JPY\n`);
    const keys = await findRepeatedKeys([path], PLAIN);
    expect(keys.has('A')).toBe(false);
    expect(keys).toMatchObject({ count: 0, lines: 2 });
  });

  it('read by the same reader as staging: the delimiter, a gzip file, a quoted key holding the delimiter', async () => {
    const semi = writeTestFile(
      `${HEADER.replaceAll(',', ';')}\n"K;1";1;2026-01-05;1;JPY\nK;1;2026-01-05;1;JPY\n"K;1";2;2026-01-05;1;JPY\n`,
    );
    const keys = await findRepeatedKeys([semi], { encoding: 'utf-8', delimiter: ';' });
    expect(keys.has('K;1')).toBe(true);
    expect(keys.has('K')).toBe(false);
    expect(keys).toMatchObject({ count: 1, lines: 3 });
    const gz = writeTestFile(gzipSync(`${HEADER}\nG,1,2026-01-05,1,JPY\nG,1,2026-01-05,1,JPY\n`), 'g.csv.gz');
    expect((await findRepeatedKeys([gz], PLAIN)).has('G')).toBe(true);
  });

  it('through each file its own profile (profileOf), the run profile for a file given none', async () => {
    const profile = (keyColumn: string) =>
      parseProfileText(
        `version: 1
columns:
  source_key: { column: "${keyColumn}" }
  customer_id: { column: "Customer" }
  order_date: { column: "Date" }
  amount: { column: "Total" }
  currency: { const: "JPY" }
`,
        'p.yaml',
        'p',
      );
    // the same keys under two column names: read through the wrong column they would all be "1"
    const byNo = writeTestFile('Customer,Date,Total,OrderNo\n1,2026-01-05,1,X\n1,2026-01-05,1,Y\n');
    const byId = writeTestFile('Id,Customer,Date,Total\nY,1,2026-01-05,1\nZ,1,2026-01-05,1\n');
    const routed = await findRepeatedKeys([byNo, byId], {
      ...PLAIN,
      profile: profile('OrderNo'),
      profileOf: (path) => (path === byId ? profile('Id') : undefined),
    });
    expect(routed.has('Y')).toBe(true);
    expect(['X', 'Z', '1'].some((k) => routed.has(k))).toBe(false);
    expect(routed).toMatchObject({ count: 1, lines: 4 });
    // the run profile alone: byId has no column OrderNo, and is refused as the reader refuses it
    await expect(findRepeatedKeys([byNo, byId], { ...PLAIN, profile: profile('OrderNo') })).rejects.toThrow(/OrderNo/);
  });

  it('more lines than the first blocks of the table hold (65 546): repeats among the first lines, the last and between', async () => {
    const n = (1 << 16) + 10;
    const keys = Array.from({ length: n }, (_, i) => `k${i}`);
    // repeats before the growth, across it and after it
    keys.push('k0', `k${n - 1}`, `k${1 << 16}`, 'k65535');
    const found = await findRepeatedKeys([writeTestFile(`${HEADER}\n${keys.map((k) => `${k},,,,`).join('\n')}\n`)], PLAIN);
    expect(found.lines).toBe(n + 4);
    expect(found.count).toBe(4);
    expect(['k0', `k${n - 1}`, `k${1 << 16}`, 'k65535'].every((k) => found.has(k))).toBe(true);
    expect(['k1', 'k65534', `k${n - 2}`].some((k) => found.has(k))).toBe(false);
  });

  it("what it keeps for the run is 8 bytes a repeated key, not 8 a line read: the lines' hashes are let go once read", async () => {
    // a 10,000,000-line load kept its 80 MB of line hashes (128 MB of table) through all its staging
    const n = 100_000;
    const keys = Array.from({ length: n }, (_, i) => `k${i}`);
    keys.push('k7', `k${n - 1}`, 'k7');
    const found = await findRepeatedKeys([writeTestFile(`${HEADER}\n${keys.map((k) => `${k},,,,`).join('\n')}\n`)], PLAIN);
    expect(found).toMatchObject({ count: 2, lines: n + 3, bytes: 16 });
    expect((await findRepeatedKeys([keysFile(['A', 'B'])], PLAIN)).bytes).toBe(0);
  });

  it('a run aborted before the scan reads no file: the abort is said, not an empty answer', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(findRepeatedKeys([keysFile(['A', 'A'])], { ...PLAIN, signal: controller.signal })).rejects.toBeInstanceOf(RunAbortedError);
  });
});

describe('keyHash53: two keys alike only by chance', () => {
  it('a non-negative integer below 2^53, the same for the same key', () => {
    for (const key of ['', 'A', 'K-1', 'ｷｰ', '\u{1F600}', 'x'.repeat(100)]) {
      const h = keyHash53(key);
      expect(Number.isSafeInteger(h)).toBe(true);
      expect(h).toBeGreaterThanOrEqual(0);
      expect(keyHash53(key)).toBe(h);
    }
  });

  it('keys that differ in one character, in its position or in length hash apart, over both halves of the hash', () => {
    const keys: string[] = [];
    for (let i = 0; i < 20_000; i++) keys.push(`ORD-${i}`);
    for (let i = 0; i < 2_000; i++) keys.push(`${i}-ORD`);
    for (let n = 1; n <= 200; n++) keys.push('a'.repeat(n), 'a'.repeat(n - 1) + 'b', 'b' + 'a'.repeat(n - 1));
    const distinct = new Set(keys);
    const hashes = [...distinct].map(keyHash53);
    expect(new Set(hashes).size).toBe(distinct.size);
    // the high 32 bits and the low 21 bits each tell the keys apart (nearly all: 2^21 is small)
    const high = new Set(hashes.map((h) => Math.floor(h / 0x200000)));
    const low = new Set(hashes.map((h) => h % 0x200000));
    expect(high.size).toBe(distinct.size);
    expect(low.size).toBeGreaterThan(distinct.size * 0.99);
    // every bit of the hash is used: both halves reach their top bit
    expect(hashes.some((h) => h >= 2 ** 52)).toBe(true);
    expect(hashes.some((h) => h % 0x200000 >= 0x100000)).toBe(true);
  });
});
