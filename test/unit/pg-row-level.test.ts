import { describe, expect, it } from 'vitest';
import { classifySqlstate, isRowLevelSqlstate, ROW_LEVEL_SQLSTATES } from '../../src/engine/postgres/classify.js';
import { parseCommandLine } from '../../src/cli/options.js';

describe('the row-level SQLSTATEs (the one list the MERGE function receives)', () => {
  it('holds the failures of a row: its data, its constraints, a trigger, and its transient conflicts', () => {
    for (const code of ['22003', '22P02', '23505', '23502', 'P0001', '40001', '40P01', '55P03'])
      expect(isRowLevelSqlstate(code), code).toBe(true);
  });

  it('never holds what is not a row’s fault: those roll the whole chunk back', () => {
    for (const code of ['42501', '42P01', '53100', '57014', '57P01', '08006', 'XX000', '55000', '55006'])
      expect(isRowLevelSqlstate(code), code).toBe(false);
  });

  it('every code classified transient is row-level, so that it can reach RETRY_WAIT; none is fatal', () => {
    const candidates = ['22003', '23505', '23503', 'P0001', '40001', '40P01', '55P03', '55006', '42501', '57014'];
    for (const code of candidates) {
      if (classifySqlstate(code) === 'transient') expect(isRowLevelSqlstate(code), code).toBe(true);
      if (isRowLevelSqlstate(code)) expect(classifySqlstate(code), code).not.toBe('fatal');
    }
    for (const entry of ROW_LEVEL_SQLSTATES) expect(entry).toMatch(/^[0-9A-Z]{2}([0-9A-Z]{3})?$/);
  });
});

describe('--row-lock-wait', () => {
  const lockWait = (...args: string[]) => parseCommandLine(['process', ...args]).options['row-lock-wait'];

  it('defaults to 10 s and reads ms, s (the default unit), m and h; 0 means no limit', () => {
    expect(lockWait()).toBe(10_000);
    expect(lockWait('--row-lock-wait', '500ms')).toBe(500);
    expect(lockWait('--row-lock-wait', '30')).toBe(30_000);
    expect(lockWait('--row-lock-wait', '2m')).toBe(120_000);
    expect(lockWait('--row-lock-wait', '1h')).toBe(3_600_000);
    expect(lockWait('--row-lock-wait', '0')).toBe(0);
  });

  it('refuses what is not a duration, and more than a day', () => {
    expect(() => lockWait('--row-lock-wait', 'soon')).toThrow(/--row-lock-wait takes a duration/);
    expect(() => lockWait('--row-lock-wait', '-1s')).toThrow(/--row-lock-wait/);
    expect(() => lockWait('--row-lock-wait', '25h')).toThrow(/at most 24h/);
  });
});
