/**
 * together (src/pipeline/together.ts), what the end of a run awaits its independent reads with
 * (each begun before any is awaited): their values in their order, and a failure said only once
 * every read has ended, so that none is left running on an engine the caller then closes.
 */
import { describe, expect, it } from 'vitest';
import { together } from '../../src/pipeline/together.js';

const after = <T>(ms: number, value: T, log: string[]) =>
  new Promise<T>((resolve) =>
    setTimeout(() => {
      log.push(String(value));
      resolve(value);
    }, ms),
  );

const failAfter = (ms: number, message: string, log: string[]) =>
  new Promise<never>((_, reject) =>
    setTimeout(() => {
      log.push(message);
      reject(new Error(message));
    }, ms),
  );

describe('together', () => {
  it('gives the values of the reads in their order, whichever ended first', async () => {
    const log: string[] = [];
    const [a, b, c] = await together([after(60, 'a', log), after(10, 2, log), Promise.resolve(null)]);
    expect([a, b, c]).toEqual(['a', 2, null]);
    expect(log).toEqual(['2', 'a']);
    expect(await together([])).toEqual([]);
  });

  it('throws a failure only once every read has ended, the first in their order', async () => {
    const log: string[] = [];
    const failure = together([
      after(5, 'first', log),
      failAfter(40, 'second failed', log),
      failAfter(10, 'third failed', log),
      after(80, 'last', log),
    ]);
    await expect(failure).rejects.toThrow('second failed');
    expect(log).toEqual(['first', 'third failed', 'second failed', 'last']);
  });
});
