import { describe, expect, it } from 'vitest';
import { createProgress } from '../../src/cli/progress.js';

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  const stream = { isTTY, columns: 200, write: (s: string) => writes.push(s) > 0 } as unknown as NodeJS.WriteStream;
  return { stream, writes };
}

describe('progress line', () => {
  it('draws bytes, rate and ETA while staging, rows of total while processing, on a terminal', async () => {
    const { stream, writes } = fakeStream(true);
    const p = createProgress(stream);
    p.staging('a.csv', 0, 10 * 1_048_576, 0);
    await new Promise((r) => setTimeout(r, 300));
    p.staging('a.csv', 5 * 1_048_576, 10 * 1_048_576, 50_000);
    expect(writes.at(-1)).toMatch(/^\r\x1b\[2Kstaging a\.csv: 5\.0 MB \/ 10\.0 MB \(50%\), \d+ rows\/s, ETA \d+:\d\d$/);
    p.processingStart(1000);
    await new Promise((r) => setTimeout(r, 300));
    p.processing(250);
    expect(writes.at(-1)).toMatch(/processing: 250 \/ 1000 rows \(25%\), \d+ rows\/s, ETA \d+:\d\d$/);
    p.clear();
    expect(writes.at(-1)).toBe('\r\x1b[2K');
  });

  it('writes nothing when stderr is not a terminal', () => {
    const { stream, writes } = fakeStream(false);
    const p = createProgress(stream);
    p.staging('a.csv', 1, 2, 3);
    p.processing(1);
    p.clear();
    expect(writes).toEqual([]);
  });
});

describe('progress rates', () => {
  it('shows no rate for the first sample of a file (measured over ~0 ms) nor before processing has a baseline', () => {
    const { stream, writes } = fakeStream(true);
    const p = createProgress(stream);
    // the first report arrives after the first committed batch: 5000 lines, a moment after the start
    p.staging('a.csv', 1_048_576, 10 * 1_048_576, 5000);
    expect(writes.at(-1)).toMatch(/staging a\.csv: 1\.0 MB \/ 10\.0 MB \(10%\), - rows\/s, ETA -$/);
  });

  it('processing alongside staging (no start reported): no rate on its first sample', async () => {
    const { stream, writes } = fakeStream(true);
    const p = createProgress(stream);
    p.processing(2000);
    expect(writes.at(-1)).toMatch(/processing: 2000 rows, - rows\/s$/);
    await new Promise((r) => setTimeout(r, 300));
    p.processing(4000);
    expect(writes.at(-1)).toMatch(/processing: 4000 rows, \d+ rows\/s$/);
  });
});

describe('the progress line and other output', () => {
  it('is cleared before anything else is written to its stream, and drawn again below at the next update', async () => {
    const { stream, writes } = fakeStream(true);
    const p = createProgress(stream);
    p.processingStart(1000);
    p.processing(100);
    // a log line written to the same stream (the readable logger, a warning)
    stream.write('WARN: the database is slow\n');
    expect(writes.slice(-2)).toEqual(['\r\x1b[2K', 'WARN: the database is slow\n']);
    // the next update is drawn at once (not held back by the 4-a-second limit) on its own line
    p.processing(200);
    expect(writes.at(-1)).toMatch(/^\r\x1b\[2Kprocessing: 200 \/ 1000 rows/);
    p.clear();
    // once cleared, the stream writes as before: nothing added
    stream.write('done\n');
    expect(writes.at(-1)).toBe('done\n');
    expect(writes.at(-2)).toBe('\r\x1b[2K');
  });

  it('says it is waiting for the database when no progress comes, with what the wait may be', async () => {
    const { stream, writes } = fakeStream(true);
    const p = createProgress(stream, { waitShownMs: 200, waitNote: () => ' (a row another session holds: 10 s)' });
    p.processingStart(1000);
    p.processing(960);
    await new Promise((r) => setTimeout(r, 700));
    expect(writes.at(-1)).toMatch(
      /^\r\x1b\[2Kprocessing: 960 \/ 1000 rows \(96%\), .*; waiting \d+ s for the database \(a row another session holds: 10 s\)$/,
    );
    p.clear();
    const count = writes.length;
    await new Promise((r) => setTimeout(r, 500));
    // cleared: no waiting line drawn after the summary
    expect(writes).toHaveLength(count);
  });
});
