/**
 * countLines (src/input/formats/delimited-bytes.ts) on records whose first bytes look like part of
 * a BOM without being one: only the three bytes EF BB BF together are skipped. A latin1 file
 * (windows-1252) that opens with blank lines and a Spanish "¿" (byte BF) or a "»" (BB) would
 * otherwise have its blank lines skipped as a BOM and its first record reported on a wrong line.
 * Written against the survivors of StrykerJS's `delimited` group (docs/mutation.md, "Scores of the
 * `delimited` group"); not yet in the group's list.
 */
import { describe, expect, it } from 'vitest';
import { countLines } from '../../src/input/formats/delimited-bytes.js';

const lines = (b: Buffer): { startLine: number; endLine: number } => countLines(b, 0, b.length, 0);

describe('countLines: a BOM is the three bytes EF BB BF together', () => {
  it('blank lines before a latin1 "¿" (BF) or "»¿" (BB BF) still count', () => {
    expect(lines(Buffer.from('\n\n\xBFQu\xE9?\n', 'latin1'))).toEqual({ startLine: 3, endLine: 3 });
    expect(lines(Buffer.from('\n\xBB\xBFa\n', 'latin1'))).toEqual({ startLine: 2, endLine: 2 });
  });

  it('EF, BB and BF each at its place but not all three are no BOM: the line breaks among them count', () => {
    expect(lines(Buffer.from([0xef, 0x0a, 0x0a, 0x61]))).toEqual({ startLine: 1, endLine: 3 });
    expect(lines(Buffer.from([0x0a, 0xbb, 0x0a, 0x61]))).toEqual({ startLine: 2, endLine: 3 });
    expect(lines(Buffer.from([0xef, 0x0a, 0xbf, 0x61]))).toEqual({ startLine: 1, endLine: 2 });
    expect(lines(Buffer.from([0xef, 0xbb, 0x0a, 0x61]))).toEqual({ startLine: 1, endLine: 2 });
  });
});
