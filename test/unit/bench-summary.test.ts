/** `npm run bench` ends with figures a user can act on, each ratio with what it means, and no internal target. */
import { describe, expect, it } from 'vitest';
import { summary } from '../../bench/e2e-summary.js';
import type { E2eResult } from '../../bench/e2e.js';
import type { LoadMeasurement } from '../../bench/load-run.js';

const measurement = (over: Partial<LoadMeasurement>): LoadMeasurement => ({
  label: 'load',
  workers: 2,
  chunkSize: 2000,
  file: 'f.csv',
  rows: 100_000,
  wallMs: 10_000,
  stageMs: 4000,
  processMs: 6000,
  peakRssMb: 120,
  rowsPerSec: 10_000,
  exitCode: 2,
  done: 99_000,
  error: 1000,
  nodeCpuS: 5,
  ...over,
});

describe('bench summary', () => {
  it('says each ratio and what it means, never a target nor MISSED', () => {
    const result = {
      files: { withOverflow: { path: 'f.csv', rows: 100_000, missing: 1000, overflow: 100 } },
      ceiling: [{ wallMs: 6250, rowsPerSec: 16_000 }],
      load: [measurement({})],
      rowwise: { rows: 5000, extrapolatedMs: 300_000, rowsPerSec: 400 },
      isolationLoad: measurement({ rowsPerSec: 12_500 }),
      allFailing: { clean: measurement({ wallMs: 10_000 }), failing: measurement({ wallMs: 18_000 }) },
      matrix: [],
      before: [],
      loadAverages: [1.5],
      server: { version: '15.19', settings: [{ name: 'autovacuum', setting: 'off', unit: null, source: 'configuration file' }] },
    } as unknown as E2eResult;
    const text = summary(result, { rows: 100_000, workers: 2, chunkSize: 2000 });
    expect(text).not.toMatch(/target|MISSED|floor/i);
    expect(text).toContain(
      '- load / set-based path = 0.63: the load reaches 63 % of the rate of the set-based path on this machine (10.0 k rows/s against 16.0 k rows/s)',
    );
    expect(text).toContain(
      '- load / row-at-a-time = 25.0: the load is 25.0 times as fast as a loader that stages and merges each row on its own',
    );
    expect(text).toContain('- with 0.1% overflow rows / without = 0.80: rows the database refuses cost 20 % of the rate');
    expect(text).toContain(
      '- every row failing / clean file (time) = 1.80: a file whose every row the database refuses takes 1.8 times as long as a clean one',
    );
    expect(text).toContain('- peak RSS of the load = 120 MB');
    // the server's settings that are not at their defaults are said beside the figures
    expect(text).toContain('PostgreSQL 15.19; settings not at their defaults: autovacuum=off');
  });
});
