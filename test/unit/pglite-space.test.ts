import { describe, expect, it } from 'vitest';
import { isOutOfSpace } from '../../src/pipeline/db-error.js';
import { ENDING_FREE_BYTES, MIN_FREE_BYTES, spaceGuard } from '../../src/engine/postgres/pglite-space.js';

const MIB = 1024 * 1024;

function guardOver(frees: number[]) {
  const queue = [...frees];
  return spaceGuard('/data', () => {
    const next = queue.shift();
    if (next === undefined) throw new Error('no more free-space readings');
    return next;
  });
}

describe('the free space kept on the file system of a PGlite folder', () => {
  it('a command that has written nothing needs only the little that ends a run (runs, status on a nearly full disk)', () => {
    const guard = guardOver([ENDING_FREE_BYTES, ENDING_FREE_BYTES]);
    expect(() => guard.check()).not.toThrow();
    expect(() => guard.check()).not.toThrow();
  });

  it('once a transaction took space, the next is refused under MIN_FREE_BYTES, as PostgreSQL out of space (53100)', () => {
    const guard = guardOver([20 * MIB, 18 * MIB, MIN_FREE_BYTES - 1]);
    guard.check();
    guard.check();
    let refusal: unknown;
    try {
      guard.check();
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({ code: '53100' });
    expect(isOutOfSpace(refusal)).toBe(true);
    expect((refusal as Error).message).toMatch(
      /^could not extend the database: 16\.0 MiB free on the file system of \/data, under the 16\.0 MiB kept free/,
    );
  });

  it('keeps twice the most one transaction took, when that is more than MIN_FREE_BYTES', () => {
    const guard = guardOver([100 * MIB, 70 * MIB, 61 * MIB]);
    guard.check();
    guard.check(); // 30 MiB taken: 60 MiB kept
    expect(() => guard.check()).not.toThrow();
    const tighter = guardOver([100 * MIB, 70 * MIB, 59 * MIB]);
    tighter.check();
    tighter.check();
    expect(() => tighter.check()).toThrow(/under the 60\.0 MiB kept free/);
  });

  it('after a refusal, the runs can still be ended: only ENDING_FREE_BYTES is needed', () => {
    const guard = guardOver([40 * MIB, 30 * MIB, 10 * MIB, 10 * MIB, ENDING_FREE_BYTES - 1]);
    guard.check();
    guard.check();
    expect(() => guard.check()).toThrow(/53100|could not extend/);
    expect(() => guard.check()).not.toThrow();
    expect(() => guard.check()).toThrow(/could not extend/);
  });
});
