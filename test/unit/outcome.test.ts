import { describe, expect, it } from 'vitest';
import { dryRunExitCode, EXIT_FAILED, EXIT_OK, EXIT_ROWS_REJECTED, exitCodeFor, notDone } from '../../src/pipeline/outcome.js';

describe('exitCodeFor', () => {
  it('0 when nothing failed and no row was rejected', () => {
    expect(exitCodeFor({ failed: false, rowsRejected: false })).toBe(EXIT_OK);
  });
  it('2 when rows were rejected', () => {
    expect(exitCodeFor({ failed: false, rowsRejected: true })).toBe(EXIT_ROWS_REJECTED);
  });
  it('1 when the run failed, whatever its rows did', () => {
    expect(exitCodeFor({ failed: true, rowsRejected: false })).toBe(EXIT_FAILED);
    expect(exitCodeFor({ failed: true, rowsRejected: true })).toBe(EXIT_FAILED);
  });
});

describe('dryRunExitCode', () => {
  const clean = { stoppedAt: null, counts: { rejected: 0, invalid: 0 } };
  it('an invalid row gives 2 for load, 0 for stage (stage does not validate)', () => {
    const invalid = { stoppedAt: null, counts: { rejected: 0, invalid: 1 } };
    expect(dryRunExitCode([clean, invalid], 'load')).toBe(EXIT_ROWS_REJECTED);
    expect(dryRunExitCode([clean, invalid], 'stage')).toBe(EXIT_OK);
  });
  it('a rejected line gives 2 for both; a file that stops gives 1', () => {
    expect(dryRunExitCode([{ stoppedAt: null, counts: { rejected: 1, invalid: 0 } }], 'stage')).toBe(EXIT_ROWS_REJECTED);
    expect(dryRunExitCode([clean, { stoppedAt: { line: 3 }, counts: { rejected: 1, invalid: 0 } }])).toBe(EXIT_FAILED);
  });
});

describe('notDone and a file of which nothing could be read', () => {
  it('notDone counts every row that did not end DONE', () => {
    expect(notDone({ DONE: 5, ERROR: 1, RETRY_WAIT: 2, READY: 4, PROCESSING: 8, HELD: 16 })).toBe(31);
    expect(notDone({ DONE: 5 })).toBe(0);
  });
  it('a file that failed gives 2 when nothing else did', () => {
    expect(exitCodeFor({ failed: false, rowsRejected: false, filesFailed: true })).toBe(EXIT_ROWS_REJECTED);
    expect(exitCodeFor({ failed: false, rowsRejected: false, filesFailed: false })).toBe(EXIT_OK);
  });
  it('a dry run: a profile that discarded every line of a file gives 2; some lines read, or none discarded, 0', () => {
    const run = (discarded: number | undefined, read: number | undefined) => ({
      stoppedAt: null,
      counts: { rejected: 0, invalid: 0, ...(read === undefined ? {} : { read }) },
      discarded,
    });
    expect(dryRunExitCode([run(0, 4), run(3, 0)])).toBe(EXIT_ROWS_REJECTED);
    expect(dryRunExitCode([run(3, undefined)])).toBe(EXIT_ROWS_REJECTED);
    expect(dryRunExitCode([run(3, 1)])).toBe(EXIT_OK);
    expect(dryRunExitCode([run(0, 0)])).toBe(EXIT_OK);
    expect(dryRunExitCode([run(undefined, 0)])).toBe(EXIT_OK);
  });
  it('a dry run: a file no profile of --profiles matched gives 2, whatever the other files did', () => {
    const clean = { stoppedAt: null, counts: { rejected: 0, invalid: 0, read: 4 } };
    expect(dryRunExitCode([clean, { ...clean, counts: { rejected: 0, invalid: 0 }, unmatched: 'no load profile matches its name' }])).toBe(
      EXIT_ROWS_REJECTED,
    );
    expect(dryRunExitCode([clean, { ...clean, unmatched: undefined }])).toBe(EXIT_OK);
  });
});
