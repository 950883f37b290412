/**
 * A file loaded again unchanged is skipped (already staged), and its run still says what its load
 * rejected: the lines refused before they had a stage row stay rejected (`errors` lists them),
 * so every rerun exits 2 with them counted, not only the first rerun. A skip records a 'staged'
 * event of its own, without batches: the counts come from the load's own checkpoints.
 */
import { expect } from 'vitest';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, writeTestFile } from '../support/files.js';

forEachTarget('a file loaded again and again, on $kind', () => {
  targetTest('a wrong field count: every run exits 2 and counts the rejected line', async ({ db }) => {
    const { loader } = await db.open();
    const path = writeTestFile(`${HEADER}\nA1,1,2026-11-01,1.00,JPY\nA4,1,2026-11-01,4.00,JPY\nA2,1,2026-11-01,1.00\n`, 'field-count.csv');
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await loader.load([path]));
    expect(runs.map((r) => r.exitCode)).toEqual([2, 2, 2]);
    expect(runs.map((r) => r.files[0]?.counts.rejected)).toEqual([1, 1, 1]);
    // the first load read it; the reruns skipped it, the same load
    expect(runs.map((r) => typeof r.files[0]?.skipped === 'string')).toEqual([false, true, true]);
    expect(new Set(runs.map((r) => r.files[0]?.loadId)).size).toBe(1);
    expect((await loader.errors()).map((e) => [e.phase, e.lineNo])).toEqual([['PARSE', 4]]);
  });

  targetTest('an amount that is not a number (row ERROR): every run exits 2 with the row ERROR', async ({ db }) => {
    const { loader } = await db.open();
    const path = writeTestFile(`${HEADER}\nB1,1,2026-11-01,1.00,JPY\nB2,1,2026-11-01,abc,JPY\n`, 'amount.csv');
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await loader.load([path]));
    expect(runs.map((r) => r.exitCode)).toEqual([2, 2, 2]);
    expect(runs.map((r) => r.files[0]?.tally)).toEqual([
      { DONE: 1, ERROR: 1 },
      { DONE: 1, ERROR: 1 },
      { DONE: 1, ERROR: 1 },
    ]);
    // counted as rejected while staging (a stage row ERROR from the start), by every run
    expect(runs.map((r) => r.files[0]?.counts.rejected)).toEqual([1, 1, 1]);
  });
});
