import { describe, expect, it } from 'vitest';
import { dryRunExitCode, EXIT_FAILED, EXIT_OK, EXIT_ROWS_REJECTED, exitCodeFor } from '../../src/pipeline/outcome.js';

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
